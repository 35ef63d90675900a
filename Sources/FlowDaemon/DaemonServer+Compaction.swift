internal import Logging

extension DaemonServer {
    /// Collects the outcome of the compaction that runs, once it ended; then starts the next one when the journal
    /// needs it and `schedule` allows, or goes on with the one under way (docs/RELIABILITY.md, "Snapshots and
    /// compaction").
    ///
    /// - Throws: ``JournalError`` `.unusable` when a compaction failed in a way the store cannot go on from.
    func compactIfDue(
        _ journal: JournalStore, _ schedule: inout CompactionSchedule, core: inout DaemonCore, clock: ContinuousClock,
        now: UInt64
    ) throws(JournalError) {
        if schedule.running != nil { try finishCompaction(journal, &schedule, core: core, now: now) }
        guard schedule.running == nil else { return }
        if schedule.preparing == nil {
            guard
                schedule.startsCompaction(
                    needsCompaction: journal.needsCompaction, recordsPending: journal.hasPendingRecords, now: now)
            else { return }
            schedule.start(core.prepareCompaction())
        }
        try prepareCompaction(journal, &schedule, core: &core, clock: clock, now: now)
    }

    /// Saves the next changed sessions as data, up to ``DaemonCore/hibernatedBytesPerTick`` of `state` records a
    /// turn as hibernation does (``DaemonCore/continueCompaction(_:bytes:)``); once every one is saved and the
    /// transport wrote every record taken, takes the snapshot's payload and switches the journal to the next
    /// generation (``JournalStore/startSnapshot(_:)``), and the writer writes the snapshot. When the switch fails (a
    /// full disk), the journal goes on as it was and compaction is tried again in a minute.
    private func prepareCompaction(
        _ journal: JournalStore, _ schedule: inout CompactionSchedule, core: inout DaemonCore, clock: ContinuousClock,
        now: UInt64
    ) throws(JournalError) {
        guard var preparation = schedule.preparing?.preparation else { return }
        let started = clock.now
        defer {
            let turn = started.duration(to: clock.now)
            journal.longestCompactionStall = max(journal.longestCompactionStall, turn)
        }
        _ = core.continueCompaction(&preparation, bytes: core.hibernatedBytesPerTick)
        guard
            let preparing = schedule.sliceSaved(
                preparation, took: started.duration(to: clock.now), recordsPending: journal.hasPendingRecords)
        else { return }
        let switchStarted = clock.now
        let before = journal.journalBytes
        do throws(JournalError) {
            try journal.startSnapshot(core.journalSnapshotPayload)
        } catch {
            try putOff(&schedule, after: error, "a compaction could not start", now: now)
            return
        }
        schedule.switched(
            CompactionSchedule.Running(
                records: core.journalRecordCount, journalBytesBefore: before,
                compaction: preparing.preparation.compaction,
                ioThreadDuration: preparing.ioThreadDuration + switchStarted.duration(to: clock.now),
                turns: preparing.turns, liveAppVersions: core.liveAppVersions, appReloads: core.counters.appReloads))
    }

    /// Once the writer ended: logs the compaction, and deletes the application versions no record needs any more.
    /// A snapshot that could not be written leaves the journals as they are; compaction is tried again in a minute.
    private func finishCompaction(
        _ journal: JournalStore, _ schedule: inout CompactionSchedule, core: DaemonCore, now: UInt64
    ) throws(JournalError) {
        let writerDuration: Duration
        do throws(JournalError) {
            guard let duration = try journal.finishSnapshot() else { return }
            writerDuration = duration
        } catch {
            try putOff(&schedule, after: error, "a snapshot could not be written", now: now)
            return
        }
        guard let running = schedule.written(now: now) else { return }
        // Records since the switch may name a version that was live then, or one read since (then the next
        // compaction deletes what is unused).
        if appFileSource != nil, core.counters.appReloads == running.appReloads {
            AppVersionStore(stateDirectory: journal.configuration.directory)
                .removeAll(except: running.liveAppVersions.union(core.liveAppVersions), logger: logger)
        }
        logger.info(
            "journal compacted into a snapshot",
            metadata: [
                "records": "\(running.records)", "snapshot_bytes": "\(journal.snapshotBytes)",
                "sessions_saved": "\(running.compaction.saved)",
                "sessions_unchanged": "\(running.compaction.unchanged)",
                "sessions_kept_as_history": "\(running.compaction.keptAsHistory)",
                "journal_bytes_before": "\(running.journalBytesBefore)",
                "io_thread_duration": "\(running.ioThreadDuration)", "io_thread_turns": "\(running.turns)",
                "writer_duration": "\(writerDuration)",
            ]
        )
    }

    /// After a compaction's step failed: an I/O error (a full disk) is logged and the next try put off by a minute,
    /// the journal going on as it is; any other error is thrown.
    private func putOff(
        _ schedule: inout CompactionSchedule, after error: JournalError, _ failure: String, now: UInt64
    ) throws(JournalError) {
        guard error.code == .io else { throw error }
        logger.error(
            "journal: \(failure); the journal goes on, compaction is tried again in a minute",
            metadata: ["error": "\(error)"])
        schedule.putOff(now: now)
    }
}
