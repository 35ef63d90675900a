public import FlowCore
public import FlowWire
import Logging
public import ServiceLifecycle
import Synchronization

/// A presenter process's side of the protocol: it hosts one session's UI as a ``FlowCore/PresentationModel``.
///
/// ```swift
/// let presenter = PresenterClient(name: "tui", session: "default")
/// try await withThrowingTaskGroup(of: Void.self) { group in
///     group.addTask { try await presenter.run() }
///     for await change in presenter.changes() { draw(change.model) }
/// }
/// ```
///
/// What it does, as `docs/PROTOCOL.md` §6 asks:
/// - after every `WELCOME`, `SYNC` with the last applied sequence number (`0` at first, and again `0` when the daemon
///   restarted); a `replay` is applied command by command, a `SNAPSHOT` replaces the model;
/// - applies a `COMMAND` only when its `seq` is the next one: a duplicate or an old one is ignored, a gap (or a
///   `HEARTBEAT` announcing a `seq` above the last applied) makes it `SYNC` again; commands that arrive together are
///   applied as one batch, then acknowledged (`ACK`) and reported (`REPORT`, the model's truthful reports);
/// - after every `SYNC` reports every visible presentable again (the daemon counts nothing visible after a `SYNC`),
///   with any dismissal the daemon may have missed while the connection was down;
/// - waits for what the daemon may have dropped (its queue for this client full) at most the daemon's liveness window
///   (``FlowClientConfiguration/livenessIntervals`` of the `heartbeat_ms` in its `WELCOME`): a `SYNC` without an
///   answer is sent again, a `SNAPSHOT` or replay announced but not (all) come makes it `SYNC` again at the next
///   `HEARTBEAT`, a `REPORT` without an answer is made again after the next `SYNC`;
/// - carries out a person's operations (``tapBack(in:)``, ``selectTab(_:in:)``, ``dismiss(_:)``) on the model and
///   reports them; ``userAction(_:on:)`` sends `USER_ACTION`.
///
/// ``model`` is the UI now; ``changes()`` streams every change, in order. As a `Service` in a service group it
/// leaves (`BYE`) on the group's graceful shutdown too.
///
/// `Sendable`: the model and sequence state are behind one mutex, and every report is queued under it, so reports
/// leave in the order the model changed.
public final class PresenterClient: Service, Sendable {
    /// The client's stable name (a restarted presenter with the same name takes its session over).
    public let name: String
    /// The session this presenter hosts.
    public let session: String
    /// Whether the first `SYNC` creates the session when it does not exist.
    public let createsSession: Bool
    private let connection: FlowConnection
    private let state = Mutex(State())

    private enum SyncPhase {
        case idle
        case inFlight
        /// The `OK` to `SYNC` said `snapshot` at this instant; the `SNAPSHOT` has not come yet.
        case awaitingSnapshot(since: ContinuousClock.Instant)
        /// The `OK` to `SYNC` said `replay` up to `through` at this instant; those commands have not all come yet
        /// (a `HEARTBEAT` announcing them is no sign of loss until the liveness window has passed).
        case replaying(through: UInt64, since: ContinuousClock.Instant)

        var isIdle: Bool { if case .idle = self { true } else { false } }
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

    private struct State {
        var model = PresentationModel()
        var lastSeq: UInt64 = 0
        var sync = SyncPhase.idle
        /// How long to wait for what the daemon owes: its liveness window, from the last `WELCOME`.
        var answerWindow: Duration = .seconds(3)
        /// Dismissals reported without an answer yet: sent again after a replay `SYNC`.
        var unconfirmedDismissals: [PresentableID] = []
        var subscribers: [UInt64: AsyncStream<PresenterChange>.Continuation] = [:]
        var nextSubscriber: UInt64 = 0
        var finished = false
    }

    /// A presenter for `session`.
    ///
    /// - Parameters:
    ///   - name: the process's stable name, `[A-Za-z0-9._-]{1,64}`.
    ///   - session: the session to host.
    ///   - createSession: create the session if it does not exist (`"create": true` in `SYNC`).
    public init(
        name: String,
        session: String = "default",
        createSession: Bool = false,
        configuration: FlowClientConfiguration = FlowClientConfiguration()
    ) {
        self.name = name
        self.session = session
        self.createsSession = createSession
        connection = FlowConnection(role: .presenter, name: name, configuration: configuration)
    }

    /// The UI now.
    public var model: PresentationModel { state.withLock { $0.model } }

    /// The last command sequence number applied (a snapshot's counts).
    public var lastSeq: UInt64 { state.withLock { $0.lastSeq } }

    /// Every change of the UI from now on, in order; ends when ``run()`` ends. Each call makes a new stream.
    public func changes() -> AsyncStream<PresenterChange> {
        let (stream, continuation) = AsyncStream.makeStream(of: PresenterChange.self)
        let id = state.withLock { state -> UInt64? in
            guard !state.finished else { return nil }
            state.nextSubscriber += 1
            state.subscribers[state.nextSubscriber] = continuation
            return state.nextSubscriber
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Connects, hosts the session until cancelled or a graceful shutdown of its service group (then says `BYE`).
    ///
    /// - Throws: ``DaemonError`` when the daemon refuses the `HELLO` or the `SYNC` (`sessionHosted`: another live
    ///   presenter hosts the session; `unknownSession` without `createSession`); ``FlowClientError`` when the client
    ///   cannot work at all (an invalid name, a malformed endpoint).
    public func run() async throws {
        defer {
            let subscribers = state.withLock { state in
                state.finished = true
                defer { state.subscribers.removeAll() }
                return Array(state.subscribers.values)
            }
            for subscriber in subscribers { subscriber.finish() }
        }
        try await cancelWhenGracefulShutdown { [self] in
            try await connection.run { [self] batch in try await handle(batch) }
        }
    }

    // MARK: - User operations

    /// The person taps the back button of `stack`: its top child is popped, and the change reported.
    ///
    /// The model changes even when the daemon cannot be told now (the dismissal is reported after the next `SYNC`).
    ///
    /// - Throws: ``FlowCore/PresentationError`` when the UI does not allow it (nothing changed then);
    ///   ``DaemonError`` when the daemon refused the report.
    public func tapBack(in stack: PresentableID) async throws {
        try await perform(.tapBack(stack: stack)) { model throws(PresentationError) in
            try model.userTapsBack(in: stack)
        }
    }

    /// The person selects the tab at `index` of `tabs` (see ``tapBack(in:)`` for errors).
    public func selectTab(_ index: Int, in tabs: PresentableID) async throws {
        try await perform(.selectTab(index, tabs: tabs)) { model throws(PresentationError) in
            try model.userSelectsTab(index, in: tabs)
        }
    }

    /// The person closes the modal `modal` (see ``tapBack(in:)`` for errors).
    public func dismiss(_ modal: PresentableID) async throws {
        try await perform(.dismiss(modal: modal)) { model throws(PresentationError) in
            try model.userDismisses(modal)
        }
    }

    /// The person acted on a screen (`USER_ACTION`); the daemon hands the action to the screen's stepper processes.
    ///
    /// - Returns: how many stepper attachments it was delivered to.
    /// - Throws: ``DaemonError`` (`unknownPresentable`, `notHost`, …); ``FlowClientError/Code/notConnected`` when
    ///   the presenter is reconnecting (the action is not kept for later).
    @discardableResult
    public func userAction(_ action: Step, on presentable: PresentableID) async throws -> Int {
        let session = session
        let result = try await connection.request(policy: .fail) { req in
            .userAction(UserAction(req: req, session: session, presentable: presentable.rawValue, action: action))
        }
        guard case .object(let fields) = result, let delivered = fields["delivered"]?.intValue else {
            throw FlowClientError(.badReply, "the OK to USER_ACTION has no 'delivered': \(result)")
        }
        return delivered
    }

    private func perform(
        _ operation: PresenterUserOperation,
        _ body: (inout PresentationModel) throws(PresentationError) -> [CoordinatorInput]
    ) async throws {
        let submitted = try state.withLock { state throws(PresentationError) -> SubmittedReport? in
            let reports = try body(&state.model).compactMap(PresentableReport.init)
            let submitted = submitReport(reports, state: &state)
            publish(.userOperation(operation), reports: reports, state: state)
            return submitted
        }
        guard let submitted else { return }
        do {
            _ = try await connection.reply(to: submitted.ticket)
            confirm(submitted)
        } catch let error as DaemonError {
            confirm(submitted)
            throw error
        } catch let error as FlowClientError where error.code == .connectionLost || error.code == .stopped {
            // Reported again after the next SYNC.
        }
    }

    // MARK: - The daemon's messages

    private func handle(_ batch: [ConnectionEvent]) async throws {
        var commands: [CommandMessage] = []
        for event in batch {
            if case .message(.command(let command)) = event {
                if command.session == session { commands.append(command) }
                continue
            }
            try await apply(commands)
            commands.removeAll()
            switch event {
            case .connected(let welcome, let daemonChanged):
                let window = connection.configuration.livenessWindow(daemonHeartbeatMs: welcome.heartbeatMs)
                state.withLock { state in
                    state.sync = .idle
                    state.answerWindow = window
                    if daemonChanged {
                        // A new daemon run: its sequence numbers are not the ones applied here.
                        state.lastSeq = 0
                        state.unconfirmedDismissals.removeAll()
                    }
                }
                try await synchronize()
            case .message(.snapshot(let snapshot)) where snapshot.session == session:
                await adopt(snapshot)
            case .message(.heartbeat(let heartbeat)):
                let now = ContinuousClock.now
                let (behind, overdue) = state.withLock { state -> (Bool, Bool) in
                    if let since = state.sync.announcedAt, now - since >= state.answerWindow {
                        state.sync = .idle
                        return (false, true)
                    }
                    let announced = heartbeat.sessions[session] ?? 0
                    return (state.sync.isIdle && announced > state.lastSeq, false)
                }
                if overdue {
                    // Sent right after the OK, on the same connection: some of it was dropped (the queue was full).
                    connection.logger.warning("what flowd announced for the SYNC did not all come; syncing again")
                    try await synchronize()
                } else if behind {
                    connection.logger.info(
                        "flowd announces commands not received; syncing",
                        metadata: ["seq": "\(heartbeat.sessions[session] ?? 0)"])
                    try await synchronize()
                }
            case .disconnected:
                state.withLock { $0.sync = .idle }
            case .message:
                break
            }
        }
        try await apply(commands)
    }

    /// Applies the next commands exactly once, acknowledges and reports them; syncs on a gap.
    private func apply(_ commands: [CommandMessage]) async throws {
        guard !commands.isEmpty else { return }
        let session = session
        let (submitted, gap) = state.withLock { state -> (SubmittedReport?, Bool) in
            // While a snapshot is on its way, it covers every command up to its seq and those after it follow it.
            guard !state.sync.isAwaitingSnapshot else { return (nil, false) }
            var applied: [CommandMessage] = []
            var gap = false
            var duplicates = 0
            for command in commands {
                if command.seq <= state.lastSeq {
                    duplicates += 1
                } else if command.seq == state.lastSeq + 1 {
                    applied.append(command)
                    state.lastSeq = command.seq
                } else {
                    gap = true
                }
            }
            if case .replaying(let through, _) = state.sync, state.lastSeq >= through { state.sync = .idle }
            if duplicates > 0 {
                connection.logger.debug("ignoring commands applied already", metadata: ["count": "\(duplicates)"])
            }
            guard !applied.isEmpty else {
                if duplicates > 0 { connection.send(.ack(Ack(session: session, seq: state.lastSeq))) }
                return (nil, gap && state.sync.detectsGaps)
            }
            let update = state.model.apply(applied.map(\.command))
            for rejection in update.rejected {
                connection.logger.warning("command could not be carried out", metadata: ["command": "\(rejection)"])
            }
            connection.send(.ack(Ack(session: session, seq: state.lastSeq)))
            let reports = update.reports.compactMap(PresentableReport.init)
            let submitted = submitReport(reports, state: &state)
            publish(.commands(applied), reports: reports, rejected: update.rejected, state: state)
            return (submitted, gap && state.sync.detectsGaps)
        }
        if let submitted { await awaitAnswer(submitted) }
        if gap {
            connection.logger.info("gap in the command stream; syncing", metadata: ["last_seq": "\(lastSeq)"])
            try await synchronize()
        }
    }

    /// `SYNC`s with the last applied sequence number; a replay re-reports what is visible, a snapshot is adopted when
    /// it arrives.
    private func synchronize() async throws {
        while true {
            let session = session
            let create = createsSession
            let ticket: RequestTicket
            let lastSeq: UInt64
            let window: Duration
            do {
                (ticket, lastSeq, window) = try state.withLock { state throws(FlowClientError) in
                    let ticket = try connection.submit(policy: .fail) { req in
                        .sync(Sync(req: req, session: session, lastSeq: state.lastSeq, create: create))
                    }
                    state.sync = .inFlight
                    return (ticket, state.lastSeq, state.answerWindow)
                }
            } catch {
                return  // not connected: the next WELCOME syncs
            }
            let result: JSONValue
            do {
                result = try await connection.reply(to: ticket, timeout: answerTimeout(window))
            } catch let error as FlowClientError where error.code == .timedOut {
                // The daemon answers a SYNC at once; no answer within its liveness window means it dropped it (this
                // client's queue was full) while the connection lives on. Until a SYNC is answered the daemon counts
                // nothing here visible, so ask again rather than wait for a gap.
                connection.logger.warning("SYNC got no answer; syncing again", metadata: ["after": "\(window)"])
                continue
            } catch let error as DaemonError {
                state.withLock { $0.sync = .idle }
                connection.logger.error("flowd refused SYNC", metadata: ["session": "\(session)", "error": "\(error)"])
                throw error
            } catch {
                state.withLock { $0.sync = .idle }
                if error is CancellationError { throw error }
                connection.logger.info("SYNC got no answer; the next connection syncs", metadata: ["error": "\(error)"])
                return
            }
            guard case .object(let fields) = result, let mode = fields["mode"]?.stringValue,
                let seq = fields["seq"]?.intValue
            else {
                state.withLock { $0.sync = .idle }
                throw FlowClientError(.badReply, "the OK to SYNC has no 'seq' and 'mode': \(result)")
            }
            if mode == "snapshot" {
                let now = ContinuousClock.now
                state.withLock { $0.sync = .awaitingSnapshot(since: now) }
                return
            }
            if UInt64(max(seq, 0)) < lastSeq {
                // The daemon's stream is behind what was applied here: it is not the same stream. Start over.
                state.withLock { state in
                    state.lastSeq = 0
                    state.sync = .idle
                }
                continue
            }
            let now = ContinuousClock.now
            let submitted = state.withLock { state -> SubmittedReport? in
                let through = UInt64(max(seq, 0))
                state.sync = through > state.lastSeq ? .replaying(through: through, since: now) : .idle
                let missed = state.unconfirmedDismissals.filter { !state.model.contains($0) }
                let reports =
                    missed.map { PresentableReport(presentable: $0.rawValue, state: .dismissed) }
                    + state.model.visiblePresentables.map {
                        PresentableReport(presentable: $0.rawValue, state: .visible)
                    }
                return submitReport(reports, state: &state)
            }
            if let submitted { await awaitAnswer(submitted) }
            return
        }
    }

    /// Replaces the whole UI with a snapshot's, counts its `seq` as applied, and reports what is visible.
    private func adopt(_ snapshot: SnapshotMessage) async {
        let session = session
        let submitted = state.withLock { state -> SubmittedReport? in
            guard state.sync.isAwaitingSnapshot || snapshot.seq >= state.lastSeq else {
                connection.logger.debug("ignoring an old SNAPSHOT", metadata: ["seq": "\(snapshot.seq)"])
                return nil
            }
            let (model, inputs) = snapshot.ui.makeModel()
            state.model = model
            state.lastSeq = snapshot.seq
            state.sync = .idle
            state.unconfirmedDismissals.removeAll()
            connection.send(.ack(Ack(session: session, seq: snapshot.seq)))
            let reports = inputs.compactMap(PresentableReport.init)
            let submitted = submitReport(reports, state: &state)
            publish(.snapshot(seq: snapshot.seq), reports: reports, state: state)
            return submitted
        }
        if let submitted { await awaitAnswer(submitted) }
    }

    // MARK: - Reports

    private struct SubmittedReport {
        let ticket: RequestTicket
        let dismissed: [PresentableID]
    }

    /// Queues a `REPORT` (under the state lock, so reports leave in the order the model changed) and remembers its
    /// dismissals until the daemon answers.
    private func submitReport(_ reports: [PresentableReport], state: inout State) -> SubmittedReport? {
        guard !reports.isEmpty else { return nil }
        let dismissed = reports.filter { $0.state == .dismissed }.map { PresentableID($0.presentable) }
        for id in dismissed where !state.unconfirmedDismissals.contains(id) { state.unconfirmedDismissals.append(id) }
        let session = session
        do {
            let ticket = try connection.submit(policy: .fail) { req in
                .report(Report(req: req, session: session, reports: reports))
            }
            return SubmittedReport(ticket: ticket, dismissed: dismissed)
        } catch {
            connection.logger.debug(
                "not connected: the report waits for the next SYNC", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// Waits for a report's answer, at most the liveness window; the daemon's errors are logged (the handler goes on).
    private func awaitAnswer(_ submitted: SubmittedReport) async {
        let window = state.withLock { $0.answerWindow }
        do {
            _ = try await connection.reply(to: submitted.ticket, timeout: answerTimeout(window))
            confirm(submitted)
        } catch let error as DaemonError {
            confirm(submitted)
            connection.logger.warning("flowd refused a REPORT", metadata: ["error": "\(error)"])
        } catch {
            connection.logger.debug(
                "REPORT not answered; reported again after the next SYNC", metadata: ["error": "\(error)"])
        }
    }

    /// How long to wait for the daemon's answer to a `SYNC` or `REPORT`: the liveness window, or the configured
    /// request timeout when that is shorter.
    private func answerTimeout(_ window: Duration) -> Duration {
        guard let requestTimeout = connection.configuration.requestTimeout else { return window }
        return min(requestTimeout, window)
    }

    private func confirm(_ submitted: SubmittedReport) {
        guard !submitted.dismissed.isEmpty else { return }
        state.withLock { state in
            state.unconfirmedDismissals.removeAll { submitted.dismissed.contains($0) }
        }
    }

    private func publish(
        _ cause: PresenterChange.Cause,
        reports: [PresentableReport],
        rejected: [PresentationUpdate.Rejection] = [],
        state: State
    ) {
        let change = PresenterChange(
            cause: cause, model: state.model, reports: reports, rejected: rejected, lastSeq: state.lastSeq
        )
        for subscriber in state.subscribers.values { subscriber.yield(change) }
    }
}
