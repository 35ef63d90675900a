import FlowCore
import FlowWire
import Logging
import Synchronization
import ZeroMQ

/// What a connection tells the client built on it, in the order it happened.
enum ConnectionEvent: Sendable {
    /// `WELCOME` arrived on a new connection; `daemonChanged` when the daemon's run ID differs from the one the
    /// previous connection saw (the daemon restarted and forgot everything).
    case connected(Welcome, daemonChanged: Bool)
    /// A message from the daemon that is not a reply (`ATTACH`, `COMMAND`, `HEARTBEAT`, an unattributed `ERROR`…).
    case message(WireMessage)
    /// The connection ended, for `reason`; a new one follows unless the client is stopping.
    case disconnected(reason: String)
}

/// What a request does when there is no welcomed connection at the moment it is made.
enum DisconnectedPolicy: Sendable {
    /// Wait for the next connection and go out right after its `HELLO`/`WELCOME`.
    case wait
    /// Fail at once with ``FlowClientError/Code/notConnected``.
    case fail
    /// Like ``wait``, and kept when the connection is lost after sending (for `STEP`, which the daemon de-duplicates
    /// by `HELLO.instance` and `req`, `docs/PROTOCOL.md` §5.3): sent again, with the same `req`, after the next
    /// `WELCOME` of the same daemon run; failed with ``FlowClientError/Code/notDelivered`` when the `WELCOME` names
    /// another run (that daemon lost its state). A timeout fails it with `notDelivered` when it was never handed to a
    /// daemon that may have carried it out, else with `timedOut`.
    case resend
}

/// A request handed to the connection, whose reply can be awaited.
struct RequestTicket: Sendable {
    let req: UInt64
    let type: MessageType
}

/// The connection core every client shares: one `DEALER` to the daemon's control endpoint, the `HELLO`/`WELCOME`
/// handshake, request/reply correlation by `req`, heartbeats, daemon liveness and reconnection, and `BYE`.
///
/// ## How it runs
/// ``run(handler:)`` makes a ``ZMQEventLoop`` (its own I/O thread) and, until cancelled, keeps one connection alive:
/// a new `DEALER` (bounded linger, `ZMQ_IMMEDIATE`), `HELLO` first, then, once `WELCOME` arrives, requests and
/// heartbeats. Three child tasks serve each connection: a reader (replies to their requests, everything else to the
/// handler), a writer (the only sender, so messages leave in the order they were submitted) and a timer (heartbeats
/// every interval, and the liveness check). When the daemon stays silent for
/// ``FlowClientConfiguration/livenessIntervals`` of its own heartbeat intervals, or `WELCOME` does not come, or the
/// daemon answers `notWelcome` (it forgot this connection), the socket is closed and a new one says `HELLO` again.
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
/// `Sendable`: the mutable state is behind one mutex; sockets belong to the loop's thread.
final class FlowConnection: Sendable {
    let role: PeerRole
    let name: String
    let serves: [String]
    let configuration: FlowClientConfiguration
    let logger: Logger
    private let codec: WireCodec
    private let state: Mutex<State>
    private let events = EventQueue<ConnectionEvent>()

    private enum Phase {
        case idle
        case running
        case stopped
    }

    private struct Link {
        let generation: UInt64
        let outbox: AsyncStream<ZMQMessage>.Continuation
        let welcome: Welcome
    }

    private struct Pending {
        let message: WireMessage
        let policy: DisconnectedPolicy
        /// The connection it was handed to; `nil` while queued for the next one.
        var sentOn: UInt64?
        /// The daemon run (`WELCOME.daemon`) that may have carried it out: the one it was first handed to and that
        /// did not refuse it with `notWelcome`. A resent request goes only to this run.
        var mayBeAppliedBy: String?
        /// ``mayBeAppliedBy`` before the last sending, restored when the daemon refuses that sending (`notWelcome`).
        var mayBeAppliedByBeforeSending: String?
        var waiter: CheckedContinuation<Result<JSONValue, any Error>, Never>?
        var result: Result<JSONValue, any Error>?
    }

    private struct State {
        var phase = Phase.idle
        var pending: [UInt64: Pending] = [:]
        /// Requests waiting for a welcomed connection, in `req` order.
        var queued: [UInt64] = []
        var link: Link?
        var generation: UInt64 = 0
        var lastHeard = ContinuousClock.now
        var daemon: String?
    }

    /// How one connection ended.
    private enum Outcome {
        /// `run` was cancelled.
        case cancelled
        /// Start again with a new socket; `retryFrom`: requests from this number on got `notWelcome`.
        case lost(String, welcomed: Bool, retryFrom: UInt64?)
        /// Give up: `run` throws this.
        case fatal(any Error)
    }

    init(role: PeerRole, name: String, serves: [String] = [], configuration: FlowClientConfiguration) {
        self.role = role
        self.name = name
        self.serves = serves
        self.configuration = configuration
        self.codec = WireCodec(decodingWhatFits: configuration.connectionSocketOptions)
        var logger = configuration.logger
        logger[metadataKey: "flowd.role"] = "\(role.rawValue)"
        logger[metadataKey: "flowd.client"] = "\(name)"
        self.logger = logger
        self.state = Mutex(State())
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
    var welcome: Welcome? { state.withLock { $0.link?.welcome } }

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
        try state.withLock { state throws(FlowClientError) in
            guard state.phase == .idle else {
                throw FlowClientError(.invalidConfiguration, "run() was called already; a client runs once")
            }
            state.phase = .running
        }
    }

    /// Ends the client: every waiting request fails with ``FlowClientError/Code/stopped``.
    private func stop() {
        let waiters = state.withLock { state -> [CheckedContinuation<Result<JSONValue, any Error>, Never>] in
            state.phase = .stopped
            state.link?.outbox.finish()
            state.link = nil
            state.queued.removeAll()
            var waiters: [CheckedContinuation<Result<JSONValue, any Error>, Never>] = []
            for (req, entry) in state.pending {
                if let waiter = entry.waiter {
                    waiters.append(waiter)
                    state.pending[req] = nil
                } else if entry.result == nil {
                    state.pending[req]?.result = .failure(Self.stopped)
                }
            }
            return waiters
        }
        events.finish()
        for waiter in waiters { waiter.resume(returning: .failure(Self.stopped)) }
    }

    private static let stopped = FlowClientError(.stopped, "the client is not running")

    private func dispatch(to handler: @Sendable ([ConnectionEvent]) async throws -> Void) async throws {
        while let first = await events.next() {
            try await handler([first] + events.drain())
        }
    }

    private func maintainConnection(on loop: ZMQEventLoop) async throws {
        var failures = 0
        while !Task.isCancelled {
            switch await connectOnce(on: loop) {
            case .cancelled:
                return
            case .fatal(let error):
                throw error
            case .lost(let reason, let welcomed, let retryFrom):
                logger.info("connection to flowd lost; connecting again", metadata: ["reason": "\(reason)"])
                events.push(.disconnected(reason: reason))
                if retryFrom != nil { continue }  // the daemon is there and answers: say HELLO again at once
                failures = welcomed ? 0 : failures + 1
                var delay = configuration.reconnectDelay
                for _ in 0..<min(failures, 16) where delay < configuration.maximumReconnectDelay { delay *= 2 }
                do {
                    try await Task.sleep(for: min(delay, configuration.maximumReconnectDelay))
                } catch {
                    return
                }
            }
        }
    }

    private func connectOnce(on loop: ZMQEventLoop) async -> Outcome {
        let endpoint = configuration.endpoints.control
        let socket: ZMQSocketHandle
        do {
            socket = try await loop.makeSocket(.dealer, options: configuration.connectionSocketOptions)
        } catch {
            return Task.isCancelled ? .cancelled : .fatal(FlowClientError(.transport, "cannot make a DEALER: \(error)"))
        }
        do {
            try await loop.connect(socket, to: endpoint)
        } catch {
            await loop.close(socket)
            return .fatal(FlowClientError(.invalidConfiguration, "cannot connect to '\(endpoint)': \(error)"))
        }
        let (outbox, continuation) = AsyncStream<ZMQMessage>.makeStream()
        let (generation, helloReq) = state.withLock { state in
            state.generation += 1
            state.lastHeard = .now
            return (state.generation, Self.nextRequestNumber())
        }
        let hello = Hello(
            req: helloReq, role: role, name: name, instance: configuration.instance,
            heartbeatMs: configuration.heartbeatMilliseconds, serves: serves
        )
        continuation.yield(frames(.hello(hello)))
        logger.debug("saying HELLO", metadata: ["endpoint": "\(endpoint)", "connection": "\(generation)"])

        let outcome = await withTaskGroup(of: Outcome?.self) { group in
            group.addTask {
                await self.read(socket, generation: generation, helloReq: helloReq, outbox: continuation)
            }
            group.addTask { await self.write(outbox, to: socket, on: loop) }
            group.addTask { await self.keepAlive(generation: generation) }
            var outcome: Outcome?
            while outcome == nil, let next = await group.next() { outcome = next }
            group.cancelAll()
            return outcome ?? .cancelled
        }

        endConnection(generation, outbox: continuation, outcome: outcome)
        if case .cancelled = outcome {
            // Said even before WELCOME: the daemon may have taken the HELLO already. Not sent when the connection
            // never completed (ZMQ_IMMEDIATE): then there is nobody to tell.
            let bye = frames(.bye)
            let said = try? await loop.withSocket(socket) { socket throws(ZMQError) in try socket.trySend(bye) }
            logger.debug("leaving", metadata: ["bye": "\(said == true ? "sent" : "not sent")"])
        }
        await loop.close(socket)
        return outcome
    }

    /// Reads the daemon's messages: `WELCOME`, replies, and the rest for the handler.
    private func read(
        _ socket: ZMQSocketHandle,
        generation: UInt64,
        helloReq: UInt64,
        outbox: AsyncStream<ZMQMessage>.Continuation
    ) async -> Outcome? {
        for await received in socket.messages {
            state.withLock { $0.lastHeard = .now }
            let message: WireMessage
            do {
                message = try codec.decode(received.frames)
            } catch {
                logger.warning("ignoring a message flowd sent that does not decode", metadata: ["error": "\(error)"])
                continue
            }
            switch message {
            case .welcome(let welcome):
                guard welcome.req == helloReq else {
                    logger.debug("ignoring a WELCOME for another HELLO", metadata: ["req": "\(welcome.req)"])
                    continue
                }
                welcomed(welcome, generation: generation, outbox: outbox)
            case .ok(let reply):
                resolve(reply.req, with: .success(reply.result))
            case .error(let reply):
                if reply.code == .notWelcome {
                    // The daemon handled nothing from the refused request on: send those again. Without a `req`,
                    // send none again (some may have been handled).
                    let retryFrom = reply.req ?? .max
                    return .lost(
                        "flowd does not know this connection (notWelcome)", welcomed: true, retryFrom: retryFrom)
                }
                if reply.req == helloReq || reply.code == .replaced {
                    // Refused, or another connection of this name took over (docs/PROTOCOL.md §3): stop, as
                    // saying HELLO again would take it back and the two would flap.
                    return .fatal(DaemonError(reply))
                }
                if let req = reply.req, resolve(req, with: .failure(DaemonError(reply))) { continue }
                logger.warning(
                    "flowd reported an error", metadata: ["code": "\(reply.code)", "message": "\(reply.message)"]
                )
                events.push(.message(message))
            default:
                events.push(.message(message))
            }
        }
        return nil
    }

    /// Sends what is submitted, in order; the only task that sends on the socket (but `BYE`).
    private func write(
        _ outbox: AsyncStream<ZMQMessage>, to socket: ZMQSocketHandle, on loop: ZMQEventLoop
    ) async
        -> Outcome?
    {
        for await message in outbox {
            do {
                try await loop.send(message, on: socket)
            } catch {
                if Task.isCancelled || error.code == .cancelled { return nil }
                return .lost("send failed: \(error)", welcomed: false, retryFrom: nil)
            }
        }
        return nil
    }

    /// Sends heartbeats every interval once welcomed, and ends the connection when the daemon is silent too long.
    private func keepAlive(generation: UInt64) async -> Outcome? {
        let clock = ContinuousClock()
        let interval = Duration.milliseconds(configuration.heartbeatMilliseconds)
        let liveness = max(1, configuration.livenessIntervals)
        let handshakeTimeout = configuration.handshakeTimeout ?? interval * liveness
        var nextBeat: ContinuousClock.Instant?
        while true {
            let (welcome, lastHeard) = state.withLock { state in
                (state.link?.generation == generation ? state.link?.welcome : nil, state.lastHeard)
            }
            let now = clock.now
            let limit =
                welcome.map { configuration.livenessWindow(daemonHeartbeatMs: $0.heartbeatMs) } ?? handshakeTimeout
            if now - lastHeard >= limit {
                let reason = welcome == nil ? "no WELCOME within \(limit)" : "flowd silent for \(limit)"
                return .lost(reason, welcomed: welcome != nil, retryFrom: nil)
            }
            // Until WELCOME, look again every half interval, so the first heartbeat is not late.
            var wake = min(lastHeard + limit, now + interval / 2)
            if welcome != nil {
                wake = lastHeard + limit
                let due = nextBeat ?? now + interval
                if now >= due {
                    send(.heartbeat(Heartbeat()))
                    nextBeat = now + interval
                } else {
                    nextBeat = due
                }
                wake = min(wake, nextBeat!)
            }
            do {
                try await Task.sleep(until: wake, clock: clock)
            } catch {
                return nil
            }
        }
    }

    private func welcomed(_ welcome: Welcome, generation: UInt64, outbox: AsyncStream<ZMQMessage>.Continuation) {
        var undelivered: [(CheckedContinuation<Result<JSONValue, any Error>, Never>, FlowClientError)] = []
        let event = state.withLock { state -> ConnectionEvent in
            let changed = state.daemon != nil && state.daemon != welcome.daemon
            state.daemon = welcome.daemon
            state.link = Link(generation: generation, outbox: outbox, welcome: welcome)
            for req in state.queued {
                guard var entry = state.pending[req] else { continue }
                if let earlier = entry.mayBeAppliedBy, earlier != welcome.daemon {
                    // Sent to a daemon run that is gone with its state: whatever it did with it is gone too.
                    let error = FlowClientError(
                        .notDelivered,
                        "flowd restarted without its state (run \(earlier) is now \(welcome.daemon)): "
                            + "\(entry.message.type.rawValue) was not delivered"
                    )
                    if let waiter = entry.waiter {
                        undelivered.append((waiter, error))
                        state.pending[req] = nil
                    } else {
                        state.pending[req]?.result = .failure(error)
                    }
                    continue
                }
                entry.sentOn = generation
                entry.mayBeAppliedByBeforeSending = entry.mayBeAppliedBy
                entry.mayBeAppliedBy = entry.mayBeAppliedBy ?? welcome.daemon
                state.pending[req] = entry
                outbox.yield(frames(entry.message))
            }
            state.queued.removeAll()
            return .connected(welcome, daemonChanged: changed)
        }
        for (waiter, error) in undelivered {
            logger.warning("a request was not delivered", metadata: ["error": "\(error)"])
            waiter.resume(returning: .failure(error))
        }
        logger.info(
            "connected to flowd",
            metadata: [
                "peer": "\(welcome.peer)", "daemon": "\(welcome.daemon)", "heartbeat_ms": "\(welcome.heartbeatMs)",
            ]
        )
        events.push(event)
    }

    /// Forgets the connection: requests sent on it fail with ``FlowClientError/Code/connectionLost``, or are queued
    /// again when the daemon refused them with `notWelcome` or their policy is ``DisconnectedPolicy/resend``.
    private func endConnection(
        _ generation: UInt64,
        outbox: AsyncStream<ZMQMessage>.Continuation,
        outcome: Outcome
    ) {
        var retryFrom: UInt64?
        if case .lost(_, _, let from) = outcome { retryFrom = from }
        let lost = FlowClientError(.connectionLost, "the connection to flowd was lost before the reply came")
        let waiters = state.withLock { state in
            if state.link?.generation == generation { state.link = nil }
            outbox.finish()
            var waiters: [CheckedContinuation<Result<JSONValue, any Error>, Never>] = []
            for (req, entry) in state.pending where entry.sentOn == generation && entry.result == nil {
                let refused = retryFrom.map { req >= $0 } ?? false
                if state.phase == .running, entry.policy == .resend || (refused && entry.policy == .wait) {
                    state.pending[req]?.sentOn = nil
                    if refused { state.pending[req]?.mayBeAppliedBy = entry.mayBeAppliedByBeforeSending }
                    state.queued.append(req)
                } else if let waiter = entry.waiter {
                    waiters.append(waiter)
                    state.pending[req] = nil
                } else {
                    state.pending[req]?.result = .failure(lost)
                }
            }
            state.queued.sort()
            return waiters
        }
        for waiter in waiters { waiter.resume(returning: .failure(lost)) }
    }

    // MARK: - Requests and messages

    /// Numbers a request, registers it for its reply and queues it (for the current connection, or the next one).
    ///
    /// - Throws: ``FlowClientError/Code/stopped`` after `run` ended; ``FlowClientError/Code/notConnected`` with
    ///   ``DisconnectedPolicy/fail`` when no connection is welcomed.
    func submit(
        policy: DisconnectedPolicy = .wait,
        _ make: (UInt64) -> WireMessage
    ) throws(FlowClientError) -> RequestTicket {
        try state.withLock { state throws(FlowClientError) in
            guard state.phase != .stopped else { throw Self.stopped }
            let req = Self.nextRequestNumber()
            let message = make(req)
            if state.link == nil, policy == .fail {
                throw FlowClientError(.notConnected, "not connected to flowd: \(message.type.rawValue) not sent")
            }
            if let link = state.link {
                state.pending[req] = Pending(
                    message: message, policy: policy, sentOn: link.generation, mayBeAppliedBy: link.welcome.daemon)
                link.outbox.yield(frames(message))
            } else {
                state.pending[req] = Pending(message: message, policy: policy, sentOn: nil)
                state.queued.append(req)
            }
            return RequestTicket(req: req, type: message.type)
        }
    }

    /// Waits for the reply to a submitted request.
    ///
    /// When the timeout runs out the request is given up: taken out of the queue if it waits for a connection (it is
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
        return try await withThrowingTaskGroup(of: JSONValue?.self) { group in
            group.addTask { try await self.waitForReply(ticket.req) }
            group.addTask {
                try await Task.sleep(for: timeout)
                self.expire(ticket, after: timeout)  // the waiting task now ends with the reply or the expiry
                return nil
            }
            defer { group.cancelAll() }
            while let next = try await group.next() {
                if let result = next { return result }
            }
            throw CancellationError()
        }
    }

    /// Gives a request up when its timeout ran out before its reply (under the lock, so a reply and the expiry never
    /// both count): ``FlowClientError/Code/notDelivered`` for a ``DisconnectedPolicy/resend`` request no daemon run
    /// may have carried out, ``FlowClientError/Code/timedOut`` otherwise.
    private func expire(_ ticket: RequestTicket, after timeout: Duration) {
        let req = ticket.req
        let expired = state.withLock {
            state -> (CheckedContinuation<Result<JSONValue, any Error>, Never>?, FlowClientError)? in
            guard let entry = state.pending[req], entry.result == nil else { return nil }
            let error: FlowClientError
            if entry.policy == .resend, entry.sentOn == nil, entry.mayBeAppliedBy == nil {
                error = FlowClientError(
                    .notDelivered,
                    "no connection to flowd within \(timeout): \(ticket.type.rawValue) was not delivered")
            } else if entry.policy == .resend {
                error = FlowClientError(
                    .timedOut,
                    "flowd did not answer \(ticket.type.rawValue) within \(timeout): "
                        + "it may or may not have been carried out (at most once)")
            } else {
                error = FlowClientError(.timedOut, "flowd did not answer \(ticket.type.rawValue) within \(timeout)")
            }
            state.queued.removeAll { $0 == req }
            if let waiter = entry.waiter {
                state.pending[req] = nil
                return (waiter, error)
            }
            state.pending[req]?.result = .failure(error)
            return (nil, error)
        }
        guard let (waiter, error) = expired else { return }
        waiter?.resume(returning: .failure(error))
    }

    /// Submits a request and waits for its reply (see ``submit(policy:_:)`` and ``reply(to:timeout:)``).
    func request(policy: DisconnectedPolicy = .wait, _ make: (UInt64) -> WireMessage) async throws -> JSONValue {
        try await reply(to: try submit(policy: policy, make))
    }

    /// Sends a message that gets no reply (`ACK`, `HEARTBEAT`) on the current connection.
    ///
    /// - Returns: `false` when no connection is welcomed (the message is dropped).
    @discardableResult
    func send(_ message: WireMessage) -> Bool {
        state.withLock { state in
            guard let link = state.link else { return false }
            link.outbox.yield(frames(message))
            return true
        }
    }

    private func waitForReply(_ req: UInt64) async throws -> JSONValue {
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<JSONValue, any Error>, Never>) in
                let ready = state.withLock { state -> Result<JSONValue, any Error>? in
                    guard let entry = state.pending[req] else {
                        return .failure(Task.isCancelled ? CancellationError() : Self.stopped)
                    }
                    if let result = entry.result {
                        state.pending[req] = nil
                        return result
                    }
                    if Task.isCancelled {
                        state.pending[req] = nil
                        state.queued.removeAll { $0 == req }
                        return .failure(CancellationError())
                    }
                    state.pending[req]?.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Result<JSONValue, any Error>, Never>? in
                guard let entry = state.pending[req] else { return nil }
                guard let waiter = entry.waiter else { return nil }  // the body sees the cancellation itself
                state.pending[req] = nil
                state.queued.removeAll { $0 == req }
                return waiter
            }
            waiter?.resume(returning: .failure(CancellationError()))
        }
        return try result.get()
    }

    /// Hands a reply to its request.
    ///
    /// - Returns: whether a request was waiting for it.
    @discardableResult
    private func resolve(_ req: UInt64, with result: Result<JSONValue, any Error>) -> Bool {
        let (known, waiter) = state.withLock {
            state -> (Bool, CheckedContinuation<Result<JSONValue, any Error>, Never>?) in
            guard let entry = state.pending[req], entry.result == nil else { return (false, nil) }
            if let waiter = entry.waiter {
                state.pending[req] = nil
                return (true, waiter)
            }
            state.pending[req]?.result = result
            return (true, nil)
        }
        if !known { logger.debug("ignoring a reply to no waiting request", metadata: ["req": "\(req)"]) }
        waiter?.resume(returning: result)
        return known
    }

    private func frames(_ message: WireMessage) -> ZMQMessage {
        ZMQMessage(codec.encode(message))
    }
}
