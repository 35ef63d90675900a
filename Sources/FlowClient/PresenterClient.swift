import DequeModule
public import FlowCore
import FlowWire
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
///   restarted or ended the session); a `replay` is applied command by command, a `SNAPSHOT` replaces the model;
/// - applies a `COMMAND` only when its `seq` is the next one: a duplicate or an old one is ignored, a gap (or a
///   `HEARTBEAT` announcing a `seq` above the last applied) makes it `SYNC` again; commands that arrive together are
///   applied as one batch, then acknowledged (`ACK`) and reported (`REPORT`, the model's truthful reports); an `ACK`
///   with no request after it leaves once the change is handed on, so the UI gets it first;
/// - after every `SYNC` reports every visible presentable again (the daemon counts nothing visible after a `SYNC`),
///   with any dismissal the daemon may have missed while the connection was down;
/// - waits for what the daemon may have dropped (its queue for this client full) at most the daemon's liveness window
///   (``FlowClientConfiguration/livenessIntervals`` of the `heartbeat_ms` in its `WELCOME`): a `SYNC` without an
///   answer is sent again, a `SNAPSHOT` or replay announced but not (all) come makes it `SYNC` again at the next
///   `HEARTBEAT`, a `REPORT` without an answer is made again after the next `SYNC`; a `SNAPSHOT` that did not come
///   is logged as an error naming `maxMessageSize` (one larger never comes: libzmq drops the connection on it);
/// - when the daemon ends the session (the notice `sessionEnded`), hands on a change caused by that
///   (``PresenterChange/Cause/sessionEnded``), so the app can stop or say so;
/// - carries out a person's operations (``tapBack(in:)``, ``selectTab(_:in:)``, ``dismiss(_:)``) on the model and
///   reports them; ``userAction(_:on:)`` sends `USER_ACTION`.
///
/// ``model`` is the UI now; ``changes()`` streams every change, in order. ``run(onChange:)`` also hands every change
/// to a closure, called right where the change was made: on the client's I/O thread for the daemon's messages, with
/// no hop to another task in between (the fastest way to follow the UI; the closure must not block). As a `Service`
/// in a service group it leaves (`BYE`) on the group's graceful shutdown too.
///
/// The decisions are a ``PresenterSyncMachine``'s; this class carries out its actions and feeds it what comes back:
/// the daemon's messages are fed on the I/O thread as they are read, one input at a time; the answers to what an input
/// asked for (`SYNC`, `REPORT`) come to a callback and are fed back, in order, before the next input.
///
/// `Sendable`: the machine is behind one mutex, and its actions are carried out under it, so reports leave in the
/// order the model changed; one thread at a time feeds it (whichever finds inputs waiting and nobody feeding).
public final class PresenterClient: Service, Sendable {
    /// The client's stable name (a restarted presenter with the same name takes its session over).
    public let name: String
    /// The session this presenter hosts.
    public let session: String
    /// Whether the first `SYNC` creates the session when it does not exist.
    public let createsSession: Bool
    private let connection: FlowConnection
    private let state: Mutex<State>

    /// The machine's failure (a refused `SYNC`, a bad reply), for ``run()`` to throw.
    private let failures = EventQueue<any Error>()

    private struct State {
        var machine: PresenterSyncMachine
        var subscribers: [UInt64: AsyncStream<PresenterChange>.Continuation] = [:]
        var nextSubscriber: UInt64 = 0
        var finished = false
        /// The closure of ``run(onChange:)``, and the changes not handed to it yet.
        var onChange: (@Sendable (PresenterChange) -> Void)?
        var unhanded: [PresenterChange] = []
        /// The `ACK`s of the inputs fed so far, sent after their changes are handed on (the UI first, then the
        /// acknowledgement) or before the next request, whichever comes first: they keep their order with the sends.
        var unsentAcks: [Ack] = []
        /// The daemon's messages not fed to the machine yet, in order.
        var inputs: Deque<Input> = []
        /// The requests the inputs fed so far asked for, whose answers are fed back in this order before the next
        /// input; the answers that came before their turn.
        var awaited: Deque<Submitted> = []
        var answers: [UInt64: Result<JSONValue, any Error>] = [:]
        /// Whether a thread feeds the machine now (that one alone hands changes to `onChange`), and whether it failed
        /// (nothing is fed after that).
        var feeding = false
        var failed = false
    }

    /// One input of the machine from the daemon: commands that arrived together are one.
    private enum Input {
        case connected(Welcome, daemonChanged: Bool)
        case commands([CommandMessage])
        case snapshot(SnapshotMessage)
        case heartbeat(Heartbeat)
        case disconnected
        /// The notice `sessionEnded`: the session this presenter hosted was ended.
        case sessionEnded
    }

    /// A request an input asked for, submitted under the lock, whose answer comes to a callback.
    private enum Submitted {
        case sync(req: UInt64)
        case syncNotSent(FlowClientError)
        case report(PresenterReport, req: UInt64)
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
        state = Mutex(
            State(
                machine: PresenterSyncMachine(
                    session: session, timing: .init(configuration), logger: connection.logger)))
    }

    /// The UI now.
    public var model: PresentationModel { state.withLock { $0.machine.model } }

    /// The last command sequence number applied (a snapshot's counts).
    public var lastSeq: UInt64 { state.withLock { $0.machine.lastSeq } }

    /// The `SNAPSHOT`s announced in a row that did not come (``PresenterSyncMachine/missedSnapshots``), and the
    /// largest message the client takes, for ``ScriptedPresenter`` to say why the UI never came.
    var missedSnapshots: (count: Int, maxMessageSize: Int64?) {
        state.withLock { ($0.machine.missedSnapshots, $0.machine.timing.maxMessageSize) }
    }

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
        try await run(handingChangesTo: nil)
    }

    /// As ``run()``, and hands every change of the UI to `onChange` (as ``changes()`` streams them): one call at a
    /// time, in order, on the thread that made the change, without waiting for a task to be scheduled. That thread
    /// is the client's I/O thread for the daemon's messages, and the task that performed a person's operation for
    /// its change (and for the daemon's messages that came while that task was handing it on). `onChange` must
    /// return soon and never block, since the connection waits for it (copy ``PresenterChange/model`` to the UI, or
    /// hand the change on); it may read ``model``.
    ///
    /// ```swift
    /// try await presenter.run { change in screen.render(change.model) }
    /// ```
    public func run(onChange: @escaping @Sendable (PresenterChange) -> Void) async throws {
        try await run(handingChangesTo: onChange)
    }

    private func run(handingChangesTo onChange: (@Sendable (PresenterChange) -> Void)?) async throws {
        state.withLock { $0.onChange = onChange }
        defer {
            let subscribers = state.withLock { state in
                state.finished = true
                defer { state.subscribers.removeAll() }
                return Array(state.subscribers.values)
            }
            for subscriber in subscribers { subscriber.finish() }
        }
        try await cancelWhenGracefulShutdown { [self] in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await self.connection.run(inline: { [weak self] batch in self?.accept(batch) }) }
                group.addTask { if let failure = await self.failures.next() { throw failure } }
                defer { group.cancelAll() }
                _ = try await group.next()
            }
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
        try await perform(.tapBack(stack: stack))
    }

    /// The person selects the tab at `index` of `tabs` (see ``tapBack(in:)`` for errors).
    public func selectTab(_ index: Int, in tabs: PresentableID) async throws {
        try await perform(.selectTab(index, tabs: tabs))
    }

    /// The person closes the modal `modal` (see ``tapBack(in:)`` for errors).
    public func dismiss(_ modal: PresentableID) async throws {
        try await perform(.dismiss(modal: modal))
    }

    /// The person acted on a screen (`USER_ACTION`); the daemon hands the action to the screen's stepper processes.
    ///
    /// - Returns: how many stepper attachments it was delivered to.
    /// - Throws: ``DaemonError`` (`unknownPresentable`, `notHost`, …); ``FlowClientError/Code/notConnected`` when
    ///   the presenter is reconnecting (the action is not kept for later).
    @discardableResult
    public func userAction(_ action: Step, on presentable: PresentableID) async throws -> Int {
        let session = session
        return try await connection.request(UserActionResult.self, policy: .fail) { req in
            .userAction(UserAction(req: req, session: session, presentable: presentable.rawValue, action: action))
        }.delivered
    }

    private func perform(_ operation: PresenterUserOperation) async throws {
        var reported: (report: PresenterReport, ticket: RequestTicket, timeout: Duration?)?
        try state.withLock { state throws(PresentationError) in
            for action in try state.machine.perform(operation) {
                guard case .report(let report, let timeout) = action else {
                    carryOut([action], on: &state)
                    continue
                }
                // Awaited here, not by the feeder: the person's operation waits for the daemon's answer.
                let session = session
                do {
                    let ticket = try connection.submit(policy: .fail) { req in
                        .report(Report(req: req, session: session, reports: report.reports))
                    }
                    reported = (report, ticket, timeout)
                } catch {
                    connection.logger.debug(
                        "not connected: the report waits for the next SYNC", metadata: ["error": "\(error)"])
                }
            }
        }
        handOnChanges()
        guard let (report, ticket, timeout) = reported else { return }
        do {
            _ = try await connection.reply(to: ticket, timeout: timeout)
            state.withLock { $0.machine.confirmed(report) }
        } catch let error as DaemonError {
            state.withLock { $0.machine.confirmed(report) }
            throw error
        } catch let error as FlowClientError where error.code == .connectionLost || error.code == .stopped {
            // Reported again after the next SYNC.
        }
    }

    // MARK: - The daemon's messages

    /// Takes a batch of the connection's events (on the thread that made them): commands that arrived together become
    /// one input; the inputs are fed in turn.
    private func accept(_ batch: [ConnectionEvent]) {
        var inputs: [Input] = []
        var commands: [CommandMessage] = []
        for event in batch {
            if case .message(.command(let command)) = event {
                commands.append(command)
                continue
            }
            if !commands.isEmpty { inputs.append(.commands(commands)) }
            commands.removeAll()
            switch event {
            case .connected(let welcome, let daemonChanged):
                inputs.append(.connected(welcome, daemonChanged: daemonChanged))
            case .message(.snapshot(let snapshot)): inputs.append(.snapshot(snapshot))
            case .message(.heartbeat(let heartbeat)): inputs.append(.heartbeat(heartbeat))
            case .disconnected: inputs.append(.disconnected)
            case .message(.error(let notice)) where notice.code == .sessionEnded: inputs.append(.sessionEnded)
            case .message: break
            }
        }
        if !commands.isEmpty { inputs.append(.commands(commands)) }
        guard !inputs.isEmpty else { return }
        feed { $0.inputs.append(contentsOf: inputs) }
    }

    /// The answer to request `req` an input asked for (on the thread that learnt it).
    private func answered(_ req: UInt64, _ result: Result<JSONValue, any Error>) {
        feed { $0.answers[req] = result }
    }

    /// Hands the changes a person's operation made to `onChange`, unless a feeder is at it (it hands them then).
    private func handOnChanges() {
        feed { _ in }
    }

    /// Records what `arrived` (under the lock), then, unless another thread is at it, feeds the machine everything it
    /// can take now and hands the changes on outside the lock, until nothing is left.
    private func feed(_ arrived: (inout State) -> Void) {
        let feeds = state.withLock { state in
            arrived(&state)
            guard !state.feeding else { return false }
            state.feeding = true
            return true
        }
        guard feeds else { return }
        while true {
            let (changes, onChange, acks, failure) = state.withLock { state in
                let failure = feedWhatWaits(&state)
                let changes = state.unhanded
                state.unhanded.removeAll()
                let acks = state.unsentAcks
                state.unsentAcks.removeAll()
                if changes.isEmpty, acks.isEmpty, failure == nil { state.feeding = false }
                return (changes, state.onChange, acks, failure)
            }
            if let failure { failures.push(failure) }
            if let onChange { for change in changes { onChange(change) } }
            // Only the feeder sends these, so they leave in order; after the UI had the change, not on its way.
            for ack in acks { connection.send(.ack(ack)) }
            guard !changes.isEmpty || !acks.isEmpty || failure != nil else { return }
        }
    }

    /// Feeds the machine the answers in their turn, and the inputs while no answer is awaited; returns its failure.
    private func feedWhatWaits(_ state: inout State) -> (any Error)? {
        while !state.failed {
            let actions: [PresenterSyncAction]
            if let head = state.awaited.first {
                guard let next = takeAnswer(to: head, from: &state) else { return nil }
                state.awaited.removeFirst()
                actions = next
            } else if let input = state.inputs.popFirst() {
                actions = Self.actions(for: input, of: &state.machine)
            } else {
                return nil
            }
            if let failure = carryOut(actions, on: &state) {
                state.failed = true
                return failure
            }
        }
        return nil
    }

    /// The machine's actions for `input`.
    private static func actions(for input: Input, of machine: inout PresenterSyncMachine) -> [PresenterSyncAction] {
        switch input {
        case .connected(let welcome, let daemonChanged): return machine.connected(welcome, daemonChanged: daemonChanged)
        case .commands(let commands): return machine.received(commands)
        case .snapshot(let snapshot): return machine.received(snapshot)
        case .heartbeat(let heartbeat): return machine.received(heartbeat, at: .now)
        case .disconnected:
            machine.disconnected()
            return []
        case .sessionEnded: return machine.sessionEnded()
        }
    }

    /// Feeds the machine the answer to `submitted` if it came, and returns its actions; `nil` while it has not.
    private func takeAnswer(to submitted: Submitted, from state: inout State) -> [PresenterSyncAction]? {
        switch submitted {
        case .sync(let req):
            guard let result = state.answers.removeValue(forKey: req) else { return nil }
            let answer: SyncAnswer
            switch result {
            case .success(let value): answer = .ok(value)
            case .failure(let error as DaemonError): answer = .refused(error)
            case .failure(let error as FlowClientError) where error.code == .timedOut: answer = .timedOut
            case .failure(let error): answer = .unanswered(error)
            }
            return state.machine.syncAnswered(answer, at: .now)
        case .syncNotSent(let error):
            return state.machine.syncAnswered(.unanswered(error), at: .now)
        case .report(let report, let req):
            guard let result = state.answers.removeValue(forKey: req) else { return nil }
            switch result {
            case .success:
                state.machine.confirmed(report)
            case .failure(let error as DaemonError):
                connection.logger.warning("flowd refused a REPORT", metadata: ["error": "\(error)"])
                state.machine.confirmed(report)
            case .failure(let error):
                connection.logger.debug(
                    "REPORT not answered; reported again after the next SYNC", metadata: ["error": "\(error)"])
            }
            return []
        }
    }

    /// Sends the `ACK`s not sent yet, ahead of a request the machine asked for after them (the feeder only).
    private func sendAcks(_ state: inout State) {
        for ack in state.unsentAcks { connection.send(.ack(ack)) }
        state.unsentAcks.removeAll()
    }

    /// Carries out the machine's actions under the lock, in the order it decided: sends and requests (so reports
    /// leave in the order the model changed; their answers awaited in turn), and changes handed to the app (to the
    /// streams now, to `onChange` by the feeder outside the lock). Returns the machine's failure, if it failed.
    @discardableResult
    private func carryOut(_ actions: [PresenterSyncAction], on state: inout State) -> (any Error)? {
        var failure: (any Error)?
        let session = session
        let answered: @Sendable (UInt64, Result<JSONValue, any Error>) -> Void = { [weak self] req, result in
            self?.answered(req, result)
        }
        for action in actions {
            switch action {
            case .ack(let ack):
                state.unsentAcks.append(ack)
            case .sync(let lastSeq, let timeout):
                sendAcks(&state)
                let create = createsSession
                do {
                    let ticket = try connection.submit(
                        policy: .fail, timeout: timeout,
                        { req in .sync(Sync(req: req, session: session, lastSeq: lastSeq, create: create)) },
                        onReply: answered)
                    state.awaited.append(.sync(req: ticket.req))
                } catch {
                    state.awaited.append(.syncNotSent(error))
                }
            case .report(let report, let timeout):
                sendAcks(&state)
                do {
                    let ticket = try connection.submit(
                        policy: .fail, timeout: timeout,
                        { req in .report(Report(req: req, session: session, reports: report.reports)) },
                        onReply: answered)
                    state.awaited.append(.report(report, req: ticket.req))
                } catch {
                    connection.logger.debug(
                        "not connected: the report waits for the next SYNC", metadata: ["error": "\(error)"])
                }
            case .publish(let change):
                for subscriber in state.subscribers.values { subscriber.yield(change) }
                if state.onChange != nil { state.unhanded.append(change) }
            case .fail(let error):
                failure = failure ?? error
            }
        }
        return failure
    }
}
