internal import FlowCore
internal import FlowWire
internal import Logging

// The journal log: records taken by the transport, the snapshot's history, recovery by replay.
extension DaemonCore {
    /// Takes the journal records made since the last call, in order: the transport writes them (and syncs them, by
    /// its policy) before it sends anything this core output in the meantime.
    package mutating func takeJournal() -> [[UInt8]] {
        log.take()
    }

    /// Every record the state still needs, in order: what a snapshot holds (the journal after it starts empty). A
    /// session saved as data by ``compactJournal()`` is one `state` record and what followed it; a session that could
    /// not be is its history. Ended sessions have none.
    package var journalHistory: [[UInt8]] { (try? JournalSnapshot.records(in: journalSnapshotPayload)) ?? [] }

    /// ``journalHistory`` as a snapshot's payload, ready to write.
    package var journalSnapshotPayload: [UInt8] {
        let windowsNeeded = log.droppedStepRecords && !stepResults.isEmpty
        return log.payload(
            sortedIDs: sessions.ids,
            trailer: windowsNeeded ? JournalRecord(session: "", kind: .stepWindows(stepResults)).encoded : nil)
    }

    /// How many records ``journalHistory`` holds, but for the STEP windows' record.
    package var journalRecordCount: Int { log.count }

    /// Rebuilds the state from journal records (a snapshot's, then the journal's), before ``start(now:)``.
    ///
    /// Every session comes back exactly as the records left it: the same tree, UI, sequence numbers and outbox.
    /// Nothing is sent and no event is published while replaying; presenters resync and steppers are attached again
    /// as they reconnect. Presentables count as not visible afterwards (no presenter is connected yet). Counters start
    /// from zero.
    ///
    /// - Throws: ``RecoveryError`` when a record cannot be read (`unreadableRecord`, `newerRecord`) or contradicts the
    ///   records before it (`damagedRecord`: a second `session` record for a live session, a second `daemon` record
    ///   that does not replace the first): flowd does not start from a state it cannot trust.
    /// - Parameter progress: called with the records replayed so far, every 4096 records.
    package mutating func recover(
        from records: [[UInt8]], progress: ((Int) -> Void)? = nil
    ) throws(RecoveryError) -> RecoveryReport {
        replaying = true
        let publishes = publishesEvents
        publishesEvents = false
        defer {  // on a throw; the way out below restores them before the work that follows replay
            replaying = false
            publishesEvents = publishes
        }
        var report = RecoveryReport()
        var restorable: [String?: Bool] = [:]  // by application version: whether it restores flows
        var wholeNumbered: Set<String> = []  // sessions whose records an older flowd numbered (``AttachmentNumbering``)
        for (index, bytes) in records.enumerated() {
            if index & 4095 == 4095 { progress?(index + 1) }
            if let header = StateRecordHeader(bytes) {
                try keepSaved(header, bytes: bytes, record: index, of: records.count, restorable: &restorable)
                if header.numbering == .wholeComposites { wholeNumbered.insert(header.session) }
                report.restoredSessions += 1
                report.records += 1
                continue
            }
            let record: JournalRecord
            do throws(JournalRecord.DecodingFailure) {
                record = try log.decode(bytes)
            } catch {
                let newer: Bool
                if case .newerVersion = error { newer = true } else { newer = false }
                throw RecoveryError(
                    newer ? .newerRecord : .unreadableRecord,
                    "journal record \(index + 1) of \(records.count) cannot be read: \(error)", record: index)
            }
            if let contradiction = contradiction(record, daemonIDRecovered: report.recoveredDaemonID) {
                throw RecoveryError(
                    .damagedRecord, "journal record \(index + 1) of \(records.count): \(contradiction)", record: index)
            }
            switch record.kind {
            case .sessionCreated(let app?, _), .state(_, let app?, _, _):
                try holdRecoveredVersion(app, session: record.session, record: index, of: records.count)
            default:
                break
            }
            if case .daemon = record.kind {
                report.recoveredDaemonID = true
            } else if record.startsSession || record.isGlobal {
                if case .state = record.kind { report.restoredSessions += 1 }
            } else if !sessions.contains(record.session) {
                report.skipped += 1
                logger.error(
                    "journal record for an unknown session skipped", metadata: ["session": "\(record.session)"]
                )
                continue
            }
            if let pending = sessions[pending: record.session], pending.savedState != nil,
                record.kind != .sessionEnded, record.kind != .compositeLeaves
            {
                do throws(RecoveryError) {
                    _ = try make(pending)  // a record after its state changes it: made now, as eager recovery does
                } catch {
                    throw RecoveryError(
                        error.code, "journal record \(index + 1) of \(records.count): \(error.message)", record: index)
                }
            }
            do throws(RestorationError) {
                try recover(record, bytes: bytes)
            } catch {
                throw RecoveryError(
                    .unrestorable, "journal record \(index + 1) of \(records.count): session '\(record.session)' "
                        + "cannot be restored: \(error)", record: index)
            }
            report.records += 1
            switch record.kind {
            case .sessionCreated(_, .wholeComposites), .state(_, _, .wholeComposites, _):
                wholeNumbered.insert(record.session)
            case .compositeLeaves, .sessionEnded:
                wholeNumbered.remove(record.session)
            default:
                break
            }
            if wholeNumbered.contains(record.session), let session = sessions[made: record.session],
                session.machine.compositesAttached > 0
            {
                wholeNumbered.remove(record.session)
                refuseRenumbered(session, record: index, of: records.count)
            }
        }
        _ = takeOutputs()  // nothing of the replay goes out: no peer is connected, no stepper listened to yet
        replaying = false
        publishesEvents = publishes
        counters = DaemonCounters()
        if apps.current != nil { counters.countAppReloads() }
        if accessPolicy != nil {
            counters.authDenied = 0
            counters.peersRevoked = 0
        }
        report.sessions = sessions.count
        report.pendingSessions = sessions.pendingCount
        recoveredRecords = report.records
        for session in sortedSessions() { resumeRecovered(session) }
        return report
    }

    /// What a recovered session asks once recovery is over: its in-daemon steppers listened to again, its pending
    /// adaptations asked again; what was visible counts as not visible (no presenter is connected yet).
    mutating func resumeRecovered(_ session: Session) {
        for id in session.localAttachments.sorted() {
            guard let attachment = session.machine.attachment(id) else { continue }
            outputs.append(.resumeLocal(session: session.id, attachment: attachment))
        }
        for id in session.pendingAdapts.keys.sorted() {
            let request = session.pendingAdapts[id]!
            if let kind = request.operation.stepperKind {
                ask(request, kind: kind, in: session)
            } else {
                outputs.append(.runAdapt(session: session.id, request: request))
            }
        }
        let visible = session.machine.visiblePresentables
        if !visible.isEmpty {
            change(JournalRecord(session: session.id, kind: .input(.presentablesLost(visible), origin: nil)))
        }
    }

    /// Replays one record: a saved state is made again, the others are applied as they were live.
    private mutating func recover(_ record: JournalRecord, bytes: [UInt8]) throws(RestorationError) {
        switch record.kind {
        case .state(let state, let app, let numbering, let usage):
            insertLive(
                try restoredSession(
                    record.session, state: state, app: app, numbering: numbering, usage: usage, now: currentTime))
        case .stepWindows(let windows):
            stepResults = windows
            return  // not kept: every snapshot writes the live windows anew
        case .sessionCreated(let app, let numbering):
            keepPending(record.session, app: app, numbering: numbering)  // made on first use or after start
        case .compositeLeaves:
            if let session = sessions[made: record.session] {
                session.numbering = .compositeLeaves
            } else if var pending = sessions[pending: record.session] {
                pending.numbering = .compositeLeaves
                sessions.update(pending: pending)
            }
        default:
            change(record)
        }
        log.keep(bytes, of: record)
        if record.startsSession,
            sessions[made: record.session]?.appVersionUnrecorded ?? sessions[pending: record.session]?.appVersionUnrecorded
                ?? false
        {
            log.markChanged(record.session)  // saved at the next compaction, naming its version
        }
    }

    /// Keeps a `state` record as a pending session, its state unread: what is checked before the daemon is ready is
    /// its header, that it is the session's first record, that its application version is loaded and restores flows
    /// (docs/RELIABILITY.md, "Pending sessions").
    private mutating func keepSaved(
        _ header: StateRecordHeader, bytes: [UInt8], record index: Int, of count: Int,
        restorable: inout [String?: Bool]
    ) throws(RecoveryError) {
        let position = "journal record \(index + 1) of \(count)"
        guard !sessions.contains(header.session) else {
            throw RecoveryError(
                .damagedRecord, "\(position): a second session record for session \(header.session)", record: index)
        }
        if let app = header.app { try holdRecoveredVersion(app, session: header.session, record: index, of: count) }
        let version = header.app.flatMap { apps[$0] } ?? apps.current
        if restorable[version?.id] == nil {
            restorable[version?.id] = (version?.application ?? application).restoration(session: header.session) != nil
        }
        guard restorable[version?.id] == true else {
            throw RecoveryError(
                .unrestorable, "\(position): session '\(header.session)' cannot be restored: "
                    + "\(RestorationError(.notRestorable, "the application restores no flows"))", record: index)
        }
        keepPending(
            header.session, app: header.app, savedState: bytes, numbering: header.numbering, usage: header.usage)
        log.replace(header.session, with: bytes)
        if sessions[pending: header.session]?.appVersionUnrecorded == true {
            log.markChanged(header.session)  // saved at the next compaction, naming its version
        }
    }

    /// A session made again from its saved state, not added to the sessions yet; `usage`, the record's, stands for
    /// its UI's figures while the UI is still its saved bytes.
    func restoredSession(
        _ id: String, state: SessionState, app: String?, numbering: AttachmentNumbering, usage: SessionUsage? = nil,
        now: UInt64
    ) throws(RestorationError) -> Session {
        let version = app.flatMap { apps[$0] } ?? apps.current
        let application = version?.application ?? self.application
        guard let restoration = application.restoration(session: id) else {
            throw RestorationError(.notRestorable, "the application restores no flows")
        }
        let session = try Session(
            id: id, application: application, appVersion: version?.id, outbox: configuration.outboxBounds,
            holdings: holdings, now: now, restoring: state, with: restoration)
        session.appVersionUnrecorded = app == nil && version != nil
        session.numbering = numbering
        session.unreadUISize = usage.map { (screens: $0.screens, bytes: $0.uiBytes) }
        return session
    }

    /// Refuses a session that older records started when replay attaches a `CompositeStepper` in it: that flowd gave
    /// the composite one attachment where this one gives each stepper inside it one, so the `step` records after it
    /// would reach other attachments. Made unrestorable, as a saved state that does not restore is: its records kept
    /// (and in every snapshot), nothing of it served, until an operator ends it (docs/RELIABILITY.md, "Replay").
    private mutating func refuseRenumbered(_ session: Session, record index: Int, of count: Int) {
        let reason = "journal record \(index + 1) of \(count) attaches a CompositeStepper, which the older flowd that "
            + "journaled this session (before record format 5) numbered as one attachment and this flowd numbers "
            + "stepper by stepper: replayed here, its later steps could reach other attachments"
        for attachment in session.remoteAttachments.keys { _ = session.removeRemote(attachment) }
        remoteAdapts.removeSession(session.id)
        sessions.markUnrestorable(made: session, reason: reason)
        logger.error(
            Logger.Message(
                stringLiteral: "session's records number a composite's steppers the older way: kept, refused with "
                    + "sessionUnrestorable until ended"),
            metadata: ["session": "\(session.id)", "error": "\(reason)"])
    }

    /// Why `record` cannot follow the records replayed so far, `nil` when it can. A journal flowd wrote never has
    /// one: each session is created once, and the daemon ID is only ever replaced by a record naming it
    /// (``changeDaemonID(to:)``).
    private func contradiction(_ record: JournalRecord, daemonIDRecovered: Bool) -> String? {
        switch record.kind {
        case .daemon(let id, let replacing):
            if daemonIDRecovered, replacing != daemonID {
                return "a second daemon record (\(id)) that does not replace the daemon ID \(daemonID)"
            }
            if !daemonIDRecovered, let replacing {
                return "a daemon record (\(id)) replacing \(replacing) before any daemon ID"
            }
            return nil
        case .sessionCreated, .state:
            return sessions.contains(record.session) ? "a second session record for session \(record.session)" : nil
        default:
            return nil
        }
    }

    /// Gives a recovered state a new daemon ID, journaled as replacing the old one: clients that see it in `WELCOME`
    /// resync (a presenter takes a snapshot; a stepper's pending STEPs are reported not delivered). For a state that
    /// lost records (``JournalDamagePolicy/truncate``). A new state (nothing recovered) just takes `id`.
    package mutating func changeDaemonID(to id: String) {
        guard !log.isEmpty else {
            daemonID = id
            return
        }
        change(.daemon(id, replacing: daemonID))
    }

    /// Whether a request of `type` may change a session (and so be journaled): refused while the journal cannot be
    /// written. Reads, heartbeats, ACKs and BYE are served.
    static func changesState(_ type: MessageType) -> Bool {
        switch type {
        case .step, .adapted, .sync, .report, .userAction, .deepLink, .createSession, .endSession: true
        default: false
        }
    }

    /// Journals a change of `session` (looked up by the record's ID when not given).
    mutating func journal(_ record: JournalRecord, of session: Session? = nil) {
        guard !replaying else { return }
        let changed = session ?? sessions[made: record.session]
        if let changed, changed.numbering == .wholeComposites, record.kind != .sessionEnded {
            // Its records so far number a composite the older way, the ones from here on this flowd's way.
            log.append(JournalRecord(session: changed.id, kind: .compositeLeaves))
            changed.numbering = .compositeLeaves
        }
        log.append(record)
        guard let changed else { return }
        changed.lastActive = currentTime  // a change is activity (idle expiry)
        changed.unchangedSinceCreation = false
    }

    /// Applies one state change, journaling it: the only way sessions change, live and in recovery alike.
    /// A caller that holds the record's session already passes it as `known`: no second lookup by its ID.
    @discardableResult
    mutating func change(_ record: JournalRecord, in known: Session? = nil) -> [CoordinatorAction] {
        switch record.kind {
        case .daemon(let id, _):
            daemonID = id
            journal(record)
            return []
        case .sessionCreated(let app, _):
            journal(record)
            createSessionNow(record.session, app: app)
            return []
        case .sessionEnded:
            guard sessions.contains(record.session) else { return [] }
            journal(record)
            endSessionNow(record.session)
            return []
        case .input(let input, let origin):
            guard let session = known ?? self.session(record.session) else { return [] }
            if case .stepperEmitted(let attachment, _) = input, origin != nil {
                // A stepper process took a step for it: a later ATTACH of it is `resumed` (§5.1).
                session.markStepped(attachment)
            }
            let actions = session.machine.handle(input)
            if case .stepperEmitted(let attachment, _) = input, let origin {
                stepResults.remember(Self.verdict(actions, attachment: attachment), for: origin)
            }
            if case .adaptCompleted(let request, _) = input {
                session.pendingAdapts[request] = nil
                remoteAdapts.remove(RemoteAdapts.Key(session: session.id, request: request))
            }
            // A stepper process's STEP is journaled even when it changed nothing: its verdict answers it if it is
            // sent again after a restart, as the running daemon would.
            if origin != nil || !Self.changedNothing(input, actions) { journal(record, of: session) }
            apply(actions, in: session)
            return actions
        case .report(let entry):
            guard let session = self.session(record.session) else { return [] }
            journal(record)
            applyReport(entry, in: session)
            return []
        case .state, .stepWindows, .compositeLeaves:
            return []  // read by recovery only: a snapshot's records, or written by ``journal(_:of:)`` itself
        case .snapshotAdopted:
            guard let session = self.session(record.session) else { return [] }
            journal(record)
            session.snapshotAdopted()
            return []
        }
    }

    /// Whether the tree handled `input` without changing: a step dropped before any flow saw it (so no flow's
    /// `adapt` ran). Such inputs are not journaled, unless a STEP's verdict must be remembered.
    static func changedNothing(_ input: CoordinatorInput, _ actions: [CoordinatorAction]) -> Bool {
        guard actions.count == 1, case .stepDropped(let drop) = actions[0] else { return false }
        switch input {
        case .stepperEmitted, .deepLink:
            return [.attachmentEnded, .noneStep, .notVisible, .noRootFlow].contains(drop.reason)
        case .visibilityChanged, .dismissed, .presentablesLost, .adaptCompleted:
            return false
        }
    }

    /// What became of a STEP: dropped when the tree's first action drops it, accepted otherwise.
    static func verdict(_ actions: [CoordinatorAction], attachment: AttachmentID) -> StepVerdict {
        if case .stepDropped(let drop)? = actions.first, drop.attachment == attachment {
            return StepVerdict(accepted: false, reason: drop.reason.rawValue)
        }
        return StepVerdict(accepted: true)
    }
}
