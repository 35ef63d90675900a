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
/// The client built on it gets the non-reply messages as batches of ``ConnectionEvent``, in order and one batch at a
/// time: ``run(handler:)`` hands them to a task of their own (the handler may await requests, whose replies are read
/// meanwhile); ``run(inline:)`` calls its handler on the thread that made them (the loop's for a message), which must
/// not block and awaits nothing (its requests' replies come to a callback, ``submit(policy:timeout:_:onReply:)``).
///
/// ## Requests
/// ``submit(policy:_:)`` numbers a request and queues it without waiting (so a caller holding its own lock decides the
/// order of its messages); ``reply(to:timeout:)`` waits for the `OK` result (or a callback given to
/// ``submit(policy:timeout:_:onReply:)`` gets it), throws a ``DaemonError`` for an `ERROR`, and a
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
    let state: Mutex<State>
    private let events = EventQueue<ConnectionEvent>()
    let timeouts = RequestTimeouts()

    typealias Continuation = CheckedContinuation<Result<JSONValue, any Error>, Never>

    /// What a request's outcome goes to: a waiting task, or a callback.
    enum Waiter {
        case task(Continuation)
        case callback(@Sendable (_ req: UInt64, Result<JSONValue, any Error>) -> Void)
    }

    struct State {
        var machine: ConnectionMachine
        /// Where the current connection's messages go.
        var sender: Sender?
        var waiters: [UInt64: Waiter] = [:]
        /// Results that came before anybody waited for them.
        var results: [UInt64: Result<JSONValue, any Error>] = [:]
        /// Where events go (set by `run`), the events not handed to it yet, and whether a thread is handing them.
        var sink: (@Sendable ([ConnectionEvent]) -> Void)?
        var undelivered: [ConnectionEvent] = []
        var delivering = false
    }

    /// The current connection's socket: messages are handed to its loop as they are made, under the lock, so they
    /// leave in the order the machine decided, with no task of their own; a failed send ends the connection.
    struct Sender {
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
    enum ConnectionEnd: Sendable {
        case sendFailed(ZMQError)
        case decided(ConnectionOutcome)
    }

    /// The generation of the connection a socket serves, set before its `HELLO` leaves (its messages come after), and
    /// whether the machine ended it already (what the socket still reads is then left unread, as the connection is).
    private final class Generation: Sendable {
        let value = Atomic<UInt64>(0)
        let ended = Atomic<Bool>(false)
    }

    /// What is left to do outside the lock after the machine's actions (its events wait in `State.undelivered`).
    struct FollowUp {
        var resumes: [(req: UInt64, waiter: Waiter, result: Result<JSONValue, any Error>)] = []
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
    static func nextRequestNumber() -> UInt64 {
        requestNumbers.wrappingAdd(1, ordering: .relaxed).oldValue
    }

    /// The `WELCOME` of the current connection, if one is welcomed.
    var welcome: Welcome? { state.withLock { $0.machine.welcome } }

    /// Carries out the machine's actions under the lock: sends right away (so they keep the order the machine
    /// decided), the rest collected for ``finish(_:)`` outside the lock.
    func perform(_ actions: [ConnectionAction], on state: inout State) -> FollowUp {
        var followUp = FollowUp()
        for action in actions {
            switch action {
            case .send(let message): state.sender?.send(frames(message))
            case .deliver(let event): state.undelivered.append(event)
            case .complete(let req, let result):
                if let waiter = state.waiters.removeValue(forKey: req) {
                    followUp.resumes.append((req, waiter, result))
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
    func drive(_ input: (inout ConnectionMachine) -> [ConnectionAction]) -> FollowUp {
        state.withLock { state in perform(input(&state.machine), on: &state) }
    }

    /// Wakes the waiters and hands the events on, outside the lock.
    @discardableResult
    func finish(_ followUp: FollowUp) -> FollowUp {
        resume(followUp.resumes)
        deliverPending()
        return followUp
    }

    /// Hands each waiter its request's outcome (a callback's request no longer needs its timeout).
    private func resume(_ resumes: [(req: UInt64, waiter: Waiter, result: Result<JSONValue, any Error>)]) {
        for (req, waiter, result) in resumes {
            switch waiter {
            case .task(let continuation):
                continuation.resume(returning: result)
            case .callback(let callback):
                timeouts.cancel(req)
                callback(req, result)
            }
        }
    }

    /// Hands the undelivered events to the sink, in order, outside the lock and one batch at a time: the thread that
    /// finds them waiting and nobody handing them on hands them (and what comes meanwhile), the others leave it so.
    private func deliverPending() {
        let sink = state.withLock { state -> (@Sendable ([ConnectionEvent]) -> Void)? in
            guard !state.delivering, !state.undelivered.isEmpty, let sink = state.sink else { return nil }
            state.delivering = true
            return sink
        }
        guard let sink else { return }
        while let batch = state.withLock({ state -> [ConnectionEvent]? in
            guard !state.undelivered.isEmpty else {
                state.delivering = false
                return nil
            }
            defer { state.undelivered.removeAll() }
            return state.undelivered
        }) {
            sink(batch)
        }
    }

    // MARK: - Running

    /// Connects and stays connected until cancelled, handing every non-reply message to `handler` on a task of its
    /// own.
    ///
    /// Returns when cancelled. Throws when the client cannot work at all (an invalid name, a malformed endpoint, the
    /// daemon refusing the `HELLO`), or what `handler` throws. Runs once: afterwards every request fails with
    /// ``FlowClientError/Code/stopped``.
    func run(handler: @escaping @Sendable ([ConnectionEvent]) async throws -> Void) async throws {
        try await run(sink: { [events] batch in for event in batch { events.push(event) } }) {
            try await self.dispatch(to: handler)
        }
    }

    /// As ``run(handler:)``, but `handler` is called on the thread that made the events (the loop's thread for a
    /// message), one batch at a time, in order: it must not block.
    func run(inline handler: @escaping @Sendable ([ConnectionEvent]) -> Void) async throws {
        try await run(sink: handler, beside: nil)
    }

    private func run(
        sink: @escaping @Sendable ([ConnectionEvent]) -> Void,
        beside: (@Sendable () async throws -> Void)?
    ) async throws {
        try begin()
        state.withLock { $0.sink = sink }
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
                if let beside { group.addTask { try await beside() } }
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
            deliverPending()
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
    /// already, its events waiting to be handed on).
    private func connectOnce(on loop: ZMQEventLoop) async -> FollowUp {
        let endpoint = configuration.endpoints.control
        if let error = FlowClientError.untrustedSocketFolder(endpoint, options: configuration.connectionSocketOptions) {
            return ended(nil, .fatal(error))
        }
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
        resume(followUp.resumes)
        followUp.resumes.removeAll()
        return followUp
    }

    /// Feeds a message the daemon sent to the machine (on the loop's thread); returns the outcome when it ends the
    /// connection.
    private func received(_ received: ZMQMessage, on generation: UInt64) -> ConnectionOutcome? {
        let now = ContinuousClock.now
        var message: DaemonMessage?
        do {
            let decoded = try codec.decode(received.frames, from: .daemon)
            if case .daemon(let sent) = decoded {
                message = sent
            } else {
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

    func frames(_ message: ClientMessage) -> ZMQMessage {
        ZMQMessage(codec.encode(message))
    }
}
