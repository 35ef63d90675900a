import FlowCore
import FlowWire
import Logging
import Synchronization
import ZeroMQ

/// The connection core every client shares: one `DEALER` to the daemon's control endpoint, the `HELLO`/`WELCOME`
/// handshake, request/reply correlation by `req`, heartbeats, daemon liveness and reconnection, and `BYE`.
///
/// ## How it runs
/// ``run(handler:)`` makes a ``ZMQEventLoop`` (its own I/O thread) and, until cancelled, keeps one connection alive:
/// a new `DEALER` (bounded linger, `ZMQ_IMMEDIATE`), `HELLO` first, then, once `WELCOME` arrives, requests and
/// heartbeats. What to do is decided by a ``ConnectionMachine`` (no I/O, no clock of its own); this class is its shell.
/// Messages are handed to the loop as they are made, under the lock (so they leave in the order they were submitted,
/// with no task per message), and what arrives is fed to the machine on the loop's thread as it is read. Two child
/// tasks serve each connection: a watcher (ends the connection when the machine decides so on a message, or a send
/// fails) and a timer (fires when the machine asks: heartbeats every interval, and the liveness check). When the daemon stays silent for
/// ``FlowClientConfiguration/livenessIntervals`` of its own heartbeat intervals (counted while this process runs,
/// `docs/PROTOCOL.md` §3), or `WELCOME` does not come, or the daemon answers `notWelcome` (it forgot this
/// connection), the socket is closed and a new one says `HELLO` again.
/// Cancelling `run` sends `BYE` and closes.
///
/// The handler gets the non-reply messages as batches of ``ConnectionEvent``, in order, on one task: it may await
/// requests (their replies are read by the reader meanwhile).
///
/// ## Requests
/// ``submit(policy:_:)`` numbers a request and queues it without waiting (so a caller holding its own lock decides the
/// order of its messages); ``reply(to:)`` waits for the `OK` result, throws a ``DaemonError`` for an `ERROR`, and a
/// ``FlowClientError`` when the timeout runs out, the connection is lost after sending, or the client stopped.
/// Requests made while no connection is welcomed wait for the next one (or fail, by policy). A request the daemon
/// refused with `notWelcome` (and every request sent after it) is sent again after the new handshake: the daemon did
/// nothing with them. A request with ``DisconnectedPolicy/resend`` survives a lost connection: it is sent again, with
/// the same `req`, once a new connection is welcomed by the same daemon run (the daemon answers a repeated one with
/// its first result), and fails with ``FlowClientError/Code/notDelivered`` when another run welcomes it.
///
/// Request numbers come from one counter for the whole process, so they keep growing across connections and clients:
/// (`HELLO.instance`, `req`) names one request even when clients share a configuration (and its instance).
///
/// `Sendable`: the machine and the waiters are behind one mutex; sockets belong to the loop's thread.
final class FlowConnection: Sendable {
    let role: PeerRole
    let name: String
    let serves: [String]
    /// Whether `HELLO` says the process answers `ADAPT` (a stepper with an adapt handler).
    let adapts: Bool
    let configuration: FlowClientConfiguration
    let logger: Logger
    private let codec: WireCodec
    private let state: Mutex<State>
    private let events = EventQueue<ConnectionEvent>()
    private let timeouts = RequestTimeouts()

    private typealias Waiter = CheckedContinuation<Result<JSONValue, any Error>, Never>

    private struct State {
        var machine: ConnectionMachine
        /// Where the current connection's messages go.
        var sender: Sender?
        var waiters: [UInt64: Waiter] = [:]
        /// Results that came before anybody waited for them.
        var results: [UInt64: Result<JSONValue, any Error>] = [:]
    }

    /// The current connection's socket: messages are handed to its loop as they are made, under the lock, so they
    /// leave in the order the machine decided, with no task of their own; a failed send ends the connection.
    private struct Sender {
        let loop: ZMQEventLoop
        let socket: ZMQSocketHandle
        let completion: @Sendable (Result<Void, ZMQError>) -> Void

        init(loop: ZMQEventLoop, socket: ZMQSocketHandle, ends: AsyncStream<ConnectionEnd>.Continuation) {
            self.loop = loop
            self.socket = socket
            completion = { result in
                if case .failure(let error) = result { ends.yield(.sendFailed(error)) }
            }
        }

        func send(_ message: ZMQMessage) {
            loop.post(message, on: socket, then: completion)
        }
    }

    /// Why a connection ends, as its socket's loop tells: a send failed, or the machine decided it on a message.
    private enum ConnectionEnd: Sendable {
        case sendFailed(ZMQError)
        case decided(ConnectionOutcome)
    }

    /// The generation of the connection a socket serves, set before its `HELLO` leaves (its messages come after), and
    /// whether the machine ended it already (what the socket still reads is then left unread, as the connection is).
    private final class Generation: Sendable {
        let value = Atomic<UInt64>(0)
        let ended = Atomic<Bool>(false)
    }

    /// What is left to do outside the lock after the machine's actions.
    private struct FollowUp {
        var resumes: [(Waiter, Result<JSONValue, any Error>)] = []
        var events: [ConnectionEvent] = []
        var outcome: ConnectionOutcome?
        var reconnectAfter: Duration?
        var stopError: (any Error)?
    }

    init(
        role: PeerRole, name: String, serves: [String] = [], adapts: Bool = false,
        configuration: FlowClientConfiguration
    ) {
        self.role = role
        self.name = name
        self.serves = serves
        self.adapts = adapts
        self.configuration = configuration
        self.codec = WireCodec(decodingWhatFits: configuration.connectionSocketOptions)
        var logger = configuration.logger
        logger[metadataKey: "flowd.role"] = "\(role.rawValue)"
        logger[metadataKey: "flowd.client"] = "\(name)"
        self.logger = logger
        self.state = Mutex(State(machine: ConnectionMachine(timing: .init(configuration), logger: logger)))
    }

    /// The request numbers of every connection in the process: they never repeat, so a daemon that de-duplicates by
    /// (`HELLO.instance`, `req`) never mistakes a new request for an old one, even from two clients sharing an
    /// instance.
    private static let requestNumbers = Atomic<UInt64>(1)

    /// A new request number, greater than every one before it in this process.
    private static func nextRequestNumber() -> UInt64 {
        requestNumbers.wrappingAdd(1, ordering: .relaxed).oldValue
    }

    /// The `WELCOME` of the current connection, if one is welcomed.
    var welcome: Welcome? { state.withLock { $0.machine.welcome } }

    /// Carries out the machine's actions under the lock: sends right away (so they keep the order the machine
    /// decided), the rest collected for ``finish(_:)`` outside the lock.
    private func perform(_ actions: [ConnectionAction], on state: inout State) -> FollowUp {
        var followUp = FollowUp()
        for action in actions {
            switch action {
            case .send(let message): state.sender?.send(frames(message))
            case .deliver(let event): followUp.events.append(event)
            case .complete(let req, let result):
                if let waiter = state.waiters.removeValue(forKey: req) {
                    followUp.resumes.append((waiter, result))
                } else {
                    state.results[req] = result
                }
            case .end(let outcome): followUp.outcome = followUp.outcome ?? outcome
            case .reconnect(let delay): followUp.reconnectAfter = delay
            case .stop(let error): followUp.stopError = error
            }
        }
        return followUp
    }

    /// Feeds the machine one input under the lock and carries out what it returns.
    private func drive(_ input: (inout ConnectionMachine) -> [ConnectionAction]) -> FollowUp {
        state.withLock { state in perform(input(&state.machine), on: &state) }
    }

    /// Wakes the waiters and hands the events on, outside the lock.
    @discardableResult
    private func finish(_ followUp: FollowUp) -> FollowUp {
        for (waiter, result) in followUp.resumes { waiter.resume(returning: result) }
        for event in followUp.events { events.push(event) }
        return followUp
    }

    // MARK: - Running

    /// Connects and stays connected until cancelled, handing every non-reply message to `handler`.
    ///
    /// Returns when cancelled. Throws when the client cannot work at all (an invalid name, a malformed endpoint, the
    /// daemon refusing the `HELLO`), or what `handler` throws. Runs once: afterwards every request fails with
    /// ``FlowClientError/Code/stopped``.
    func run(handler: @escaping @Sendable ([ConnectionEvent]) async throws -> Void) async throws {
        try begin()
        let loop: ZMQEventLoop
        do {
            loop = try ZMQEventLoop(
                configuration: .init(socketOptions: configuration.socketOptions, threadName: "flowd-client"),
                logger: logger
            )
        } catch {
            stop()
            throw FlowClientError(.transport, "cannot start the ZeroMQ loop: \(error)")
        }
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await self.maintainConnection(on: loop) }
                group.addTask { try await self.dispatch(to: handler) }
                group.addTask { await self.fireTimeouts() }
                defer { group.cancelAll() }
                _ = try await group.next()
            }
        } catch {
            stop()
            await loop.shutdown()
            if error is CancellationError { return }
            throw error
        }
        stop()
        await loop.shutdown()
    }

    private func begin() throws(FlowClientError) {
        guard WireProtocol.isValidName(name) else {
            stop()
            throw FlowClientError(.invalidConfiguration, "client name '\(name)' is not [A-Za-z0-9._-]{1,64}")
        }
        if let kind = serves.first(where: { !WireProtocol.isValidKind($0) }) {
            stop()
            throw FlowClientError(.invalidConfiguration, "stepper kind '\(kind)' is not [A-Za-z0-9._:-]{1,128}")
        }
        try state.withLock { state throws(FlowClientError) in try state.machine.begin() }
    }

    /// Ends the client: every waiting request fails with ``FlowClientError/Code/stopped``.
    private func stop() {
        let followUp = drive { machine in machine.stop() }
        state.withLock { state in state.sender = nil }
        events.finish()
        finish(followUp)
    }

    private func dispatch(to handler: @Sendable ([ConnectionEvent]) async throws -> Void) async throws {
        while let first = await events.next() {
            try await handler([first] + events.drain())
        }
    }

    private func maintainConnection(on loop: ZMQEventLoop) async throws {
        while !Task.isCancelled {
            let followUp = await connectOnce(on: loop)
            if case .lost(let reason, _, _) = followUp.outcome {
                logger.info("connection to flowd lost; connecting again", metadata: ["reason": "\(reason)"])
            }
            for event in followUp.events { events.push(event) }
            if let error = followUp.stopError { throw error }
            guard let delay = followUp.reconnectAfter else { return }
            if delay == .zero { continue }
            do {
                try await Task.sleep(for: delay)
            } catch {
                return
            }
        }
    }

    /// One connection, from a new socket to its end; returns what the machine decided at the end (its waiters woken
    /// already, its events not yet handed on).
    private func connectOnce(on loop: ZMQEventLoop) async -> FollowUp {
        let endpoint = configuration.endpoints.control
        let (ends, end) = AsyncStream<ConnectionEnd>.makeStream()
        defer { end.finish() }
        let current = Generation()
        let socket: ZMQSocketHandle
        do {
            // What the daemon sends is handled on the loop's thread as it is read: no task hop per message.
            socket = try await loop.makeSocket(.dealer, options: configuration.connectionSocketOptions) { received in
                guard !current.ended.load(ordering: .relaxed) else { return }
                if let outcome = self.received(received, on: current.value.load(ordering: .acquiring)) {
                    current.ended.store(true, ordering: .relaxed)
                    end.yield(.decided(outcome))
                }
            }
        } catch {
            let outcome: ConnectionOutcome =
                Task.isCancelled ? .cancelled : .fatal(FlowClientError(.transport, "cannot make a DEALER: \(error)"))
            return ended(nil, outcome)
        }
        do {
            try await loop.connect(socket, to: endpoint)
        } catch {
            await loop.close(socket)
            let error = FlowClientError(.invalidConfiguration, "cannot connect to '\(endpoint)': \(error)")
            return ended(nil, .fatal(error))
        }
        let helloReq = Self.nextRequestNumber()
        let hello = Hello(
            req: helloReq, role: role, name: name, instance: configuration.instance,
            heartbeatMs: configuration.heartbeatMilliseconds, serves: serves, adapts: adapts
        )
        let generation = state.withLock { state in
            state.sender = Sender(loop: loop, socket: socket, ends: end)
            let (generation, actions) = state.machine.connecting(helloReq: helloReq, hello: hello, at: .now)
            current.value.store(generation, ordering: .releasing)
            _ = perform(actions, on: &state)
            return generation
        }
        logger.debug("saying HELLO", metadata: ["endpoint": "\(endpoint)", "connection": "\(generation)"])

        let outcome = await withTaskGroup(of: ConnectionOutcome?.self) { group in
            group.addTask { await self.watch(ends) }
            group.addTask { await self.keepAlive(generation: generation) }
            var outcome: ConnectionOutcome?
            while outcome == nil, let next = await group.next() { outcome = next }
            group.cancelAll()
            return outcome ?? .cancelled
        }

        let followUp = ended(generation, outcome)
        if case .cancelled = outcome {
            // Said even before WELCOME: the daemon may have taken the HELLO already. Not sent when the connection
            // never completed (ZMQ_IMMEDIATE): then there is nobody to tell.
            let bye = frames(.bye)
            let said = try? await loop.withSocket(socket) { socket throws(ZMQError) in try socket.trySend(bye) }
            logger.debug("leaving", metadata: ["bye": "\(said == true ? "sent" : "not sent")"])
        }
        await loop.close(socket)
        return followUp
    }

    /// Tells the machine the connection ended (before `BYE`, so requests made meanwhile wait for the next one) and
    /// wakes the requests that failed with it.
    private func ended(_ generation: UInt64?, _ outcome: ConnectionOutcome) -> FollowUp {
        var followUp = state.withLock { state in
            if generation != nil { state.sender = nil }
            return perform(state.machine.connectionEnded(generation ?? 0, outcome), on: &state)
        }
        followUp.outcome = outcome
        for (waiter, result) in followUp.resumes { waiter.resume(returning: result) }
        followUp.resumes.removeAll()
        return followUp
    }

    /// Feeds a message the daemon sent to the machine (on the loop's thread); returns the outcome when it ends the
    /// connection.
    private func received(_ received: ZMQMessage, on generation: UInt64) -> ConnectionOutcome? {
        let now = ContinuousClock.now
        var message: DaemonMessage?
        do {
            let decoded = try codec.decode(received.frames)
            message = DaemonMessage(decoded)
            if message == nil {
                logger.warning("ignoring a message only clients send", metadata: ["type": "\(decoded.type.rawValue)"])
            }
        } catch {
            logger.warning("ignoring a message flowd sent that does not decode", metadata: ["error": "\(error)"])
        }
        return finish(drive { machine in machine.received(message, on: generation, at: now) }).outcome
    }

    /// Ends the connection when the machine decided so on a message, or a send on it failed.
    private func watch(_ ends: AsyncStream<ConnectionEnd>) async -> ConnectionOutcome? {
        for await end in ends {
            switch end {
            case .decided(let outcome):
                return outcome
            case .sendFailed(let error):
                if error.code == .cancelled { continue }
                if let outcome = finish(drive { machine in machine.sendFailed("\(error)") }).outcome { return outcome }
            }
        }
        return nil
    }

    /// Fires the machine's timer whenever it asks (heartbeats, the daemon's liveness).
    private func keepAlive(generation: UInt64) async -> ConnectionOutcome? {
        let clock = ContinuousClock()
        while true {
            let now = clock.now
            let (wake, followUp) = state.withLock { state in
                let (actions, wake) = state.machine.timerFired(on: generation, at: now)
                return (wake, perform(actions, on: &state))
            }
            finish(followUp)
            if let outcome = followUp.outcome { return outcome }
            guard let wake else { return nil }
            do {
                try await Task.sleep(until: wake, clock: clock)
            } catch {
                return nil
            }
        }
    }

    // MARK: - Requests and messages

    /// Numbers a request, registers it for its reply and queues it (for the current connection, or the next one).
    ///
    /// - Throws: ``FlowClientError/Code/stopped`` after `run` ended; ``FlowClientError/Code/notConnected`` with
    ///   ``DisconnectedPolicy/fail`` when no connection is welcomed.
    func submit(
        policy: DisconnectedPolicy = .wait,
        _ make: (UInt64) -> ClientMessage
    ) throws(FlowClientError) -> RequestTicket {
        try state.withLock { state throws(FlowClientError) in
            let req = Self.nextRequestNumber()
            let message = make(req)
            let actions = try state.machine.submit(message, req: req, policy: policy)
            _ = perform(actions, on: &state)  // only sends
            return RequestTicket(req: req, type: message.type)
        }
    }

    /// Fires the requests' timeouts (see ``reply(to:timeout:)``) while the client runs.
    private func fireTimeouts() async {
        await timeouts.run { req, deadline, now in
            // The waiting task ends with the reply or the expiry (both under the lock: never both).
            let (wake, followUp) = state.withLock { state in
                let (actions, wake) = state.machine.timeoutFired(
                    req, after: deadline.timeout, due: deadline.due, at: now, extended: deadline.extended)
                return (wake, perform(actions, on: &state))
            }
            finish(followUp)
            return wake
        }
    }

    /// Waits for the reply to a submitted request.
    ///
    /// When the timeout runs out (time this process did not run counts as in ``ConnectionMachine/timeoutFired``) the
    /// request is given up: taken out of the queue if it waits for a connection (it is
    /// never sent afterwards), and a reply that comes later is ignored.
    ///
    /// - Parameter timeout: how long to wait; `nil` uses ``FlowClientConfiguration/requestTimeout``.
    /// - Returns: the `OK` result.
    /// - Throws: ``DaemonError`` for an `ERROR` reply; ``FlowClientError`` (`timedOut`, `connectionLost`, `stopped`;
    ///   `notDelivered` for a ``DisconnectedPolicy/resend`` request that timed out before any daemon run could have
    ///   carried it out, or that the daemon run it was sent to lost with its state); `CancellationError` when the
    ///   task is cancelled.
    func reply(to ticket: RequestTicket, timeout: Duration? = nil) async throws -> JSONValue {
        guard let timeout = timeout ?? configuration.requestTimeout else { return try await waitForReply(ticket.req) }
        // While the client runs, one task fires every request's timeout; before (or after) it, the request times
        // itself.
        if timeouts.schedule(ticket.req, timeout: timeout, due: ContinuousClock.now + timeout) {
            defer { timeouts.cancel(ticket.req) }
            return try await waitForReply(ticket.req)
        }
        return try await withThrowingTaskGroup(of: JSONValue?.self) { group in
            group.addTask { try await self.waitForReply(ticket.req) }
            group.addTask {
                let clock = ContinuousClock()
                var due = clock.now + timeout
                var extended = false
                while true {
                    try await Task.sleep(until: due, clock: clock)
                    let now = clock.now
                    // The waiting task ends with the reply or the expiry (both under the lock: never both).
                    let (wake, followUp) = self.state.withLock { [due, extended] state in
                        let (actions, wake) = state.machine.timeoutFired(
                            ticket.req, after: timeout, due: due, at: now, extended: extended)
                        return (wake, self.perform(actions, on: &state))
                    }
                    self.finish(followUp)
                    guard let wake else { return nil }
                    (due, extended) = (wake, true)
                }
            }
            defer { group.cancelAll() }
            while let next = try await group.next() {
                if let result = next { return result }
            }
            throw CancellationError()
        }
    }

    /// Submits a request and waits for its reply (see ``submit(policy:_:)`` and ``reply(to:timeout:)``).
    func request(policy: DisconnectedPolicy = .wait, _ make: (UInt64) -> ClientMessage) async throws -> JSONValue {
        try await reply(to: try submit(policy: policy, make))
    }

    /// Sends a message that gets no reply (`ACK`, `HEARTBEAT`) on the current connection.
    ///
    /// - Returns: `false` when no connection is welcomed (the message is dropped).
    @discardableResult
    func send(_ message: ClientMessage) -> Bool {
        state.withLock { state in
            guard state.machine.send(message) != nil else { return false }
            state.sender?.send(frames(message))
            return true
        }
    }

    private func waitForReply(_ req: UInt64) async throws -> JSONValue {
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: Waiter) in
                let ready = state.withLock { state -> Result<JSONValue, any Error>? in
                    if let result = state.results.removeValue(forKey: req) { return result }
                    guard state.machine.isPending(req) else {
                        return .failure(Task.isCancelled ? CancellationError() : ConnectionMachine.stopped)
                    }
                    if Task.isCancelled {
                        state.machine.forget(req)
                        return .failure(CancellationError())
                    }
                    state.waiters[req] = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let waiter = state.waiters.removeValue(forKey: req) else { return nil }
                state.machine.forget(req)
                return waiter
            }
            waiter?.resume(returning: .failure(CancellationError()))
        }
        return try result.get()
    }

    private func frames(_ message: ClientMessage) -> ZMQMessage {
        ZMQMessage(codec.encode(message.wire))
    }
}
