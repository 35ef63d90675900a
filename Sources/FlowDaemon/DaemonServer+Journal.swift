internal import Logging

extension DaemonServer {
    /// Opens the state directory and replays what it holds into `core`.
    func recoverState(
        into core: inout DaemonCore, from settings: JournalConfiguration, clock: ContinuousClock
    ) throws -> (JournalStore, RecoveryReport, seconds: Double) {
        let started = clock.now
        let store = try JournalStore(configuration: settings, logger: logger)
        let contents = try store.load()
        var records =
            try contents.snapshot.map { snapshot throws(JournalError) in try JournalSnapshot.records(in: snapshot) } ?? []
        records += contents.records
        let report = try core.recover(from: records)
        let elapsed = started.duration(to: clock.now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        logger.info(
            report.records == 0 ? "state is new" : "state recovered",
            metadata: [
                "directory": "\(settings.directory)", "records": "\(report.records)", "sessions": "\(report.sessions)",
                "snapshot_bytes": "\(store.snapshotBytes)", "journal_bytes": "\(store.journalBytes)",
                "discarded_bytes": "\(contents.discardedBytes)", "seconds": "\(seconds)", "daemon": "\(core.daemonID)",
            ]
        )
        if contents.discardedBytes > 0 {
            logger.warning(
                "a torn or damaged journal tail was cut off (never acknowledged: a crash mid-write)",
                metadata: ["bytes": "\(contents.discardedBytes)"]
            )
        }
        return (store, report, seconds)
    }

    /// Writes a snapshot of everything the state needs and starts an empty journal.
    func compact(_ journal: JournalStore, core: DaemonCore, clock: ContinuousClock) throws {
        let started = clock.now
        let before = journal.journalBytes
        try journal.writeSnapshot(core.journalSnapshotPayload)
        logger.info(
            "journal compacted into a snapshot",
            metadata: [
                "records": "\(core.journalRecordCount)", "snapshot_bytes": "\(journal.snapshotBytes)",
                "journal_bytes_before": "\(before)",
                "duration": "\(started.duration(to: clock.now))",
            ]
        )
    }
}
