import FlowWire
import Foundation
import TestFlows
import ZeroMQ

/// A bare `DEALER` to the daemon's control endpoint, for sending what no client library would: frames of any
/// shape. Its libzmq calls block, with generous send and receive timeouts (a reply that never comes fails instead of
/// hanging), each on a thread of its own (``onDedicatedThread(_:_:)``), and it has a monitor of its own connection.
///
/// `@unchecked Sendable`: a test awaits each call before it makes the next, so one thread at a time uses the sockets
/// (libzmq lets a socket move between threads across the full barrier that starting a thread and resuming the test
/// make). Use it from one test.
final class RawDealer: @unchecked Sendable {
    private let context: ZMQContext
    private let socket: ZMQSocket
    private let monitor: ZMQSocket
    private let codec = WireCodec()
    private var nextReq: UInt64 = 100

    /// Connects to `endpoint`; the monitor reports `connected` / `disconnected`.
    init(endpoint: String) throws {
        context = try ZMQContext()
        // No hard limit on what this peer receives, and none of the library's heartbeats: the test controls everything.
        let options = ZMQSocketOptions(linger: .zero, maxMessageSize: nil, heartbeat: nil)
        socket = try ZMQSocket(.dealer, context: context, options: options)
        try socket.setOption(.receiveTimeout, to: 30_000)
        try socket.setOption(.sendTimeout, to: 30_000)
        try socket.setOption(.reconnectInterval, to: 50)
        let monitorEndpoint = "inproc://raw-dealer-monitor-\(UUID().uuidString)"
        try socket.startMonitor(at: monitorEndpoint, events: [.connected, .disconnected, .handshakeSucceeded])
        monitor = try ZMQSocket(.pair, context: context, options: ZMQSocketOptions(linger: .zero, heartbeat: nil))
        try monitor.setOption(.receiveTimeout, to: 30_000)
        try monitor.connect(monitorEndpoint)
        try socket.connect(endpoint)
    }

    deinit {
        try? socket.stopMonitor()
        socket.close()
        monitor.close()
    }

    /// A new request number.
    func req() -> UInt64 {
        nextReq += 1
        return nextReq
    }

    /// Sends raw frames.
    func send(_ frames: [[UInt8]]) async throws {
        try await onDedicatedThread("raw-dealer") { try self.socket.send(ZMQMessage(frames)) }
    }

    /// Sends frames given as strings.
    func send(strings: [String]) async throws {
        try await send(strings.map { Array($0.utf8) })
    }

    /// Sends a message through the codec.
    func send(_ message: ClientMessage) async throws {
        try await send(codec.encode(message))
    }

    /// Receives the next message that is not a `HEARTBEAT`, decoded.
    func receive() async throws -> DaemonMessage {
        try await onDedicatedThread("raw-dealer") { try self.receiveNow() }
    }

    /// Sends `message` and receives the next message that is not a `HEARTBEAT`, on one thread.
    func request(_ message: ClientMessage) async throws -> DaemonMessage {
        try await onDedicatedThread("raw-dealer") {
            try self.socket.send(ZMQMessage(self.codec.encode(message)))
            return try self.receiveNow()
        }
    }

    /// Receives the next `ERROR`; fails on anything else.
    func receiveError() async throws -> ErrorReply {
        let message = try await receive()
        guard case .error(let error) = message else { throw HarnessError("expected an ERROR, got \(message)") }
        return error
    }

    /// Says `HELLO` as `role` and returns the `WELCOME`.
    @discardableResult
    func hello(role: PeerRole = .operator, name: String = "raw-dealer") async throws -> Welcome {
        let reply = try await request(
            .hello(Hello(req: req(), role: role, name: name, instance: "raw", heartbeatMs: 60_000)))
        guard case .welcome(let welcome) = reply else { throw HarnessError("expected WELCOME, got \(reply)") }
        return welcome
    }

    /// Reads monitor events until one of `kinds` arrives; returns the events read, the matching one last.
    func waitForConnectionEvent(_ kinds: ZMQMonitorEvent.Kind) async throws -> [ZMQMonitorEvent] {
        try await onDedicatedThread("raw-dealer-monitor") { try self.monitor.connectionEvents(until: kinds) }
    }

    /// The next message that is not a `HEARTBEAT`, on the calling thread.
    private func receiveNow() throws -> DaemonMessage {
        while true {
            let message = try socket.receive()
            guard case .daemon(let decoded) = try codec.decode(message.frames, from: .daemon) else {
                throw HarnessError("the daemon sent a client's message")
            }
            if case .heartbeat = decoded { continue }
            return decoded
        }
    }
}
