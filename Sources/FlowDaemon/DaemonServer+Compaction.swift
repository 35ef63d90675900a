internal import Logging

/// When the I/O thread compacts the journal next, and what it noted when the compaction that runs started.
///
/// Not `Sendable`: a value of the I/O thread's loop.
struct CompactionSchedule {
    /// The earliest time (in the loop's clock) the next compaction may start.
    var next: UInt64 = 0
    /// The compaction whose snapshot the writer is writing, if one is.
    var running: Running?

    struct Running {
        let records: Int
        let journalBytesBefore: Int
        let compaction: JournalCompaction
        /// The I/O thread's part: saving the changed sessions, taking the payload, switching journals.
        let ioThreadDuration: Duration
        /// The application versions live when it started, and the reloads counted then.
        let liveAppVersions: Set<String>
        let appReloads: Int?
    }
}

@available(*, unavailable, message: "a value of the I/O thread's loop")
extension CompactionSchedule: Sendable {}

extension DaemonServer {
    /// Collects the outcome of the compaction that runs, once it ended; then starts the next one when the journal
    /// needs it and `schedule` allows (docs/RELIABILITY.md, "Snapshots and compaction").
    ///
    /// - Throws: ``JournalError`` `.unusable` when a compaction failed in a way the store cannot go on from.
    func compactIfDue(
        _ journal: JournalStore, _ schedule: inout CompactionSchedule, core: inout DaemonCore, clock: ContinuousClock,
        now: UInt64
    ) throws(JournalError) {
        if schedule.running != nil { try finishCompaction(journal, &schedule, core: core, now: now) }
        guard schedule.running == nil, journal.needsCompaction, !journal.hasPendingRecords, now >= schedule.next
        else { return }
        try startCompaction(journal, &schedule, core: &core, clock: clock, now: now)
    }

    /// Saves the sessions as data (``DaemonCore/compactJournal()``), takes the snapshot's payload and switches the
    /// journal to the next generation (``JournalStore/startSnapshot(_:)``); the writer writes the snapshot. When the
    /// switch fails (a full disk), the journal goes on as it was and compaction is tried again in a minute.
    private func startCompaction(
        _ journal: JournalStore, _ schedule: inout CompactionSchedule, core: inout DaemonCore, clock: ContinuousClock,
        now: UInt64
    ) throws(JournalError) {
        let started = clock.now
        let before = journal.journalBytes
        let compaction = core.compactJournal()
        do throws(JournalError) {
            try journal.startSnapshot(core.journalSnapshotPayload)
        } catch {
            try putOff(&schedule, after: error, "a compaction could not start", now: now)
            return
        }
        let stall = started.duration(to: clock.now)
        journal.longestCompactionStall = max(journal.longestCompactionStall, stall)
        schedule.running = CompactionSchedule.Running(
            records: core.journalRecordCount, journalBytesBefore: before, compaction: compaction,
            ioThreadDuration: stall, liveAppVersions: core.liveAppVersions, appReloads: core.counters.appReloads)
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
            schedule.running = nil
            try putOff(&schedule, after: error, "a snapshot could not be written", now: now)
            return
        }
        guard let running = schedule.running else { return }
        schedule.running = nil
        schedule.next = now
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
                "io_thread_duration": "\(running.ioThreadDuration)", "writer_duration": "\(writerDuration)",
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
        schedule.next = now + 60_000
    }
}
