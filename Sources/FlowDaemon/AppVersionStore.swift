internal import LibC
internal import Logging
import SystemPackage

/// The texts of the application's versions in the state directory, `apps/<version>.flows.yaml`: every version a live
/// session uses is there before the first journal record that names it (docs/RELIABILITY.md, "Application
/// versions"), so that recovery rebuilds each session with its own version.
///
/// Used on the daemon's I/O thread only, inside a state directory its ``JournalStore`` holds locked.
struct AppVersionStore {
    /// `<state>/apps`.
    let path: String

    init(stateDirectory: String) {
        var directory = stateDirectory
        while directory.count > 1 && directory.hasSuffix("/") { directory.removeLast() }
        path = directory + "/apps"
    }

    func filePath(_ id: String) -> String { "\(path)/\(id).flows.yaml" }

    /// Keeps `version`'s text, durably, unless it is kept already: written to a temporary file, synced, renamed into
    /// place, and the folder synced (a crash leaves the whole file or none).
    ///
    /// - Throws: ``JournalError`` `.io`.
    func keep(_ version: AppVersion) throws(JournalError) {
        let target = filePath(version.id)
        if access(target, F_OK) == 0 { return }
        try makeFolder()
        try FileReplacement.replace(
            target, with: version.text, writingAside: "\(path)/\(version.id).tmp", synced: true)
        try syncFolder(path)
    }

    /// The text kept for version `id`, `nil` when none is.
    ///
    /// - Throws: ``JournalError`` `.io` when it is there but cannot be read, `.corrupt` when its bytes are not the
    ///   version's (their content id differs).
    func text(of id: String) throws(JournalError) -> [UInt8]? {
        let target = filePath(id)
        guard access(target, F_OK) == 0 else { return nil }
        let file = try FileDescriptor.open(journalFile: target, .readOnly)
        defer { try? file.close() }
        let bytes = try file.readAll(path: target)
        guard AppVersion.id(of: bytes) == id else {
            throw JournalError(.corrupt, "\(target) does not hold version \(id) of the application (its bytes changed)")
        }
        return bytes
    }

    /// Deletes the kept versions not in `live` (and temporary files a crash left); logs what it deletes.
    func removeAll(except live: Set<String>, logger: Logger) {
        guard let names = try? StateDirectory.names(in: path) else { return }
        for name in names.sorted() where name.hasSuffix(".tmp") || name.hasSuffix(".flows.yaml") {
            let id = String(name.prefix { $0 != "." })
            guard name.hasSuffix(".tmp") || !live.contains(id) else { continue }
            if unlink("\(path)/\(name)") == 0 {
                logger.info("application version no session uses deleted", metadata: ["file": "\(path)/\(name)"])
            }
        }
    }

    private func makeFolder() throws(JournalError) {
        guard mkdir(path, 0o700) == 0 || errno == EEXIST else {
            throw .io("cannot create \(path)", Errno(rawValue: errno))
        }
        try syncFolder(String(path.dropLast("/apps".count)))
    }

    private func syncFolder(_ folder: String) throws(JournalError) {
        let directory: FileDescriptor
        do {
            directory = try FileDescriptor.open(FilePath(folder), .readOnly, options: [.directory, .closeOnExec])
        } catch {
            throw .io("cannot open \(folder)", error)
        }
        defer { try? directory.close() }
        try directory.syncAll(path: folder)
    }
}
