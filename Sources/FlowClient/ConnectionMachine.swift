import FlowCore
import FlowWire
import Logging

/// How one connection ended.
enum ConnectionOutcome: Sendable {
    /// `run` was cancelled.
    case cancelled
    /// Start again with a new socket; `retryFrom`: requests from this number on got `notWelcome`.
    case lost(String, welcomed: Bool, retryFrom: UInt64?)
    /// Give up: `run` throws this.
    case fatal(any Error)
}

/// What ``ConnectionMachine`` asks its shell to do, in order.
enum ConnectionAction: Sendable {
    /// Send this on the current connection (in order with every other `send`).
    case send(ClientMessage)
    /// Hand this to the client's handler.
    case deliver(ConnectionEvent)
    /// The request `req` is done: hand this to whoever waits for it.
    case complete(req: UInt64, Result<JSONValue, any Error>)
    /// End the current connection this way.
    case end(ConnectionOutcome)
    /// Say `HELLO` again on a new connection after this long (`.zero`: at once).
    case reconnect(after: Duration)
    /// Stop the client: `run` throws this.
    case stop(any Error)
}

/// The connection's logic without I/O: the `HELLO`/`WELCOME` handshake, request bookkeeping (queueing, resending,
/// timeouts), heartbeats, the daemon's liveness and the reconnection delay. It takes inputs (a connection started, a
/// message received, the timer fired at an instant, a send failed, a connection ended, a request submitted or given
/// up) and returns ``ConnectionAction``s; ``FlowConnection`` carries them out. Time comes in with every input, so
/// tests drive it with instants of their own and never wait.
///
/// `Sendable`: a value type; the shell keeps it behind its mutex.
struct ConnectionMachine: Sendable {
    /// The timing the machine needs from ``FlowClientConfiguration``.
    struct Timing: Sendable {
        var heartbeat: Duration
        var livenessIntervals: Int
        var handshakeTimeout: Duration
        var reconnectDelay: Duration
        var maximumReconnectDelay: Duration

        init(_ configuration: FlowClientConfiguration) {
            heartbeat = .milliseconds(configuration.heartbeatMilliseconds)
            livenessIntervals = max(1, configuration.livenessIntervals)
            handshakeTimeout = configuration.handshakeTimeout ?? heartbeat * livenessIntervals
            reconnectDelay = configuration.reconnectDelay
            maximumReconnectDelay = configuration.maximumReconnectDelay
        }
    }

    enum Phase: Sendable {
        case idle
        case running
        case stopped
    }

    private struct Request {
        let message: ClientMessage
        let policy: DisconnectedPolicy
        /// The connection it was handed to; `nil` while queued for the next one.
        var sentOn: UInt64?
        /// The daemon run (`WELCOME.daemon`) that may have carried it out: the one it was first handed to and that
        /// did not refuse it with `notWelcome`. A resent request goes only to this run.
        var mayBeAppliedBy: String?
        /// ``mayBeAppliedBy`` before the last sending, restored when the daemon refuses that sending (`notWelcome`).
        var mayBeAppliedByBeforeSending: String?
    }

    /// The connection being made or in use.
    private struct Link {
        let generation: UInt64
        let helloReq: UInt64
        var welcome: Welcome?
        var lastHeard: ContinuousClock.Instant
        /// When the next heartbeat is due; set by the first tick after `WELCOME`.
        var nextBeat: ContinuousClock.Instant?
        /// When the timer was asked to fire next: a firing much later shows the process did not run meanwhile.
        var due: ContinuousClock.Instant?
        /// The daemon's silence is not judged before this: after a stall the client listens first.
        var listenUntil: ContinuousClock.Instant?
    }

    let timing: Timing
    let logger: Logger
    private(set) var phase = Phase.idle
    private var requests: [UInt64: Request] = [:]
    /// Requests waiting for a welcomed connection, in `req` order.
    private var queued: [UInt64] = []
    private var link: Link?
    private var generation: UInt64 = 0
    private var daemon: String?
    /// Connections in a row that ended without a `WELCOME`: the reconnection delay doubles with each.
    private var failures = 0

    init(timing: Timing, logger: Logger) {
        self.timing = timing
        self.logger = logger
    }

    static let stopped = FlowClientError(.stopped, "the client is not running")

    /// The `WELCOME` of the current connection, if one is welcomed.
    var welcome: Welcome? { link?.welcome }

    /// Whether `req` still waits for its reply.
    func isPending(_ req: UInt64) -> Bool { requests[req] != nil }

    // MARK: - Running

    /// `run` starts: a client runs once.
    mutating func begin() throws(FlowClientError) {
        guard phase == .idle else {
            throw FlowClientError(.invalidConfiguration, "run() was called already; a client runs once")
        }
        phase = .running
    }

    /// The client ends: every waiting request fails with ``FlowClientError/Code/stopped``.
    mutating func stop() -> [ConnectionAction] {
        phase = .stopped
        link = nil
        queued.removeAll()
        defer { requests.removeAll() }
        return requests.keys.sorted().map { .complete(req: $0, .failure(Self.stopped)) }
    }

    /// A new socket is connected: it says `HELLO` (numbered `helloReq`) first.
    mutating func connecting(
        helloReq: UInt64, hello: Hello, at now: ContinuousClock.Instant
    ) -> (generation: UInt64, actions: [ConnectionAction]) {
        generation += 1
        link = Link(generation: generation, helloReq: helloReq, lastHeard: now)
        return (generation, [.send(.hello(hello))])
    }

    /// Something arrived on connection `generation` (`nil`: it did not decode).
    mutating func received(
        _ message: DaemonMessage?, on generation: UInt64, at now: ContinuousClock.Instant
    ) -> [ConnectionAction] {
        guard link?.generation == generation else { return [] }
        link?.lastHeard = now
        guard let message, let helloReq = link?.helloReq else { return [] }
        switch message {
        case .welcome(let welcome):
            guard welcome.req == helloReq else {
                logger.debug("ignoring a WELCOME for another HELLO", metadata: ["req": "\(welcome.req)"])
                return []
            }
            return welcomed(welcome)
        case .ok(let reply):
            return complete(reply.req, with: .success(reply.result))
        case .error(let reply):
            if reply.code == .notWelcome {
                // The daemon handled nothing from the refused request on: send those again. Without a `req`, send
                // none again (some may have been handled).
                let retryFrom = reply.req ?? .max
                let reason = "flowd does not know this connection (notWelcome)"
                return [.end(.lost(reason, welcomed: true, retryFrom: retryFrom))]
            }
            if reply.req == helloReq || reply.code == .replaced {
                // Refused, or another connection of this name took over (docs/PROTOCOL.md §3): stop, as saying
                // HELLO again would take it back and the two would flap.
                return [.end(.fatal(DaemonError(reply)))]
            }
            if let req = reply.req, requests[req] != nil { return complete(req, with: .failure(DaemonError(reply))) }
            logger.warning(
                "flowd reported an error", metadata: ["code": "\(reply.code)", "message": "\(reply.message)"]
            )
            return [.deliver(.message(message))]
        default:
            return [.deliver(.message(message))]
        }
    }

    /// Sending on the current connection failed.
    func sendFailed(_ reason: String) -> [ConnectionAction] {
        [.end(.lost("send failed: \(reason)", welcomed: false, retryFrom: nil))]
    }

    /// The timer of connection `generation` fired at `now`: heartbeats once welcomed, and the daemon's liveness.
    ///
    /// Silence counts only while the client can listen. A timer that fires more than half a listening interval (the
    /// daemon's heartbeat interval, or the client's before `WELCOME`) after it was due shows that the process did not
    /// run meanwhile: that lateness is not counted as silence, and as what the daemon sent may be waiting unread, the
    /// daemon is judged only after one more listening interval (at that late firing itself, only when its silence
    /// exceeds the window by a listening interval too).
    ///
    /// - Returns: what to do, and when to call again (`nil`: this connection needs no timer any more).
    mutating func timerFired(
        on generation: UInt64, at now: ContinuousClock.Instant
    ) -> (actions: [ConnectionAction], wake: ContinuousClock.Instant?) {
        guard var current = link, current.generation == generation else { return ([], nil) }
        let interval = timing.heartbeat
        let limit = current.welcome.map { livenessWindow(daemonHeartbeatMs: $0.heartbeatMs) } ?? timing.handshakeTimeout
        let listening = listeningInterval
        var stalled = false
        if let due = current.due, now - due > listening / 2 {
            logger.debug(
                "the client did not run for a while; listening before judging flowd's silence",
                metadata: ["late": "\(now - due)"])
            current.lastHeard = min(current.lastHeard + (now - due), now)
            current.listenUntil = now + listening
            stalled = true
        }
        var verdict = current.lastHeard + limit
        if let listenUntil = current.listenUntil, listenUntil > verdict { verdict = listenUntil }
        if stalled ? now - current.lastHeard >= limit + listening : now >= verdict {
            let reason = current.welcome == nil ? "no WELCOME within \(limit)" : "flowd silent for \(limit)"
            return ([.end(.lost(reason, welcomed: current.welcome != nil, retryFrom: nil))], nil)
        }
        var actions: [ConnectionAction] = []
        if current.welcome == nil {
            // Until WELCOME, look again every half interval, so the first heartbeat is not late.
            current.due = min(verdict, now + interval / 2)
        } else {
            let due = current.nextBeat ?? now + interval
            if now >= due {
                actions.append(.send(.heartbeat(Heartbeat())))
                current.nextBeat = now + interval
            } else {
                current.nextBeat = due
            }
            current.due = min(verdict, current.nextBeat ?? due)
        }
        link = current
        return (actions, current.due)
    }

    /// Connection `generation` ended with `outcome`: requests sent on it fail with
    /// ``FlowClientError/Code/connectionLost``, or are queued again when the daemon refused them with `notWelcome` or
    /// their policy is ``DisconnectedPolicy/resend``; then the client reconnects, returns or stops.
    mutating func connectionEnded(_ generation: UInt64, _ outcome: ConnectionOutcome) -> [ConnectionAction] {
        var retryFrom: UInt64?
        if case .lost(_, _, let from) = outcome { retryFrom = from }
        if link?.generation == generation { link = nil }
        let lost = FlowClientError(.connectionLost, "the connection to flowd was lost before the reply came")
        var actions: [ConnectionAction] = []
        for (req, entry) in requests.sorted(by: { $0.key < $1.key }) where entry.sentOn == generation {
            let refused = retryFrom.map { req >= $0 } ?? false
            if phase == .running, entry.policy == .resend || (refused && entry.policy == .wait) {
                requests[req]?.sentOn = nil
                if refused { requests[req]?.mayBeAppliedBy = entry.mayBeAppliedByBeforeSending }
                queued.append(req)
            } else {
                requests[req] = nil
                actions.append(.complete(req: req, .failure(lost)))
            }
        }
        queued.sort()
        switch outcome {
        case .cancelled:
            break
        case .fatal(let error):
            actions.append(.stop(error))
        case .lost(let reason, let welcomed, let retryFrom):
            actions.append(.deliver(.disconnected(reason: reason)))
            if retryFrom != nil {
                // The daemon is there and answers: say HELLO again at once.
                actions.append(.reconnect(after: .zero))
                break
            }
            failures = welcomed ? 0 : failures + 1
            var delay = timing.reconnectDelay
            for _ in 0..<min(failures, 16) where delay < timing.maximumReconnectDelay { delay *= 2 }
            actions.append(.reconnect(after: min(delay, timing.maximumReconnectDelay)))
        }
        return actions
    }

    private func livenessWindow(daemonHeartbeatMs: Int) -> Duration {
        .milliseconds(max(daemonHeartbeatMs, 1)) * timing.livenessIntervals
    }

    private mutating func welcomed(_ welcome: Welcome) -> [ConnectionAction] {
        guard let generation = link?.generation else { return [] }
        let changed = daemon != nil && daemon != welcome.daemon
        daemon = welcome.daemon
        link?.welcome = welcome
        var sends: [ConnectionAction] = []
        var undelivered: [ConnectionAction] = []
        for req in queued {
            guard var entry = requests[req] else { continue }
            if let earlier = entry.mayBeAppliedBy, earlier != welcome.daemon {
                // Sent to a daemon run that is gone with its state: whatever it did with it is gone too.
                let error = FlowClientError(
                    .notDelivered,
                    "flowd restarted without its state (run \(earlier) is now \(welcome.daemon)): "
                        + "\(entry.message.type.rawValue) was not delivered"
                )
                logger.warning("a request was not delivered", metadata: ["error": "\(error)"])
                requests[req] = nil
                undelivered.append(.complete(req: req, .failure(error)))
                continue
            }
            entry.sentOn = generation
            entry.mayBeAppliedByBeforeSending = entry.mayBeAppliedBy
            entry.mayBeAppliedBy = entry.mayBeAppliedBy ?? welcome.daemon
            requests[req] = entry
            sends.append(.send(entry.message))
        }
        queued.removeAll()
        logger.info(
            "connected to flowd",
            metadata: [
                "peer": "\(welcome.peer)", "daemon": "\(welcome.daemon)", "heartbeat_ms": "\(welcome.heartbeatMs)",
            ]
        )
        return sends + undelivered + [.deliver(.connected(welcome, daemonChanged: changed))]
    }

    // MARK: - Requests

    /// Registers request `req` and sends it now (on a welcomed connection) or queues it for the next one.
    ///
    /// - Throws: ``FlowClientError/Code/stopped`` after `run` ended; ``FlowClientError/Code/notConnected`` with
    ///   ``DisconnectedPolicy/fail`` when no connection is welcomed.
    mutating func submit(
        _ message: ClientMessage, req: UInt64, policy: DisconnectedPolicy
    ) throws(FlowClientError) -> [ConnectionAction] {
        guard phase != .stopped else { throw Self.stopped }
        guard let link, let welcome = link.welcome else {
            if policy == .fail {
                throw FlowClientError(.notConnected, "not connected to flowd: \(message.type.rawValue) not sent")
            }
            requests[req] = Request(message: message, policy: policy, sentOn: nil)
            queued.append(req)
            return []
        }
        requests[req] = Request(
            message: message, policy: policy, sentOn: link.generation, mayBeAppliedBy: welcome.daemon)
        return [.send(message)]
    }

    /// A message that gets no reply (`ACK`, `HEARTBEAT`): sent when a connection is welcomed, else dropped.
    func send(_ message: ClientMessage) -> [ConnectionAction]? {
        link?.welcome == nil ? nil : [.send(message)]
    }

    /// How long the client listens after a stall before it judges: the daemon's heartbeat interval, or the client's
    /// before `WELCOME`.
    var listeningInterval: Duration {
        link?.welcome.map { .milliseconds(max($0.heartbeatMs, 1)) } ?? timing.heartbeat
    }

    /// The timeout of `req`, due at `due`, fired at `now`. As for liveness, a first firing more than half a listening
    /// interval late shows that the process did not run and the reply may be waiting unread: the timeout then runs
    /// out one listening interval later (once: `extended`); else it runs out now (``expire(_:after:)``).
    ///
    /// - Returns: what to do, and when to call again (`nil`: never).
    mutating func timeoutFired(
        _ req: UInt64, after timeout: Duration, due: ContinuousClock.Instant, at now: ContinuousClock.Instant,
        extended: Bool
    ) -> (actions: [ConnectionAction], wake: ContinuousClock.Instant?) {
        guard requests[req] != nil else { return ([], nil) }
        let listening = listeningInterval
        if !extended, now - due > listening / 2 { return ([], now + listening) }
        return (expire(req, after: timeout), nil)
    }

    /// The timeout of `req` ran out before its reply: ``FlowClientError/Code/notDelivered`` for a
    /// ``DisconnectedPolicy/resend`` request no daemon run may have carried out, ``FlowClientError/Code/timedOut``
    /// otherwise. A reply that comes later is ignored; a queued request is never sent.
    mutating func expire(_ req: UInt64, after timeout: Duration) -> [ConnectionAction] {
        guard let entry = requests[req] else { return [] }
        let type = entry.message.type.rawValue
        let error: FlowClientError
        if entry.policy == .resend, entry.sentOn == nil, entry.mayBeAppliedBy == nil {
            error = FlowClientError(
                .notDelivered, "no connection to flowd within \(timeout): \(type) was not delivered")
        } else if entry.policy == .resend {
            error = FlowClientError(
                .timedOut,
                "flowd did not answer \(type) within \(timeout): "
                    + "it may or may not have been carried out (at most once)")
        } else {
            error = FlowClientError(.timedOut, "flowd did not answer \(type) within \(timeout)")
        }
        forget(req)
        return [.complete(req: req, .failure(error))]
    }

    /// Nobody waits for `req` any more (its task was cancelled): it is never sent, its reply is ignored.
    mutating func forget(_ req: UInt64) {
        requests[req] = nil
        queued.removeAll { $0 == req }
    }

    private mutating func complete(_ req: UInt64, with result: Result<JSONValue, any Error>) -> [ConnectionAction] {
        guard requests.removeValue(forKey: req) != nil else {
            logger.debug("ignoring a reply to no waiting request", metadata: ["req": "\(req)"])
            return []
        }
        return [.complete(req: req, result)]
    }
}
