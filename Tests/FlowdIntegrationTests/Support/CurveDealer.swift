import FlowCore
import FlowWire
import Foundation
import TestFlows
import ZeroMQ

/// A bare `DEALER` (or `SUB`) with CURVE client keys, or none: its libzmq calls block, with bounded receives, each on a
/// thread of its own (``onDedicatedThread(_:_:)``), and it has a monitor of its connection.
///
/// `@unchecked Sendable`: a test awaits each call before it makes the next, so one thread at a time uses the sockets
/// (libzmq lets a socket move between threads across the full barrier that starting a thread and resuming the test
/// make). Use it from one test.
final class CurveDealer: @unchecked Sendable {
    private let context: ZMQContext
    private let socket: ZMQSocket
    private let monitor: ZMQSocket
    private let codec = WireCodec()

    init(endpoint: String, curve: ZMQCurveSecurity?, type: ZMQSocketType = .dealer) throws {
        context = try ZMQContext()
        // Messages are queued at once (no ZMQ_IMMEDIATE), so a HELLO waits for the handshake, which may never come.
        let options = ZMQSocketOptions(
            linger: .zero, maxMessageSize: nil, heartbeat: nil, immediateOnDealers: false, curve: curve
        )
        socket = try ZMQSocket(type, context: context, options: options)
        try socket.setOption(.receiveTimeout, to: 30_000)
        try socket.setOption(.sendTimeout, to: 30_000)
        if type == .sub { try socket.setOption(.subscribe, to: []) }
        let monitorEndpoint = "inproc://curve-dealer-monitor-\(UUID().uuidString)"
        try socket.startMonitor(at: monitorEndpoint)
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

    func send(_ message: ClientMessage) async throws {
        try await onDedicatedThread("curve-dealer") { try self.sendNow(message) }
    }

    /// The next message other than `HEARTBEAT`, `ATTACH` and `DETACH`, waiting at most `milliseconds`; `nil` if none
    /// came.
    func receive(within milliseconds: Int32 = 30_000) async throws -> DaemonMessage? {
        try await onDedicatedThread("curve-dealer") { try self.receiveNow(within: milliseconds) }
    }

    private func sendNow(_ message: ClientMessage) throws {
        try socket.send(ZMQMessage(codec.encode(message)))
    }

    /// ``receive(within:)`` on the calling thread.
    private func receiveNow(within milliseconds: Int32 = 30_000) throws -> DaemonMessage? {
        try socket.setOption(.receiveTimeout, to: milliseconds)
        defer { try? socket.setOption(.receiveTimeout, to: 30_000) }
        while true {
            guard let message = try receiveFrames() else { return nil }
            guard case .daemon(let decoded) = try codec.decode(message.frames, from: .daemon) else {
                throw HarnessError("the daemon sent a client's message")
            }
            switch decoded {
            case .heartbeat, .attach, .detach: continue
            default: return decoded
            }
        }
    }

    /// The next message within the receive timeout, or `nil`.
    private func receiveFrames() throws(ZMQError) -> ZMQMessage? {
        do throws(ZMQError) {
            return try socket.receive()
        } catch {
            if error.code == .wouldBlock { return nil }
            throw error
        }
    }

    /// Sends a request and returns the code of its `ERROR`, or `nil` for an `OK` (fails on anything else, or silence).
    func request(_ message: ClientMessage) async throws -> WireError.Code? {
        try await onDedicatedThread("curve-dealer") { try self.requestNow(message) }
    }

    /// ``request(_:)`` on the calling thread.
    private func requestNow(_ message: ClientMessage) throws -> WireError.Code? {
        try sendNow(message)
        switch try receiveNow() {
        case .error(let error)?:
            guard error.req == message.req else { throw HarnessError("an ERROR for another request: \(error)") }
            return error.code
        case .ok(let reply)? where reply.req == message.req:
            return nil
        case .welcome(let welcome)?:
            throw HarnessError("expected OK or ERROR, got WELCOME \(welcome)")
        case let other:
            throw HarnessError("expected OK or ERROR for \(message.type), got \(String(describing: other))")
        }
    }

    /// Says `HELLO`; whether the daemon answered `WELCOME`.
    func hello(_ message: ClientMessage) async throws -> Bool {
        try await onDedicatedThread("curve-dealer") {
            try self.sendNow(message)
            guard case .welcome? = try self.receiveNow() else { return false }
            return true
        }
    }

    /// Reads monitor events until one of `kinds` arrives; returns the events read, the matching one last.
    func waitForConnectionEvent(_ kinds: ZMQMonitorEvent.Kind) async throws -> [ZMQMonitorEvent] {
        try await onDedicatedThread("curve-dealer-monitor") { try self.monitor.connectionEvents(until: kinds) }
    }
}
