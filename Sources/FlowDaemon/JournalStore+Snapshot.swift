import SystemPackage

extension JournalStore {
    /// Compaction: `payload` (the whole state, including what is buffered) replaces the snapshot and the journal.
    /// Buffered records are written to the old journal first. Crash-safe at every step (docs/RELIABILITY.md, "Why no
    /// crash mixes generations", numbers the steps named below).
    ///
    /// - Throws: ``JournalError`` `.io` when it failed before the new snapshot took effect (the store goes on with
    ///   the old one); `.unusable` afterwards when it failed after (the next start loads the new snapshot).
    package func writeSnapshot(_ payload: [UInt8]) throws(JournalError) {
        try requireUsable()
        if !buffer.isEmpty { try writeBuffer() }
        let newGeneration = generation + 1

        // Steps 2-3: snapshot.tmp, synced, renamed over snapshot. A failure here leaves the old state in force.
        do throws(JournalError) {
            try writeTemporarySnapshot(payload, generation: newGeneration)
            try crash(at: .temporaryWritten)
            try directory.move("snapshot.tmp", to: "snapshot")
        } catch {
            // Not after a simulated crash: that leaves the files as they are.
            if failure == nil { directory.remove("snapshot.tmp", logger: logger) }
            throw error
        }

        // Steps 4-5: the new snapshot is in force; the open journal is of the old generation. A failure from here on
        // leaves the store unusable, and the next load() finds the new snapshot.
        let newJournal: FileDescriptor
        do throws(JournalError) {
            try crash(at: .renamed)
            try directory.sync()
            newJournal = try createJournal(newGeneration)
        } catch {
            if failure == nil {
                failure = JournalError(
                    .unusable, "a compaction failed after its snapshot took effect: \(error.message)")
            }
            throw failure!
        }

        // Step 6.
        let oldGeneration = generation
        closeJournal()
        journal = newJournal
        generation = newGeneration
        journalBytes = JournalFormat.journalHeaderSize
        snapshotBytes = JournalFormat.snapshotHeaderSize + payload.count
        hasUnsyncedData = false
        try crash(at: .journalCreated)
        directory.remove(JournalFormat.journalFileName(oldGeneration), logger: logger)
        logger.debug(
            "journal: compacted",
            metadata: ["generation": "\(newGeneration)", "snapshot_bytes": "\(snapshotBytes)"])
    }

    /// Writes `snapshot.tmp` (header and payload) and `fsync`s it.
    private func writeTemporarySnapshot(_ payload: [UInt8], generation: UInt64) throws(JournalError) {
        let path = directory.filePath("snapshot.tmp")
        let header = JournalFormat.snapshotHeader(generation: generation, payload: payload)
        let file = try FileDescriptor.open(journalFile: path, .writeOnly, options: [.create, .truncate])
        defer { try? file.close() }
        if simulatedCrash == .temporaryTorn {
            try file.write(header, at: 0, path: path)
            try file.write(Array(payload.prefix(payload.count / 2)), at: header.count, path: path)
            try crash(at: .temporaryTorn)
        }
        try file.write(header, at: 0, path: path)
        try file.write(payload, at: header.count, path: path)
        try file.syncAll(path: path)
    }
}

/// Points where a test makes ``JournalStore/writeSnapshot(_:)`` stop as a SIGKILL would, leaving the files as they
/// are at that moment.
enum SnapshotCrashPoint: String, Sendable, CaseIterable, CustomStringConvertible {
    /// `snapshot.tmp` half written, not synced.
    case temporaryTorn
    /// `snapshot.tmp` complete and synced, not renamed.
    case temporaryWritten
    /// Renamed over `snapshot`; the new journal not created.
    case renamed
    /// The new journal created with half its header.
    case journalTorn
    /// The new journal complete; the old one not deleted.
    case journalCreated

    var description: String { rawValue }
}
