internal import LibC
internal import Logging
import SystemPackage

/// The part of a compaction that waits for the disk, done after the I/O thread switched appends to the next journal
/// (``JournalStore/startSnapshot(_:)``): steps 3-7 of docs/RELIABILITY.md, "Why no crash mixes generations".
///
/// A value the I/O thread hands to ``SnapshotWriter`` (or runs inline): it owns the duplicates of the descriptors it
/// holds and closes them. `Sendable`: every field is a value or a `Sendable` descriptor.
struct SnapshotJob: Sendable {
    /// The state directory's path.
    let directory: String
    /// A duplicate of the state directory's descriptor, for its `fsync`s.
    let directoryDescriptor: FileDescriptor
    /// The new snapshot's generation: the journal appends went to at the switch.
    let generation: UInt64
    let payload: [UInt8]
    /// A duplicate of the descriptor of the journal appends left at the switch, synced before the snapshot.
    let previousJournal: FileDescriptor
    let previousJournalPath: String
    /// A duplicate of the descriptor of the journal appends go to now, whose header is synced before the snapshot.
    let nextJournal: FileDescriptor
    let nextJournalPath: String
    /// The journals the snapshot replaces, deleted once it is durable.
    let replacedJournals: [UInt64]
    /// Whether the new journal's directory entry still has to be made durable (the I/O thread did it under
    /// `.always`).
    let syncsDirectoryFirst: Bool
    let logger: Logger
    /// Tests: where the job stops as if the process were killed, leaving the files as they are.
    let simulatedCrash: SnapshotCrashPoint?
    /// Tests: called at each step, before it is taken.
    let pause: (@Sendable (SnapshotCrashPoint) -> Void)?

    /// What a job did.
    struct Outcome: Sendable {
        let generation: UInt64
        /// The snapshot file's size, once written.
        let snapshotBytes: Int
        /// Why it failed, `nil` when it did not.
        let error: JournalError?
        /// Whether the new snapshot took effect (renamed over `snapshot`) before it failed.
        let tookEffect: Bool
        /// The job's time on its thread.
        let duration: Duration
    }

    /// Runs the steps. Fails with `.io` when nothing took effect (`snapshot.tmp` removed; the journals stay and
    /// are read in order), `.unusable` when the store must not go on: a sync failed (the kernel may have dropped the
    /// pages), or the snapshot took effect and its directory could not be synced.
    func run() -> Outcome {
        let clock = ContinuousClock()
        let started = clock.now
        var tookEffect = false
        var error: JournalError?
        do throws(JournalError) {
            try writeAndRename(tookEffect: &tookEffect)
        } catch let failure {
            error = failure
        }
        try? previousJournal.close()
        try? nextJournal.close()
        try? directoryDescriptor.close()
        return Outcome(
            generation: generation, snapshotBytes: JournalFormat.snapshotHeaderSize + payload.count, error: error,
            tookEffect: tookEffect, duration: started.duration(to: clock.now))
    }

    private func writeAndRename(tookEffect: inout Bool) throws(JournalError) {
        // Step 3: the new journal (its name and header) and what it follows are durable before the snapshot.
        do throws(JournalError) {
            try stop(at: .switched)
            if syncsDirectoryFirst { try directoryDescriptor.syncAll(path: directory) }
            try previousJournal.syncData(path: previousJournalPath)
            try nextJournal.syncData(path: nextJournalPath)
        } catch {
            throw JournalError(.unusable, error.message)
        }

        // Steps 4-5: snapshot.tmp, synced, renamed over snapshot. A failure here leaves the old snapshot in force.
        do throws(JournalError) {
            try writeTemporarySnapshot()
            try stop(at: .temporaryWritten)
            try move("snapshot.tmp", to: "snapshot")
        } catch {
            if error.code == .io { remove("snapshot.tmp") }
            throw error
        }
        tookEffect = true

        // Steps 6-7: the rename made durable, then the replaced journals deleted.
        do throws(JournalError) {
            try stop(at: .renamed)
            try directoryDescriptor.syncAll(path: directory)
        } catch {
            throw JournalError(.unusable, "a compaction failed after its snapshot took effect: \(error.message)")
        }
        try stop(at: .replacedJournalsLeft)
        for old in replacedJournals { remove(JournalFormat.journalFileName(old)) }
    }

    /// Writes `snapshot.tmp` (header and payload) and `fsync`s it.
    private func writeTemporarySnapshot() throws(JournalError) {
        let path = directory + "/snapshot.tmp"
        let header = JournalFormat.snapshotHeader(generation: generation, payload: payload)
        let file = try FileDescriptor.open(journalFile: path, .writeOnly, options: [.create, .truncate])
        defer { try? file.close() }
        if simulatedCrash == .temporaryTorn {
            try file.write(header, at: 0, path: path)
            try file.write(Array(payload.prefix(payload.count / 2)), at: header.count, path: path)
        }
        try stop(at: .temporaryTorn)
        try file.write(header, at: 0, path: path)
        try file.write(payload, at: header.count, path: path)
        try file.syncAll(path: path)
    }

    private func move(_ name: String, to newName: String) throws(JournalError) {
        guard rename("\(directory)/\(name)", "\(directory)/\(newName)") == 0 else {
            throw .io("cannot rename \(directory)/\(name) to \(directory)/\(newName)", Errno(rawValue: errno))
        }
    }

    private func remove(_ name: String) {
        if unlink("\(directory)/\(name)") != 0 && errno != ENOENT {
            logger.warning(
                "journal: cannot delete a file",
                metadata: ["file": "\(directory)/\(name)", "error": "\(Errno(rawValue: errno).text)"])
        }
    }

    private func stop(at point: SnapshotCrashPoint) throws(JournalError) {
        pause?(point)
        if simulatedCrash == point { throw JournalError(.unusable, "simulated crash at \(point)") }
    }
}

/// Points where a test makes a compaction stop as a SIGKILL would, leaving the files as they are at that moment, in
/// the order a compaction passes them (docs/RELIABILITY.md, "Why no crash mixes generations", numbers the steps).
enum SnapshotCrashPoint: String, Sendable, CaseIterable, CustomStringConvertible {
    /// Step 2 on the I/O thread: the next journal created with half its header.
    case journalTorn
    /// Step 3: appends go to the next journal; nothing of the snapshot written yet.
    case switched
    /// Step 4: `snapshot.tmp` half written, not synced.
    case temporaryTorn
    /// Step 5: `snapshot.tmp` complete and synced, not renamed.
    case temporaryWritten
    /// Step 6: renamed over `snapshot`; the directory not synced.
    case renamed
    /// Step 7: the rename durable; the journals it replaced not deleted.
    case replacedJournalsLeft

    var description: String { rawValue }
}
