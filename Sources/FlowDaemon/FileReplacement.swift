internal import LibC
import SystemPackage

/// A file replaced whole: its bytes written aside, to a temporary file made anew (mode 0600, as the journal's files),
/// and renamed over it, so that a crash leaves the old file or the new, never part of one.
enum FileReplacement {
    /// Replaces (or creates) `path` with `bytes`, written first to `temporary`; whatever a crash or a hand left under
    /// that name goes first (a fifo there would block the open). `synced`: the bytes reach the disk before the
    /// rename; the rename lasts a power cut only once the folder is synced too, which is the caller's.
    ///
    /// - Throws: ``JournalError`` `.io`; `temporary` is removed then.
    static func replace(
        _ path: String, with bytes: [UInt8], writingAside temporary: String, synced: Bool
    ) throws(JournalError) {
        unlink(temporary)
        let file = try FileDescriptor.open(journalFile: temporary, .writeOnly, options: [.create, .exclusiveCreate])
        do throws(JournalError) {
            try file.write(bytes, at: 0, path: temporary)
            if synced { try file.syncAll(path: temporary) }
        } catch {
            try? file.close()
            unlink(temporary)
            throw error
        }
        try? file.close()
        guard rename(temporary, path) == 0 else {
            let error = JournalError.io("cannot rename \(temporary) to \(path)", Errno(rawValue: errno))
            unlink(temporary)
            throw error
        }
    }
}
