internal import Logging

extension DaemonServer {
    /// Opens the state directory and replays what it holds into `core`.
    ///
    /// A journal damaged before its tail (or holding a record that contradicts the ones before it) stops the start
    /// with one log line naming the file and offset, unless the configuration says ``JournalDamagePolicy/truncate``:
    /// then the state is rebuilt from the records before the damage (`fresh` makes the core to replay them into) and
    /// takes `newDaemonID`, so that clients resync.
    func recoverState(
        into core: inout DaemonCore, fresh: () -> DaemonCore, newDaemonID: String, from settings: JournalConfiguration,
        clock: ContinuousClock
    ) throws -> (JournalStore, RecoveryReport, seconds: Double) {
        let started = clock.now
        let store = try JournalStore(
            configuration: settings, logger: logger, syncer: JournalSyncer(), writer: SnapshotWriter())
        var contents: JournalContents
        var damage: JournalDamage?
        var report: RecoveryReport
        do {
            while true {
                contents = try store.load(splittingSnapshot: true)
                damage = damage ?? contents.damage
                let snapshot = contents.snapshotRecords
                contents.snapshotRecords = []  // held by `snapshot` and `records` only
                let records = snapshot + contents.records
                setRecoveryProgress(RecoveryProgress(replayed: 0, total: records.count))
                defer { setRecoveryProgress(nil) }
                do {
                    report = try core.recover(from: records) { replayed in
                        self.setRecoveryProgress(RecoveryProgress(replayed: replayed, total: records.count))
                    }
                    break
                } catch {
                    let located = locate(error, contents: contents, snapshotRecords: snapshot, store: store)
                    guard settings.damage == .truncate, error.code != .newerRecord, error.code != .missingAppVersion,
                        let index = error.record,
                        index >= snapshot.count
                    else { throw located }
                    damage = try store.cutDamagedJournal(
                        atRecord: index - snapshot.count, of: contents, because: located.description)
                    core = fresh()
                }
            }
        } catch {
            let journalError = error as? JournalError
            let recoveryError = error as? RecoveryError
            var metadata: Logger.Metadata = [
                "file": "\(journalError?.file ?? recoveryError?.file ?? settings.directory)",
                "code": "\(journalError.map { "\($0.code)" } ?? recoveryError.map { "\($0.code)" } ?? "io")",
                "error": "\(error)",
                "hint": "\(Self.hint(journalError, recoveryError, snapshotPath: store.snapshotPath))",
            ]
            if let offset = journalError?.offset ?? recoveryError?.offset { metadata["offset"] = "\(offset)" }
            // A file that cannot be opened or read (its owner, mode or type) is not damage: said apart.
            let unreadable = journalError?.code == .io
            logger.critical(
                unreadable
                    ? "flowd cannot start: its state directory cannot be read"
                    : "flowd cannot start: its state directory cannot be trusted",
                metadata: metadata)
            throw error
        }
        if damage != nil { core.changeDaemonID(to: newDaemonID) }
        let elapsed = started.duration(to: clock.now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        logger.notice(
            report.records == 0 ? "state is new" : "state recovered",
            metadata: [
                "directory": "\(settings.directory)", "records": "\(report.records)", "sessions": "\(report.sessions)",
                "sessions_pending": "\(report.pendingSessions)",
                "snapshot_bytes": "\(store.snapshotBytes)", "journal_bytes": "\(store.journalBytes)",
                "discarded_bytes": "\(contents.discardedBytes)", "seconds": "\(seconds)", "daemon": "\(core.daemonID)",
            ]
        )
        if let damage {
            logger.warning(
                "started from the records before the journal's damage, with a new daemon ID (--journal-damage truncate)",
                metadata: [
                    "file": "\(damage.file)", "offset": "\(damage.offset)", "discarded_bytes": "\(damage.discardedBytes)",
                    "kept_as": "\(damage.keptAs)", "daemon": "\(core.daemonID)",
                ]
            )
        }
        return (store, report, seconds)
    }

    /// What the operator of a start stopped by `journalError` or `recoveryError` can do about it.
    private static func hint(
        _ journalError: JournalError?, _ recoveryError: RecoveryError?, snapshotPath: String
    ) -> String {
        let doc = "(docs/RELIABILITY.md, \"Torn tail or damage\")"
        let cuttable: Bool
        switch (journalError?.code, recoveryError?.code) {
        case (.io?, _):
            return "the files are left as they are; flowd's user must be able to read and write the state directory "
                + "and every file in it: check their owner, mode and type "
                + "(docs/RELIABILITY.md, \"Files and crash safety\")"
        case (.damaged?, _): cuttable = true
        case (_, .newerRecord?): return "the files are left as they are; a newer flowd wrote them: run it \(doc)"
        case (_, .missingAppVersion?):
            return "the files are left as they are; put the version's file back in the state directory's apps/ "
                + "(docs/RELIABILITY.md, \"Application versions\")"
        case (_, _?): cuttable = recoveryError?.file != snapshotPath
        default: cuttable = false
        }
        guard cuttable else { return "the files are left as they are \(doc)" }
        return "the files are left as they are; to start from what precedes the damage (with a new daemon ID, the "
            + "journal kept aside), start once with --journal-damage truncate \(doc)"
    }

    /// `error` naming the file and offset of its record: the snapshot's payload, or the live journal's frame.
    private func locate(
        _ error: RecoveryError, contents: JournalContents, snapshotRecords: [[UInt8]], store: JournalStore
    ) -> RecoveryError {
        guard let index = error.record else { return error }
        if index < snapshotRecords.count {
            return error.located(
                file: store.snapshotPath,
                offset: JournalFormat.snapshotHeaderSize + JournalSnapshot.offset(ofRecord: index, in: snapshotRecords))
        }
        let offsets = contents.recordOffsets
        let position = index - snapshotRecords.count
        guard position < offsets.count else { return error.located(file: contents.journalPath, offset: nil) }
        return error.located(
            file: contents.journalPaths[contents.journal(ofRecord: position)], offset: offsets[position])
    }
}

// MARK: - Application versions

extension DaemonServer {
    /// `input`, once a new version it brings is kept in the state directory (before any record names it); a version
    /// that cannot be kept is refused instead.
    func keepingAppVersion(_ input: DaemonInput) -> DaemonInput {
        guard case .appVersionRead(let version) = input, let settings = journalConfiguration else { return input }
        do {
            try AppVersionStore(stateDirectory: settings.directory).keep(version)
            return input
        } catch {
            let problem = "\(version.id): cannot be kept in the state directory, so no session may use it: \(error)"
            return .appReloadRefused(AppVersionError([problem]))
        }
    }

    /// The version `id` as the state directory keeps it, for ``DaemonCore/storedAppVersion``.
    func storedAppVersion(_ id: String) throws(AppVersionError) -> AppVersion? {
        guard let source = appFileSource, let settings = journalConfiguration else { return nil }
        let store = AppVersionStore(stateDirectory: settings.directory)
        let text: [UInt8]?
        do {
            text = try store.text(of: id)
        } catch {
            throw AppVersionError(["\(store.filePath(id)): \(error)"])
        }
        return try text.map { text throws(AppVersionError) in try source.version(of: text, file: store.filePath(id)) }
    }
}
