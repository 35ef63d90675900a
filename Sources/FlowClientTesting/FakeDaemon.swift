public import FlowClient
public import FlowWire
import Foundation
public import Logging
import Synchronization
internal import ZeroMQ

/// A scripted `flowd` for testing a client (a ``StepperClient``, a ``PresenterClient``, an ``OperatorClient``, or a
/// service built on them) over real sockets: a ROUTER on `ipc://<temporary folder>/control.sock` and an XPUB on
/// `events.sock`, speaking the protocol with the FlowWire codec. The test plays the daemon's part message by message:
/// it waits for what the client sends (``expect(_:from:_:)``,
/// ``acceptHello(heartbeatMs:daemon:peerName:keepingAlive:)``) and sends what the daemon would (``send(_:to:)``).
///
/// A library of its own, not part of FlowdTesting: FlowdTesting runs a real daemon core without sockets and links
/// FlowDaemon; this one is for services, which link FlowClient and never the daemon.
///
/// `Sendable`: its sockets belong to its event loop, which serialises every use.
public final class FakeDaemon: Sendable {
    /// A message from a client, with the client's routing id.
    public struct Received: Sendable {
        public let peer: [UInt8]
        public let message: ClientMessage
    }

    /// How long a wait of the fake daemon lasts before it fails instead of hanging. Never a synchronisation: every
    /// wait ends as soon as what it waits for happens.
    public static let deadline: Duration = .seconds(20)

    /// The temporary folder of its sockets.
    public let directory: String
    /// Its control and events endpoints (`ipc://`).
    public let endpoints: FlowdEndpoints
    private let loop: ZMQEventLoop
    private let router: ZMQSocketHandle
    private let publisher: ZMQSocketHandle
    private let codec = WireCodec()
    private let logger: Logger
    /// The heartbeats it sends its clients on threads of their own, by routing id.
    private let keepAlives = Mutex<[[UInt8]: KeepAlive]>([:])

    private init(
        directory: String, loop: ZMQEventLoop, router: ZMQSocketHandle, publisher: ZMQSocketHandle, logger: Logger
    ) {
        self.directory = directory
        self.endpoints = FlowdEndpoints(runtimeDirectory: directory)
        self.loop = loop
        self.router = router
        self.publisher = publisher
        self.logger = logger
    }

    /// Starts a fake daemon in a new temporary folder, runs `body` with it, then stops it and removes the folder.
    ///
    /// - Parameter logger: for its event loop and the clients of ``configuration(requestTimeout:)``.
    public static func with<T: Sendable>(
        logger: Logger = Logger(label: "flowd.fake-daemon", factory: { _ in SwiftLogNoOpLogHandler() }),
        _ body: (FakeDaemon) async throws -> T
    ) async throws -> T {
        // ipc paths are limited to ~107 bytes: stay short.
        let directory = "/tmp/flowc-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let loop = try ZMQEventLoop(logger: logger)
        let router = try await loop.makeSocket(.router)
        let endpoints = FlowdEndpoints(runtimeDirectory: directory)
        try await loop.bind(router, to: endpoints.control)
        let publisher = try await loop.makeSocket(.xpub)
        try await loop.bind(publisher, to: endpoints.events)
        let daemon = FakeDaemon(directory: directory, loop: loop, router: router, publisher: publisher, logger: logger)
        do {
            let result = try await body(daemon)
            daemon.fallSilent()
            await loop.shutdown()
            return result
        } catch {
            daemon.fallSilent()
            await loop.shutdown()
            throw error
        }
    }

    /// A client configuration for this daemon: fast heartbeats (100 ms), quick reconnects, no handshake timeout to
    /// speak of (tests decide when the daemon answers).
    public func configuration(requestTimeout: Duration? = nil) -> FlowClientConfiguration {
        FlowClientConfiguration(
            endpoints: endpoints, heartbeatInterval: .milliseconds(100), handshakeTimeout: .seconds(60),
            reconnectDelay: .milliseconds(10), requestTimeout: requestTimeout, logger: logger
        )
    }

    // MARK: - Receiving

    /// The next message from any client.
    ///
    /// - Throws: ``UnexpectedMessage`` for a message only the daemon sends; a `WireError` for one that does not decode.
    public func receive() async throws -> Received {
        let router = router
        let codec = codec
        return try await withDeadline("a message from a client") {
            guard let message = await router.messages.next() else { throw DeadlineExceeded(what: "(socket closed)") }
            let frames = message.frames
            let decoded = try codec.decode(Array(frames.dropFirst()), from: .client)
            guard case .client(let sent) = decoded else {
                throw UnexpectedMessage(expected: "a client's message", got: decoded)
            }
            return Received(peer: frames[0], message: sent)
        }
    }

    /// The next message from `peer`, heartbeats included: right after a `WELCOME`, a `HEARTBEAT` first shows that the
    /// client sent nothing it had queued (queued requests leave before the first heartbeat of a connection).
    public func nextMessage(from peer: [UInt8]) async throws -> ClientMessage {
        while true {
            let received = try await receive()
            if received.peer == peer { return received.message }
        }
    }

    /// Waits for a `HEARTBEAT` from `peer`: a client sends them only once it took the `WELCOME` in, so what it submits
    /// afterwards goes out on this connection at once.
    public func awaitHeartbeat(from peer: [UInt8]) async throws {
        while true {
            let message = try await nextMessage(from: peer)
            if case .heartbeat = message { return }
        }
    }

    /// The next message that is not a heartbeat, which must be what `match` accepts.
    public func expect<T: Sendable>(
        _ what: String,
        from peer: [UInt8]? = nil,
        _ match: (ClientMessage) -> T?
    ) async throws -> (peer: [UInt8], value: T) {
        while true {
            let received = try await receive()
            if case .heartbeat = received.message { continue }
            if let peer, received.peer != peer { continue }
            guard let value = match(received.message) else {
                throw UnexpectedMessage(expected: what, got: received.message.wire)
            }
            return (received.peer, value)
        }
    }

    /// Reads messages until one matches `match`, answering every `REPORT` with `OK` and passing over heartbeats,
    /// `ACK`s and messages from other peers than `peer`.
    ///
    /// - Parameter answeringSyncs: when set, every `SYNC` that `match` does not take is answered with the messages it
    ///   returns (as flowd does: the `OK`, then the replay or the `SNAPSHOT`) instead of failing the wait. A presenter
    ///   asks again whenever an answer is a liveness window late, which a busy machine can make any wait of a test.
    /// - Returns: the match, and the reports and acknowledged sequence numbers seen on the way.
    public func serve<T: Sendable>(
        until what: String,
        from peer: [UInt8]? = nil,
        answeringSyncs: ((Sync) -> [DaemonMessage])? = nil,
        _ match: (ClientMessage) -> T?
    ) async throws -> (value: T, reports: [[PresentableReport]], acks: [UInt64]) {
        var reports: [[PresentableReport]] = []
        var acks: [UInt64] = []
        while true {
            let received = try await receive()
            if let peer, received.peer != peer { continue }
            if let value = match(received.message) { return (value, reports, acks) }
            if case .sync(let sync) = received.message, let answeringSyncs {
                for answer in answeringSyncs(sync) { try await send(answer, to: received.peer) }
                continue
            }
            switch received.message {
            case .heartbeat: continue
            case .ack(let ack): acks.append(ack.seq)
            case .report(let report):
                reports.append(report.reports)
                try await send(.ok(OKReply(req: report.req)), to: received.peer)
            default: throw UnexpectedMessage(expected: what, got: received.message.wire)
            }
        }
    }

    // MARK: - Sending

    /// Sends `message` to the client `peer`.
    public func send(_ message: DaemonMessage, to peer: [UInt8]) async throws {
        try await loop.send(ZMQMessage([peer] + codec.encode(message)), on: router)
    }

    /// Runs `body` while sending `peer` a `HEARTBEAT` announcing `sessions` every `interval`, as a live daemon does
    /// (a client drops a connection that stays silent for its liveness window). The heartbeats leave from a thread of
    /// their own, whether or not the test's task runs.
    public func whileSendingHeartbeats<T: Sendable>(
        _ sessions: [String: UInt64],
        every interval: Duration = .milliseconds(100),
        to peer: [UInt8],
        _ body: () async throws -> T
    ) async throws -> T {
        let keepAlive = heartbeats(sessions, every: interval, to: peer)
        defer { keepAlive.stop() }
        return try await body()
    }

    /// Starts sending `peer` a `HEARTBEAT` announcing `sessions` every `interval` from a thread of its own.
    private func heartbeats(_ sessions: [String: UInt64], every interval: Duration, to peer: [UInt8]) -> KeepAlive {
        let heartbeat = ZMQMessage([peer] + codec.encode(DaemonMessage.heartbeat(Heartbeat(sessions: sessions))))
        let (loop, router) = (loop, router)
        let milliseconds = Int(interval / .milliseconds(1))
        // A client that went away makes the send fail: the test judges what the client does, not the beats.
        return KeepAlive(every: max(milliseconds, 1), name: "fake-daemon-heartbeats") {
            loop.post(heartbeat, on: router) { _ in }
        }
    }

    /// Stops the heartbeats that ``acceptHello(heartbeatMs:daemon:peerName:keepingAlive:)`` started for `peer` (all
    /// of them when `nil`): from now on the daemon is silent to it unless the test sends something.
    public func fallSilent(toward peer: [UInt8]? = nil) {
        let stopping = keepAlives.withLock { keepAlives in
            guard let peer else {
                defer { keepAlives.removeAll() }
                return Array(keepAlives.values)
            }
            return keepAlives.removeValue(forKey: peer).map { [$0] } ?? []
        }
        for keepAlive in stopping { keepAlive.stop() }
    }

    /// Waits for a `HELLO` and answers `WELCOME`.
    ///
    /// - Parameters:
    ///   - heartbeatMs: the interval announced: the client drops the connection after 3 of them in silence.
    ///   - keepingAlive: whether to send the client an empty `HEARTBEAT` every third of `heartbeatMs`, from a thread
    ///     of its own starting with the `WELCOME`, until ``fallSilent(toward:)``: a test that means the silence to
    ///     start at a point of its own choosing, not wherever a busy machine leaves its task unscheduled too long.
    @discardableResult
    public func acceptHello(
        heartbeatMs: Int = 60_000,
        daemon: String = "daemon-1",
        peerName: String = "p1",
        keepingAlive: Bool = false
    ) async throws -> (peer: [UInt8], hello: Hello) {
        let (peer, hello) = try await expect("HELLO") { message -> Hello? in
            if case .hello(let hello) = message { hello } else { nil }
        }
        let welcome = DaemonMessage.welcome(
            Welcome(req: hello.req, peer: peerName, daemon: daemon, heartbeatMs: heartbeatMs)
        )
        guard keepingAlive else {
            try await send(welcome, to: peer)
            return (peer, hello)
        }
        // The WELCOME is queued and the heartbeats started without a suspension between them.
        let message = ZMQMessage([peer] + codec.encode(welcome))
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let posted = loop.post(message, on: router) { result in
                continuation.resume(with: result.mapError { $0 as any Error })
            }
            guard posted else {
                continuation.resume(throwing: ZMQError(.terminated, call: "post(WELCOME)"))
                return
            }
            let keepAlive = heartbeats([:], every: .milliseconds(max(heartbeatMs / 3, 1)), to: peer)
            keepAlives.withLock { $0.updateValue(keepAlive, forKey: peer) }?.stop()
        }
        return (peer, hello)
    }

    /// Waits until a subscriber subscribed to `topic` (an XPUB sees subscriptions), so nothing published after is
    /// lost to the slow-joiner race.
    public func awaitSubscription(to topic: String) async throws {
        let publisher = publisher
        let expected = [UInt8(1)] + Array(topic.utf8)
        try await withDeadline("a subscription to \(topic)") {
            while let message = await publisher.messages.next() {
                if message.frames.first == expected { return }
            }
            throw DeadlineExceeded(what: "(publisher closed)")
        }
    }

    /// Publishes an event on the events socket.
    public func publish(_ event: EventMessage) async throws {
        try await loop.send(ZMQMessage(codec.encodeEvent(event)), on: publisher)
    }
}
