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
/// The decisions are a ``PresenterSyncMachine``'s; this class carries out its actions and feeds it what comes back.
///
/// `Sendable`: the machine is behind one mutex, and its actions are carried out under it, so reports leave in the
/// order the model changed.
public final class PresenterClient: Service, Sendable {
    /// The client's stable name (a restarted presenter with the same name takes its session over).
    public let name: String
    /// The session this presenter hosts.
    public let session: String
    /// Whether the first `SYNC` creates the session when it does not exist.
    public let createsSession: Bool
    private let connection: FlowConnection
    private let state: Mutex<State>

    private struct State {
        var machine: PresenterSyncMachine
        var subscribers: [UInt64: AsyncStream<PresenterChange>.Continuation] = [:]
        var nextSubscriber: UInt64 = 0
        var finished = false
    }

    /// A request the machine asked for, submitted under the lock, whose answer is awaited outside it.
    private enum Submitted {
        case sync(RequestTicket, timeout: Duration)
        case syncNotSent(FlowClientError)
        case report(PresenterReport, RequestTicket, timeout: Duration?)
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
        let submitted = try state.withLock { state throws(PresentationError) in
            carryOut(try state.machine.perform(operation), on: &state)
        }
        guard case .report(let report, let ticket, let timeout)? = submitted.requests.first else { return }
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

    /// Feeds the machine the daemon's messages, one input at a time: commands that arrived together as one batch.
    /// The answers to what an input asked for (`SYNC`, `REPORT`) are awaited before the next input.
    private func handle(_ batch: [ConnectionEvent]) async throws {
        var commands: [CommandMessage] = []
        for event in batch {
            if case .message(.command(let command)) = event {
                commands.append(command)
                continue
            }
            if !commands.isEmpty { try await feed { [commands] in $0.received(commands) } }
            commands.removeAll()
            switch event {
            case .connected(let welcome, let daemonChanged):
                try await feed { $0.connected(welcome, daemonChanged: daemonChanged) }
            case .message(.snapshot(let snapshot)):
                try await feed { $0.received(snapshot) }
            case .message(.heartbeat(let heartbeat)):
                let now = ContinuousClock.now
                try await feed { $0.received(heartbeat, at: now) }
            case .disconnected:
                state.withLock { $0.machine.disconnected() }
            case .message:
                break
            }
        }
        if !commands.isEmpty { try await feed { [commands] in $0.received(commands) } }
    }

    /// Feeds the machine one input, carries out its actions, and awaits the answers to the requests they submitted
    /// (in order, each fed back before the next), until nothing is left to await.
    private func feed(_ input: (inout PresenterSyncMachine) -> [PresenterSyncAction]) async throws {
        var pending = try state.withLock { state in carryOut(input(&state.machine), on: &state) }.get()
        while !pending.isEmpty {
            let next = pending.removeFirst()
            pending += try await answer(next)
        }
    }

    /// Awaits the answer to `submitted` and feeds it to the machine; returns what that submitted in turn.
    private func answer(_ submitted: Submitted) async throws -> [Submitted] {
        switch submitted {
        case .sync(let ticket, let timeout):
            let answer: SyncAnswer
            do {
                answer = .ok(try await connection.reply(to: ticket, timeout: timeout))
            } catch let error as DaemonError {
                answer = .refused(error)
            } catch let error as FlowClientError where error.code == .timedOut {
                answer = .timedOut
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                answer = .unanswered(error)
            }
            let now = ContinuousClock.now
            return try state.withLock { state in carryOut(state.machine.syncAnswered(answer, at: now), on: &state) }
                .get()
        case .syncNotSent(let error):
            let now = ContinuousClock.now
            return try state.withLock { state in
                carryOut(state.machine.syncAnswered(.unanswered(error), at: now), on: &state)
            }.get()
        case .report(let report, let ticket, let timeout):
            do {
                _ = try await connection.reply(to: ticket, timeout: timeout)
            } catch let error as DaemonError {
                connection.logger.warning("flowd refused a REPORT", metadata: ["error": "\(error)"])
            } catch {
                connection.logger.debug(
                    "REPORT not answered; reported again after the next SYNC", metadata: ["error": "\(error)"])
                return []
            }
            state.withLock { $0.machine.confirmed(report) }
            return []
        }
    }

    /// What ``carryOut(_:on:)`` leaves to do outside the lock.
    private struct CarriedOut {
        var requests: [Submitted] = []
        var failure: (any Error)?

        /// The requests to await, or the machine's failure.
        func get() throws -> [Submitted] {
            if let failure { throw failure }
            return requests
        }
    }

    /// Carries out the machine's actions under the lock: sends, submissions (so reports leave in the order the model
    /// changed) and changes handed to the app, in the order the machine decided.
    private func carryOut(_ actions: [PresenterSyncAction], on state: inout State) -> CarriedOut {
        var carried = CarriedOut()
        for action in actions {
            switch action {
            case .ack(let ack):
                connection.send(.ack(ack))
            case .sync(let lastSeq, let timeout):
                let session = session
                let create = createsSession
                do {
                    let ticket = try connection.submit(policy: .fail) { req in
                        .sync(Sync(req: req, session: session, lastSeq: lastSeq, create: create))
                    }
                    carried.requests.append(.sync(ticket, timeout: timeout))
                } catch {
                    carried.requests.append(.syncNotSent(error))
                }
            case .report(let report, let timeout):
                let session = session
                do {
                    let ticket = try connection.submit(policy: .fail) { req in
                        .report(Report(req: req, session: session, reports: report.reports))
                    }
                    carried.requests.append(.report(report, ticket, timeout: timeout))
                } catch {
                    connection.logger.debug(
                        "not connected: the report waits for the next SYNC", metadata: ["error": "\(error)"])
                }
            case .publish(let change):
                for subscriber in state.subscribers.values { subscriber.yield(change) }
            case .fail(let error):
                carried.failure = carried.failure ?? error
            }
        }
        return carried
    }
}
