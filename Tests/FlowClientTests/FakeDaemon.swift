import FlowClient
import FlowCore
import FlowWire
import Foundation
import Logging
import Testing
import ZeroMQ

/// A logger that drops everything (tests never bootstrap the logging system).
let testLogger: Logger = {
    guard ProcessInfo.processInfo.environment["FLOWD_CLIENT_TEST_LOG"] != nil else {
        return Logger(label: "flowclient-tests", factory: { _ in SwiftLogNoOpLogHandler() })
    }
    var logger = Logger(label: "flowclient-tests", factory: { StreamLogHandler.standardError(label: $0) })
    logger.logLevel = .debug
    return logger
}()

/// How long a test waits for something before it fails instead of hanging. Never a synchronisation: every wait
/// ends as soon as what it waits for happens.
let generousDeadline: Duration = .seconds(20)

/// A wait that ran into ``generousDeadline``.
struct DeadlineExceeded: Error, CustomStringConvertible {
    let what: String
    var description: String { "nothing after \(generousDeadline) waiting for \(what)" }
}

/// A message the fake daemon did not expect.
struct UnexpectedMessage: Error, CustomStringConvertible {
    let expected: String
    let got: WireMessage
    var description: String { "expected \(expected), got \(got.type.rawValue): \(got)" }
}

/// Runs `body`, failing with ``DeadlineExceeded`` after ``generousDeadline``.
func withDeadline<T: Sendable>(_ what: String, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: generousDeadline)
            throw DeadlineExceeded(what: what)
        }
        defer { group.cancelAll() }
        guard let result = try await group.next() else { throw DeadlineExceeded(what: what) }
        return result
    }
}

/// Runs `run` (a client's `run()`) in a child task while `body` drives the test, then cancels it.
///
/// - Returns: what `body` returns; rethrows what `body` throws, or an error `run` threw.
@discardableResult
func whileRunning<T: Sendable>(
    _ run: @escaping @Sendable () async throws -> Void,
    _ body: () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await run() }
        let result: T
        do {
            result = try await body()
        } catch {
            group.cancelAll()
            throw error
        }
        group.cancelAll()
        try await group.waitForAll()
        return result
    }
}

/// A fake `flowd` for client tests: a ROUTER on `ipc://<temporary folder>/control.sock` and an XPUB on
/// `events.sock`, speaking the protocol with the FlowWire codec. The test plays the daemon's part message by message.
final class FakeDaemon: Sendable {
    /// A message from a client, with the client's routing id.
    struct Received: Sendable {
        let peer: [UInt8]
        let message: WireMessage
    }

    let directory: String
    let endpoints: FlowdEndpoints
    let loop: ZMQEventLoop
    let router: ZMQSocketHandle
    let publisher: ZMQSocketHandle
    private let codec = WireCodec()

    private init(directory: String, loop: ZMQEventLoop, router: ZMQSocketHandle, publisher: ZMQSocketHandle) {
        self.directory = directory
        self.endpoints = FlowdEndpoints(runtimeDirectory: directory)
        self.loop = loop
        self.router = router
        self.publisher = publisher
    }

    /// Starts a fake daemon in a new temporary folder, runs `body` with it, then stops it and removes the folder.
    static func with<T: Sendable>(_ body: (FakeDaemon) async throws -> T) async throws -> T {
        // ipc paths are limited to ~107 bytes: stay short.
        let directory = "/tmp/flowc-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let loop = try ZMQEventLoop(logger: testLogger)
        let router = try await loop.makeSocket(.router)
        let endpoints = FlowdEndpoints(runtimeDirectory: directory)
        try await loop.bind(router, to: endpoints.control)
        let publisher = try await loop.makeSocket(.xpub)
        try await loop.bind(publisher, to: endpoints.events)
        let daemon = FakeDaemon(directory: directory, loop: loop, router: router, publisher: publisher)
        do {
            let result = try await body(daemon)
            await loop.shutdown()
            return result
        } catch {
            await loop.shutdown()
            throw error
        }
    }

    /// A client configuration for this daemon: fast heartbeats (100 ms), quick reconnects, no handshake timeout to
    /// speak of (tests decide when the daemon answers).
    func configuration(requestTimeout: Duration? = nil) -> FlowClientConfiguration {
        FlowClientConfiguration(
            endpoints: endpoints, heartbeatInterval: .milliseconds(100), handshakeTimeout: .seconds(60),
            reconnectDelay: .milliseconds(10), requestTimeout: requestTimeout, logger: testLogger
        )
    }

    // MARK: - Receiving

    /// The next message from any client.
    func receive() async throws -> Received {
        let router = router
        let codec = codec
        return try await withDeadline("a message from a client") {
            guard let message = await router.messages.next() else { throw DeadlineExceeded(what: "(socket closed)") }
            let frames = message.frames
            return Received(peer: frames[0], message: try codec.decode(Array(frames.dropFirst())))
        }
    }

    /// The next message from `peer`, heartbeats included: right after a `WELCOME`, a `HEARTBEAT` first shows that the
    /// client sent nothing it had queued (queued requests leave before the first heartbeat of a connection).
    func nextMessage(from peer: [UInt8]) async throws -> WireMessage {
        while true {
            let received = try await receive()
            if received.peer == peer { return received.message }
        }
    }

    /// Waits for a `HEARTBEAT` from `peer`: a client sends them only once it took the `WELCOME` in, so what it submits
    /// afterwards goes out on this connection at once.
    func awaitHeartbeat(from peer: [UInt8]) async throws {
        while true {
            let message = try await nextMessage(from: peer)
            if case .heartbeat = message { return }
        }
    }

    /// The next message that is not a heartbeat, which must be what `match` accepts.
    func expect<T: Sendable>(
        _ what: String,
        from peer: [UInt8]? = nil,
        _ match: (WireMessage) -> T?
    ) async throws -> (peer: [UInt8], value: T) {
        while true {
            let received = try await receive()
            if case .heartbeat = received.message { continue }
            if let peer, received.peer != peer { continue }
            guard let value = match(received.message) else {
                throw UnexpectedMessage(expected: what, got: received.message)
            }
            return (received.peer, value)
        }
    }

    /// Reads messages until one matches `match`, answering every `REPORT` with `OK` and passing over heartbeats,
    /// `ACK`s and messages from other peers than `peer`.
    ///
    /// - Returns: the match, and the reports and acknowledged sequence numbers seen on the way.
    func serve<T: Sendable>(
        until what: String,
        from peer: [UInt8]? = nil,
        _ match: (WireMessage) -> T?
    ) async throws -> (value: T, reports: [[PresentableReport]], acks: [UInt64]) {
        var reports: [[PresentableReport]] = []
        var acks: [UInt64] = []
        while true {
            let received = try await receive()
            if let peer, received.peer != peer { continue }
            if let value = match(received.message) { return (value, reports, acks) }
            switch received.message {
            case .heartbeat: continue
            case .ack(let ack): acks.append(ack.seq)
            case .report(let report):
                reports.append(report.reports)
                try await send(.ok(OKReply(req: report.req)), to: received.peer)
            default: throw UnexpectedMessage(expected: what, got: received.message)
            }
        }
    }

    // MARK: - Sending

    /// Sends `message` to the client `peer`.
    func send(_ message: WireMessage, to peer: [UInt8]) async throws {
        try await loop.send(ZMQMessage([peer] + codec.encode(message)), on: router)
    }

    /// Runs `body` while sending `peer` a `HEARTBEAT` announcing `sessions` every `interval`, as a live daemon does
    /// (a client drops a connection that stays silent for its liveness window).
    func whileSendingHeartbeats<T: Sendable>(
        _ sessions: [String: UInt64],
        every interval: Duration = .milliseconds(100),
        to peer: [UInt8],
        _ body: () async throws -> T
    ) async throws -> T {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                while !Task.isCancelled {
                    try await self.send(.heartbeat(Heartbeat(sessions: sessions)), to: peer)
                    try await Task.sleep(for: interval)
                }
            }
            defer { group.cancelAll() }
            return try await body()
        }
    }

    /// Waits for a `HELLO` and answers `WELCOME`.
    ///
    /// - Parameter heartbeatMs: the interval announced: the client drops the connection after 3 of them in silence.
    @discardableResult
    func acceptHello(
        heartbeatMs: Int = 60_000,
        daemon: String = "daemon-1",
        peerName: String = "p1"
    ) async throws -> (peer: [UInt8], hello: Hello) {
        let (peer, hello) = try await expect("HELLO") { message -> Hello? in
            if case .hello(let hello) = message { hello } else { nil }
        }
        try await send(
            .welcome(Welcome(req: hello.req, peer: peerName, daemon: daemon, heartbeatMs: heartbeatMs)), to: peer
        )
        return (peer, hello)
    }

    /// Waits until a subscriber subscribed to `topic` (an XPUB sees subscriptions), so nothing published after is
    /// lost to the slow-joiner race.
    func awaitSubscription(to topic: String) async throws {
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
    func publish(_ event: EventMessage) async throws {
        try await loop.send(ZMQMessage(codec.encodeEvent(event)), on: publisher)
    }
}

extension WireMessage {
    /// The `HELLO` body, if this is one.
    var hello: Hello? { if case .hello(let body) = self { body } else { nil } }
    /// The `SYNC` body, if this is one.
    var sync: Sync? { if case .sync(let body) = self { body } else { nil } }
    /// The `REPORT` body, if this is one.
    var report: Report? { if case .report(let body) = self { body } else { nil } }
    /// The `ACK` body, if this is one.
    var ack: Ack? { if case .ack(let body) = self { body } else { nil } }
    /// The `STEP` body, if this is one.
    var step: StepMessage? { if case .step(let body) = self { body } else { nil } }
    /// Whether this is `BYE`.
    var isBye: Bool { if case .bye = self { true } else { false } }
}
