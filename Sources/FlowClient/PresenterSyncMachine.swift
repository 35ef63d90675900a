import FlowCore
import FlowWire
import Logging

/// A `REPORT` the presenter makes, with the dismissals in it: those count as unconfirmed, and are reported again after
/// the next `SYNC`, until the daemon answers it.
struct PresenterReport: Sendable, Hashable {
    let reports: [PresentableReport]
    let dismissed: [PresentableID]
}

/// What ``PresenterSyncMachine`` asks its shell to do, in order.
enum PresenterSyncAction: Sendable {
    /// Send this `ACK`.
    case ack(Ack)
    /// Send `SYNC` with this `last_seq`; feed what comes of it to ``PresenterSyncMachine/syncAnswered(_:at:)``,
    /// waiting at most `timeout`.
    case sync(lastSeq: UInt64, timeout: Duration)
    /// Send this `REPORT`; feed ``PresenterSyncMachine/confirmed(_:)`` when the daemon answers it (`OK` or `ERROR`),
    /// waiting at most `timeout` (`nil`: as long as it takes).
    case report(PresenterReport, timeout: Duration?)
    /// Hand this change to the app.
    case publish(PresenterChange)
    /// Stop the presenter: `run` throws this.
    case fail(any Error)
}

/// What came of a `SYNC`.
enum SyncAnswer: Sendable {
    /// The `OK`'s result (`seq` and `mode`).
    case ok(JSONValue)
    /// The daemon refused it (`sessionHosted`, `unknownSession`…).
    case refused(DaemonError)
    /// No answer within the timeout, on a connection that lives on.
    case timedOut
    /// Not sent (no welcomed connection), or its connection ended before the answer.
    case unanswered(any Error)
}

/// The presenter's side of synchronisation without I/O (`docs/PROTOCOL.md` §6): the model, the last applied command
/// sequence number, the `SYNC` in flight and what it announced (a snapshot, a replay), gaps, and the dismissals not yet
/// confirmed by the daemon. It takes inputs (a `WELCOME`, commands, a `SNAPSHOT`, a `HEARTBEAT` at an instant, a
/// `SYNC`'s answer, a `REPORT` confirmed, a person's operation, a lost connection) and returns
/// ``PresenterSyncAction``s; ``PresenterClient`` carries them out. Time comes in with the inputs that need it, so
/// tests drive it with instants of their own and never wait.
///
/// `Sendable`: a value type; the shell keeps it behind its mutex.
struct PresenterSyncMachine: Sendable {
    /// The timing the machine needs from ``FlowClientConfiguration``.
    struct Timing: Sendable {
        var livenessIntervals: Int
        var requestTimeout: Duration?
        /// The largest message the client's sockets take (`nil`: no bound), named when a `SNAPSHOT` does not come.
        var maxMessageSize: Int64?

        init(_ configuration: FlowClientConfiguration) {
            livenessIntervals = max(1, configuration.livenessIntervals)
            requestTimeout = configuration.requestTimeout
            maxMessageSize = configuration.socketOptions.maxMessageSize
        }
    }

    /// Where synchronisation stands.
    enum Phase: Sendable, Equatable {
        case idle
        /// A `SYNC` with `last_seq` `after` waits for its answer.
        case inFlight(after: UInt64)
        /// The `OK` to `SYNC` said `snapshot` at this instant; the `SNAPSHOT` has not come yet.
        case awaitingSnapshot(since: ContinuousClock.Instant)
        /// The `OK` to `SYNC` said `replay` up to `through` at this instant; those commands have not all come yet
        /// (a `HEARTBEAT` announcing them is no sign of loss until the liveness window has passed).
        case replaying(through: UInt64, since: ContinuousClock.Instant)

        var isIdle: Bool { self == .idle }
        var isAwaitingSnapshot: Bool { if case .awaitingSnapshot = self { true } else { false } }
        /// Whether a gap in the commands means some were lost: not while a `SYNC` is in flight or a snapshot (which
        /// covers them) is on its way.
        var detectsGaps: Bool {
            switch self {
            case .idle, .replaying: true
            case .inFlight, .awaitingSnapshot: false
            }
        }
        /// When the `SNAPSHOT` or the replay was announced, if one is on its way.
        var announcedAt: ContinuousClock.Instant? {
            switch self {
            case .awaitingSnapshot(let since), .replaying(_, let since): since
            case .idle, .inFlight: nil
            }
        }
    }

    let session: String
    let timing: Timing
    let logger: Logger
    /// The UI now.
    private(set) var model = PresentationModel()
    /// The last command sequence number applied (a snapshot's counts).
    private(set) var lastSeq: UInt64 = 0
    private(set) var phase = Phase.idle
    /// How long to wait for what the daemon owes: its liveness window, from the last `WELCOME`.
    private(set) var answerWindow: Duration = .seconds(3)
    /// Dismissals reported without an answer yet: reported again after a replay `SYNC`.
    private(set) var unconfirmedDismissals: [PresentableID] = []
    /// The `SNAPSHOT`s the daemon announced (an `OK` to `SYNC` saying `snapshot`) that did not come, in a row: the
    /// connection ended or the liveness window passed first. One larger than `maxMessageSize` never comes (libzmq
    /// drops the connection on it, and each `SYNC` brings it again); a full queue at the daemon drops one now and then.
    /// Back to 0 once a `SYNC` is carried through (its `SNAPSHOT` adopted, or a replay).
    private(set) var missedSnapshots = 0

    init(session: String, timing: Timing, logger: Logger) {
        self.session = session
        self.timing = timing
        self.logger = logger
    }

    /// How long to wait for the daemon's answer to a `SYNC` or `REPORT`: the liveness window, or the configured
    /// request timeout when that is shorter.
    var answerTimeout: Duration {
        guard let requestTimeout = timing.requestTimeout else { return answerWindow }
        return min(requestTimeout, answerWindow)
    }

    // MARK: - The connection

    /// A connection is welcomed: `SYNC` with the last applied sequence number (`0` after a daemon restart, whose
    /// sequence numbers are not the ones applied here).
    mutating func connected(_ welcome: Welcome, daemonChanged: Bool) -> [PresenterSyncAction] {
        phase = .idle
        answerWindow = .milliseconds(max(welcome.heartbeatMs, 1)) * timing.livenessIntervals
        if daemonChanged {
            lastSeq = 0
            unconfirmedDismissals.removeAll()
        }
        return synchronize()
    }

    /// The connection ended: nothing is in flight any more; the next `WELCOME` syncs.
    mutating func disconnected() {
        if phase.isAwaitingSnapshot { snapshotMissed("the connection ended first") }
        phase = .idle
    }

    /// The daemon ended the session (the notice `sessionEnded`, after its empty `SNAPSHOT`): this presenter hosts
    /// nothing now, and the app is told so (a change caused by `sessionEnded`). An ID created anew starts its `seq`
    /// again, so the next `SYNC` says `last_seq` 0, as `docs/PROTOCOL.md` §4 asks, rather than take a replay of the
    /// new session's commands for the ones it missed.
    mutating func sessionEnded() -> [PresenterSyncAction] {
        logger.notice("flowd ended the session", metadata: ["session": "\(session)", "last_seq": "\(lastSeq)"])
        lastSeq = 0
        phase = .idle
        unconfirmedDismissals.removeAll()
        return [change(.sessionEnded, reports: [])]
    }

    // MARK: - The daemon's messages

    /// Commands that arrived together: each applied exactly once, in `seq` order, as one batch, then acknowledged and
    /// reported; a gap makes it `SYNC`. Commands of other sessions are ignored.
    mutating func received(_ commands: [CommandMessage]) -> [PresenterSyncAction] {
        // A batch is usually all this session's, each command the next: then it is applied as it came, not copied.
        let commands =
            commands.allSatisfy { $0.session == session } ? commands : commands.filter { $0.session == session }
        // While a snapshot is on its way, it covers every command up to its seq and those after it follow it.
        guard !commands.isEmpty, !phase.isAwaitingSnapshot else { return [] }
        // The commands applied, once one of the batch was not; until then the batch itself.
        var partlyApplied: [CommandMessage]?
        var gap = false
        var duplicates = 0
        for (index, command) in commands.enumerated() {
            if command.seq == lastSeq + 1 {
                partlyApplied?.append(command)
                lastSeq = command.seq
                continue
            }
            if partlyApplied == nil { partlyApplied = Array(commands[..<index]) }
            if command.seq <= lastSeq {
                duplicates += 1
            } else {
                gap = true
            }
        }
        let applied = partlyApplied ?? commands
        if case .replaying(let through, _) = phase, lastSeq >= through { phase = .idle }
        if duplicates > 0 {
            logger.debug("ignoring commands applied already", metadata: ["count": "\(duplicates)"])
        }
        var actions: [PresenterSyncAction] = []
        actions.reserveCapacity(4)
        if applied.isEmpty {
            if duplicates > 0 { actions.append(.ack(Ack(session: session, seq: lastSeq))) }
        } else {
            let update = model.apply(applied.map(\.command))
            for rejection in update.rejected {
                logger.warning("command could not be carried out", metadata: ["command": "\(rejection)"])
            }
            actions.append(.ack(Ack(session: session, seq: lastSeq)))
            let reports = update.reports.compactMap(PresentableReport.init)
            actions += report(reports, timeout: answerTimeout)
            actions.append(change(.commands(applied), reports: reports, rejected: update.rejected))
        }
        if gap && phase.detectsGaps {
            logger.info("gap in the command stream; syncing", metadata: ["last_seq": "\(lastSeq)"])
            actions += synchronize()
        }
        return actions
    }

    /// A `SNAPSHOT`: replaces the whole UI, counts its `seq` as applied, and reports what is visible. An old one (below
    /// the last applied seq, none announced) or another session's is ignored.
    mutating func received(_ snapshot: SnapshotMessage) -> [PresenterSyncAction] {
        guard snapshot.session == session else { return [] }
        guard phase.isAwaitingSnapshot || snapshot.seq >= lastSeq else {
            logger.debug("ignoring an old SNAPSHOT", metadata: ["seq": "\(snapshot.seq)"])
            return []
        }
        let (newModel, inputs) = snapshot.ui.makeModel()
        model = newModel
        lastSeq = snapshot.seq
        phase = .idle
        missedSnapshots = 0
        unconfirmedDismissals.removeAll()
        let reports = inputs.compactMap(PresentableReport.init)
        return [.ack(Ack(session: session, seq: snapshot.seq))]
            + report(reports, timeout: answerTimeout)
            + [change(.snapshot(seq: snapshot.seq), reports: reports)]
    }

    /// A `HEARTBEAT` handled at `now`: `SYNC` when it announces a `seq` above the last applied one (not while a
    /// `SYNC` or what it announced is on its way), or when what a `SYNC` announced has not all come within the
    /// liveness window.
    mutating func received(_ heartbeat: Heartbeat, at now: ContinuousClock.Instant) -> [PresenterSyncAction] {
        if let since = phase.announcedAt, now - since >= answerWindow {
            // Sent right after the OK, on the same connection: some of it was dropped (the queue was full, or the
            // message was over this client's largest).
            if phase.isAwaitingSnapshot {
                snapshotMissed("not within \(answerWindow)")
            } else {
                logger.warning("what flowd announced for the SYNC did not all come; syncing again")
            }
            phase = .idle
            return synchronize()
        }
        let announced = heartbeat.sessions[session] ?? 0
        guard phase.isIdle, announced > lastSeq else { return [] }
        logger.info("flowd announces commands not received; syncing", metadata: ["seq": "\(announced)"])
        return synchronize()
    }

    /// What came of the `SYNC` in flight, at `now`: a replay re-reports every visible presentable (the daemon counts
    /// nothing visible after a `SYNC`) with the dismissals it may have missed; a snapshot is awaited.
    mutating func syncAnswered(_ answer: SyncAnswer, at now: ContinuousClock.Instant) -> [PresenterSyncAction] {
        guard case .inFlight(let after) = phase else {
            logger.debug("ignoring the answer to a SYNC no longer in flight")
            return []
        }
        let result: JSONValue
        switch answer {
        case .ok(let value):
            result = value
        case .refused(let error):
            phase = .idle
            logger.error("flowd refused SYNC", metadata: ["session": "\(session)", "error": "\(error)"])
            return [.fail(error)]
        case .timedOut:
            // The daemon answers a SYNC at once; no answer within its liveness window means it dropped it (this
            // client's queue was full) while the connection lives on. Until a SYNC is answered the daemon counts
            // nothing here visible, so ask again rather than wait for a gap.
            logger.warning("SYNC got no answer; syncing again", metadata: ["after": "\(answerTimeout)"])
            return synchronize()
        case .unanswered(let error):
            phase = .idle
            logger.info("SYNC got no answer; the next connection syncs", metadata: ["error": "\(error)"])
            return []
        }
        guard let synced = try? SyncResult(json: result) else {
            phase = .idle
            return [.fail(FlowClientError(.badReply, "the OK to SYNC has no 'seq' and 'mode': \(result)"))]
        }
        if synced.mode == .snapshot {
            phase = .awaitingSnapshot(since: now)
            return []
        }
        let through = synced.seq
        if through < after {
            // The daemon's stream is behind what was applied here: it is not the same stream. Start over.
            lastSeq = 0
            return synchronize()
        }
        phase = through > lastSeq ? .replaying(through: through, since: now) : .idle
        missedSnapshots = 0
        let missed = unconfirmedDismissals.filter { !model.contains($0) }
        let reports =
            missed.map { PresentableReport(presentable: $0.rawValue, state: .dismissed) }
            + model.visiblePresentables.map { PresentableReport(presentable: $0.rawValue, state: .visible) }
        return report(reports, timeout: answerTimeout)
    }

    /// The daemon answered `report` (`OK`, or an `ERROR`: either way it has it): its dismissals are confirmed.
    mutating func confirmed(_ report: PresenterReport) {
        guard !report.dismissed.isEmpty else { return }
        unconfirmedDismissals.removeAll { report.dismissed.contains($0) }
    }

    // MARK: - A person's operations

    /// Carries out a person's operation on the model and reports it; the model changes even when the daemon cannot be
    /// told now (a dismissal is reported again after the next `SYNC`).
    ///
    /// - Throws: ``FlowCore/PresentationError`` when the UI does not allow it (nothing changed then).
    mutating func perform(_ operation: PresenterUserOperation) throws(PresentationError) -> [PresenterSyncAction] {
        let inputs: [CoordinatorInput]
        switch operation {
        case .tapBack(let stack): inputs = try model.userTapsBack(in: stack)
        case .selectTab(let index, let tabs): inputs = try model.userSelectsTab(index, in: tabs)
        case .dismiss(let modal): inputs = try model.userDismisses(modal)
        }
        let reports = inputs.compactMap(PresentableReport.init)
        return report(reports, timeout: timing.requestTimeout) + [change(.userOperation(operation), reports: reports)]
    }

    // MARK: - Helpers

    /// Counts a `SNAPSHOT` announced that did not come, and says what can cause it: an error for the first of a row
    /// (what an app or flowctl shows by default), a warning for the next ones, as each `SYNC` brings the same one.
    private mutating func snapshotMissed(_ why: String) {
        missedSnapshots += 1
        let bound = timing.maxMessageSize.map { "\($0) bytes" } ?? "none"
        let message = Logger.Message(
            stringLiteral: "the SNAPSHOT flowd announced did not come (\(why)): one larger than this client's largest "
                + "message (maxMessageSize: \(bound)) never comes, as its connection drops it")
        let metadata: Logger.Metadata = ["session": "\(session)", "missed_in_a_row": "\(missedSnapshots)"]
        if missedSnapshots == 1 {
            logger.error(message, metadata: metadata)
        } else {
            logger.warning(message, metadata: metadata)
        }
    }

    private mutating func synchronize() -> [PresenterSyncAction] {
        phase = .inFlight(after: lastSeq)
        return [.sync(lastSeq: lastSeq, timeout: answerTimeout)]
    }

    /// A `REPORT` of `reports`, its dismissals counted unconfirmed until the daemon answers it.
    private mutating func report(_ reports: [PresentableReport], timeout: Duration?) -> [PresenterSyncAction] {
        guard !reports.isEmpty else { return [] }
        let dismissed = reports.filter { $0.state == .dismissed }.map { PresentableID($0.presentable) }
        for id in dismissed where !unconfirmedDismissals.contains(id) { unconfirmedDismissals.append(id) }
        return [.report(PresenterReport(reports: reports, dismissed: dismissed), timeout: timeout)]
    }

    private func change(
        _ cause: PresenterChange.Cause,
        reports: [PresentableReport],
        rejected: [PresentationUpdate.Rejection] = []
    ) -> PresenterSyncAction {
        .publish(PresenterChange(cause: cause, model: model, reports: reports, rejected: rejected, lastSeq: lastSeq))
    }
}
