import FlowDaemon
import Foundation
import LibC
import Logging
import TestFlows
import Testing
import ZeroMQ

/// The events socket's ZMTP heartbeats (docs/LIMITS.md): the daemon PINGs every subscriber, and drops one that stops
/// answering (a stopped process, a vanished host), so that its queue and its subscriptions go; a subscriber whose
/// libzmq runs answers on its own and stays. The silent subscriber is a plain TCP connection speaking ZMTP 3.0 by
/// hand: it says `READY` as a `SUB`, subscribes to `nav/`, then reads without answering.
struct EventsHeartbeatTests {
    @Test func aSubscriberThatStopsAnsweringIsDroppedAndOneThatAnswersStays() async throws {
        let heartbeat = ZMQSocketOptions.Heartbeat(interval: .milliseconds(200), timeout: .seconds(2), ttl: .seconds(2))
        let outcome = try await withTCPDaemon(heartbeat: heartbeat) { events in
            let context = try ZMQContext()
            let answering = try AnsweringSubscriber(endpoint: events, context: context)
            defer { answering.close() }
            let silent = try SilentSubscriber(endpoint: events)
            defer { silent.close() }
            let dropped = try silent.readUntilDropped()
            return (dropped, silent.received, try answering.connectionEventsSince())
        }
        let (dropped, received, answeringEvents) = outcome
        #expect(received.contains(SilentSubscriber.ping), "the daemon sent no PING on its events socket")
        #expect(dropped, "the daemon kept a subscriber that answered no PING")
        #expect(
            !answeringEvents.contains { $0.kind.contains(.disconnected) },
            "the subscriber that answers was dropped too: \(answeringEvents)"
        )
    }

    @Test func withHeartbeatsOffTheDaemonSendsNoPing() async throws {
        let (dropped, received) = try await withTCPDaemon(heartbeat: nil) { events in
            let silent = try SilentSubscriber(endpoint: events)
            defer { silent.close() }
            // Five of the other test's PING intervals.
            return (try silent.readUntilDropped(giveUpAfterMs: 1000), silent.received)
        }
        #expect(!dropped)
        #expect(received.contains(SilentSubscriber.ready))
        #expect(!received.contains(SilentSubscriber.ping))
    }
}

/// A `SUB` of libzmq's own (its library answers PINGs), with a monitor of its connection.
private final class AnsweringSubscriber {
    let socket: ZMQSocket
    let monitor: ZMQSocket

    init(endpoint: String, context: ZMQContext) throws {
        socket = try ZMQSocket(.sub, context: context, options: ZMQSocketOptions(linger: .zero, heartbeat: nil))
        let monitorEndpoint = "inproc://answering-subscriber-\(UUID().uuidString)"
        try socket.startMonitor(at: monitorEndpoint, events: [.disconnected, .handshakeSucceeded])
        monitor = try ZMQSocket(.pair, context: context, options: ZMQSocketOptions(linger: .zero, heartbeat: nil))
        try monitor.setOption(.receiveTimeout, to: 30_000)
        try monitor.connect(monitorEndpoint)
        try socket.setOption(.subscribe, to: Array("nav/".utf8))
        try socket.connect(endpoint)
        // Connected before the silent one, so it has gone as long without a PING of its own answered.
        while true {
            guard let event = ZMQMonitorEvent(try monitor.receive()) else { continue }
            if event.kind.contains(.handshakeSucceeded) { break }
        }
    }

    /// The monitor's events since the handshake, waiting one more PING timeout for any still coming.
    func connectionEventsSince() throws -> [ZMQMonitorEvent] {
        try monitor.setOption(.receiveTimeout, to: 2_000)
        var events: [ZMQMonitorEvent] = []
        while let message = try receiveUnlessTimedOut(monitor) {
            if let event = ZMQMonitorEvent(message) { events.append(event) }
        }
        return events
    }

    func close() {
        try? socket.stopMonitor()
        socket.close()
        monitor.close()
    }
}

/// A subscriber that completes the ZMTP 3.0 handshake as a `SUB` over a plain TCP connection, subscribes to `nav/`,
/// and never answers a PING.
private final class SilentSubscriber {
    static let ready = Array("\u{5}READY".utf8)
    static let ping = Array("\u{4}PING".utf8)

    private let descriptor: Int32
    /// Every byte the daemon sent.
    private(set) var received: [UInt8] = []

    /// Connects to `endpoint` (`tcp://127.0.0.1:<port>`).
    init(endpoint: String) throws {
        guard let port = endpoint.split(separator: ":").last.flatMap({ UInt16($0) }) else {
            throw SilentSubscriberError("not a loopback TCP endpoint: \(endpoint)")
        }
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw SilentSubscriberError("socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            _ = LibC.close(descriptor)
            throw SilentSubscriberError("connect: errno \(errno)")
        }
        let signature: [UInt8] = [0xFF] + [UInt8](repeating: 0, count: 8) + [0x7F]
        let mechanism = Array("NULL".utf8) + [UInt8](repeating: 0, count: 16)
        let greeting = signature + [3, 0] + mechanism + [0] + [UInt8](repeating: 0, count: 31)
        let readyBody = Self.ready + [11] + Array("Socket-Type".utf8) + [0, 0, 0, 3] + Array("SUB".utf8)
        try send(greeting + [0x04, UInt8(readyBody.count)] + readyBody)
        // A message sent before the daemon's READY would be taken for a handshake command.
        while !received.contains(Self.ready) {
            guard try receive(timeoutMs: 30_000) else { throw SilentSubscriberError("dropped during the handshake") }
        }
        let subscription = [1] + Array("nav/".utf8)
        try send([0x00, UInt8(subscription.count)] + subscription)
    }

    /// Reads what the daemon sends until it closes the connection (`true`) or `giveUpAfterMs` pass without it.
    func readUntilDropped(giveUpAfterMs: Int = 30_000) throws -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(giveUpAfterMs)
        while ContinuousClock.now < deadline {
            if !(try receive(timeoutMs: 100)) { return true }
        }
        return false
    }

    func close() { _ = LibC.close(descriptor) }

    private func send(_ bytes: [UInt8]) throws {
        let sent = bytes.withUnsafeBytes { LibC.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == bytes.count else { throw SilentSubscriberError("send: errno \(errno)") }
    }

    /// Waits up to `timeoutMs` for bytes and keeps them; `false` once the daemon closed the connection.
    private func receive(timeoutMs: Int32) throws -> Bool {
        var poll = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard LibC.poll(&poll, 1, timeoutMs) > 0 else { return true }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        if count > 0 {
            received += buffer[..<count]
            return true
        }
        if count == 0 || errno == ECONNRESET { return false }
        throw SilentSubscriberError("recv: errno \(errno)")
    }
}

private struct SilentSubscriberError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The next message, or `nil` when the socket's receive timeout runs out first.
private func receiveUnlessTimedOut(_ socket: ZMQSocket) throws -> ZMQMessage? {
    do {
        return try socket.receive()
    } catch {
        if error.code == .wouldBlock { return nil }
        throw error
    }
}

/// Runs `body` with the events endpoint of a ``TickerApplication`` daemon on loopback TCP (the silent subscriber
/// speaks TCP), with `heartbeat` as its sockets' ZMTP heartbeats.
private func withTCPDaemon<Result: Sendable>(
    heartbeat: ZMQSocketOptions.Heartbeat?, _ body: @escaping @Sendable (String) throws -> Result
) async throws -> Result {
    let server = DaemonServer.Configuration(
        controlEndpoint: "tcp://127.0.0.1:*", eventsEndpoint: "tcp://127.0.0.1:*",
        socketOptions: ZMQSocketOptions(heartbeat: heartbeat)
    )
    return try await withTickerDaemon(server) { try body($0.events) }
}
