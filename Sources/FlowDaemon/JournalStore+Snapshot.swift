import SystemPackage

extension JournalStore {
    /// A compaction, start to end, on the caller's thread: ``startSnapshot(_:)``, then waits for the writer and
    /// ``finishSnapshot()``.
    ///
    /// - Throws: as ``startSnapshot(_:)`` and ``finishSnapshot()``.
    package func writeSnapshot(_ payload: [UInt8]) throws(JournalError) {
        try startSnapshot(payload)
        writer?.waitUntilIdle()
        try finishSnapshot()
    }

    /// Starts a compaction: `payload` (the whole state, including what is buffered) is to replace the snapshot and
    /// the journals. The caller's part: buffered records are written to the live journal, the next journal is created
    /// with a header naming the live one's length, and appends go there from now on; the snapshot is written and
    /// synced by the ``SnapshotWriter`` (inline without one), and ``finishSnapshot()`` collects the outcome.
    /// Crash-safe at every step (docs/RELIABILITY.md, "Why no crash mixes generations", numbers the steps).
    ///
    /// - Throws: ``JournalError`` `.compacting` while a compaction runs; `.io` when the switch failed (the store
    ///   goes on with the live journal); `.unusable` after a simulated crash.
    package func startSnapshot(_ payload: [UInt8]) throws(JournalError) {
        try requireUsable()
        guard compactingGeneration == nil else {
            throw JournalError(.compacting, "a compaction is running; the next one starts after it ended")
        }
        // Step 1: the payload covers what is buffered.
        if !buffer.isEmpty { try writeBuffer() }
        guard let previous = journal else { throw JournalError(.notOpen, "load() has not run") }
        let previousGeneration = generation
        let previousPath = journalPath(previousGeneration)
        let descriptors: (directory: FileDescriptor, journal: FileDescriptor)
        do {
            let directoryCopy = try directory.duplicateDescriptor()
            do {
                descriptors = (directoryCopy, try previous.duplicate())
            } catch {
                try? directoryCopy.close()
                throw error
            }
        } catch {
            throw .io("cannot duplicate the descriptors a compaction needs", error)
        }

        // Step 2: the next journal, its header naming the live one's length; appends go there from now on. Under
        // `.always` its name is made durable here, as the next commit's sync relies on it; otherwise the writer does.
        let next: FileDescriptor
        let nextCopy: FileDescriptor
        do throws(JournalError) {
            next = try createJournal(
                previousGeneration + 1, previousLength: journalBytes, syncsFile: false,
                syncsDirectory: configuration.fsync == .always)
            do {
                nextCopy = try next.duplicate()
            } catch {
                try? next.close()
                throw JournalError.io("cannot duplicate the descriptor of \(journalPath(previousGeneration + 1))", error)
            }
        } catch {
            try? descriptors.directory.close()
            try? descriptors.journal.close()
            // Not after a simulated crash: that leaves the files as they are.
            if failure == nil { directory.remove(JournalFormat.journalFileName(previousGeneration + 1), logger: logger) }
            throw error
        }
        earlierJournals.append(EarlierJournal(generation: previousGeneration, bytes: journalBytes))
        closeJournal()
        journal = next
        generation = previousGeneration + 1
        journalBytes = JournalFormat.journalHeaderSize
        hasUnsyncedData = false  // the header alone protects nothing; what follows it is synced by the policy

        let job = SnapshotJob(
            directory: directory.path, directoryDescriptor: descriptors.directory, generation: generation,
            payload: payload, previousJournal: descriptors.journal, previousJournalPath: previousPath,
            nextJournal: nextCopy, nextJournalPath: journalPath(generation),
            replacedJournals: earlierJournals.map(\.generation), syncsDirectoryFirst: configuration.fsync != .always,
            logger: logger, simulatedCrash: simulatedCrash, pause: writer?.pause)
        compactingGeneration = generation
        if let writer {
            writer.start(job)
        } else {
            inlineOutcome = job.run()
        }
    }

    /// Whether a compaction started and its outcome has not been collected.
    package var isCompacting: Bool { compactingGeneration != nil }

    /// Collects the outcome of the compaction that ran, once it ended: `nil` while it runs or when none ran, the time
    /// its writes and syncs took when it succeeded. The journals it replaced are deleted then.
    ///
    /// - Throws: ``JournalError`` `.io` when the snapshot could not be written (the store goes on with its journals,
    ///   read in order by the next load; a later compaction tries again); `.unusable` when the store cannot go on (a
    ///   sync failed, or the new snapshot took effect and the directory could not be synced: the next start loads it).
    @discardableResult
    package func finishSnapshot() throws(JournalError) -> Duration? {
        guard compactingGeneration != nil, let outcome = writer?.takeOutcome() ?? inlineOutcome else { return nil }
        compactingGeneration = nil
        inlineOutcome = nil
        if let error = outcome.error {
            if error.code != .io || outcome.tookEffect {
                if failure == nil { failure = JournalError(.unusable, error.message) }
                throw failure!
            }
            throw error
        }
        earlierJournals.removeAll()
        snapshotBytes = outcome.snapshotBytes
        compactions += 1
        logger.debug(
            "journal: compacted",
            metadata: [
                "generation": "\(outcome.generation)", "snapshot_bytes": "\(snapshotBytes)",
                "duration": "\(outcome.duration)",
            ])
        return outcome.duration
    }
}

/// A journal before the live one that the state still needs: a compaction switched appends away from it, and the
/// snapshot that replaces it is not durable yet (or failed, or a crash came first).
struct EarlierJournal: Sendable, Equatable {
    let generation: UInt64
    /// Its length when appends left it.
    let bytes: Int
}
