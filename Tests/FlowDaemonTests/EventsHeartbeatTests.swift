import FlowDaemon
import Foundation
import Logging
import TestFlows
import Testing
import ZeroMQ

/// The events socket's ZMTP heartbeats (docs/LIMITS.md): the daemon PINGs every subscriber, and drops one that stops
/// answering (a stopped process, a vanished host), so that its queue and its subscriptions go; a subscriber whose libzmq
/// runs answers on its own and stays. The silent subscriber is a `STREAM` socket speaking ZMTP 3.0 by hand: it says
/// `READY` as a `SUB`, subscribes to `nav/`, then reads without answering.
struct EventsHeartbeatTests {
    @Test func aSubscriberThatStopsAnsweringIsDroppedAndOneThatAnswersStays() async throws {
        let heartbeat = ZMQSocketOptions.Heartbeat(interval: .milliseconds(200), timeout: .seconds(2), ttl: .seconds(2))
        let outcome = try await withTCPDaemon(heartbeat: heartbeat) { events in
            let context = try ZMQContext()
            let answering = try AnsweringSubscriber(endpoint: events, context: context)
            defer { answering.close() }
            let silent = try SilentSubscriber(endpoint: events, context: context)
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
            let context = try ZMQContext()
            let silent = try SilentSubscriber(endpoint: events, context: context)
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

/// A subscriber that completes the ZMTP 3.0 handshake as a `SUB`, subscribes to `nav/`, and never answers a PING.
private final class SilentSubscriber {
    static let ready = Array("\u{5}READY".utf8)
    static let ping = Array("\u{4}PING".utf8)

    let socket: ZMQSocket
    let peer: [UInt8]
    /// Every byte the daemon sent.
    private(set) var received: [UInt8] = []

    init(endpoint: String, context: ZMQContext) throws {
        socket = try ZMQSocket(
            .stream, context: context, options: ZMQSocketOptions(linger: .zero, maxMessageSize: nil, heartbeat: nil))
        try socket.setOption(.receiveTimeout, to: 30_000)
        try socket.connect(endpoint)
        // The connection's notification: the peer's routing id and no bytes.
        peer = try socket.receive().frames[0]
        let signature: [UInt8] = [0xFF] + [UInt8](repeating: 0, count: 8) + [0x7F]
        let mechanism = Array("NULL".utf8) + [UInt8](repeating: 0, count: 16)
        let greeting = signature + [3, 0] + mechanism + [0] + [UInt8](repeating: 0, count: 31)
        let readyBody = Self.ready + [11] + Array("Socket-Type".utf8) + [0, 0, 0, 3] + Array("SUB".utf8)
        try socket.send(ZMQMessage([peer, greeting + [0x04, UInt8(readyBody.count)] + readyBody]))
        // A message sent before the daemon's READY would be taken for a handshake command.
        while !received.contains(Self.ready) {
            let frames = try socket.receive().frames
            guard frames.count == 2, !frames[1].isEmpty else { throw DroppedDuringHandshake() }
            received += frames[1]
        }
        let subscription = [1] + Array("nav/".utf8)
        try socket.send(ZMQMessage([peer, [0x00, UInt8(subscription.count)] + subscription]))
    }

    /// Reads what the daemon sends until it closes the connection (`true`) or `giveUpAfterMs` pass without it.
    func readUntilDropped(giveUpAfterMs: Int32 = 30_000) throws -> Bool {
        try socket.setOption(.receiveTimeout, to: giveUpAfterMs)
        let deadline = ContinuousClock.now + .milliseconds(giveUpAfterMs)
        while ContinuousClock.now < deadline {
            guard let frames = try receiveUnlessTimedOut(socket)?.frames else { return false }
            guard frames.count == 2 else { continue }
            if frames[1].isEmpty { return true }
            received += frames[1]
        }
        return false
    }

    func close() { socket.close() }
}

private struct DroppedDuringHandshake: Error {}

/// The next message, or `nil` when the socket's receive timeout runs out first.
private func receiveUnlessTimedOut(_ socket: ZMQSocket) throws -> ZMQMessage? {
    do {
        return try socket.receive()
    } catch {
        if error.code == .wouldBlock { return nil }
        throw error
    }
}

extension Array where Element == UInt8 {
    fileprivate func contains(_ run: [UInt8]) -> Bool {
        guard run.count <= count else { return false }
        return (0...(count - run.count)).contains { self[$0..<($0 + run.count)].elementsEqual(run) }
    }
}

/// Runs `body` on a thread of its own against a live `DaemonServer` on loopback TCP (a `STREAM` socket speaks TCP
/// only), with `heartbeat` as its sockets' ZMTP heartbeats.
private func withTCPDaemon<Result: Sendable>(
    heartbeat: ZMQSocketOptions.Heartbeat?, _ body: @escaping @Sendable (String) throws -> Result
) async throws -> Result {
    let server = DaemonServer(
        application: TickerApplication(),
        configuration: DaemonServer.Configuration(
            controlEndpoint: "tcp://127.0.0.1:*", eventsEndpoint: "tcp://127.0.0.1:*",
            socketOptions: ZMQSocketOptions(heartbeat: heartbeat)
        ),
        logger: Logger(label: "EventsHeartbeatTests", factory: { _ in SwiftLogNoOpLogHandler() })
    )
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await server.run() }
        defer { server.stop() }
        let bound = try await server.waitUntilReady()
        return try await onDedicatedThread("events-heartbeat-test") { try body(bound.events) }
    }
}
