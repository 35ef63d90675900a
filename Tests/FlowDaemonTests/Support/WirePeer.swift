import FlowCore
import FlowDaemon
import FlowWire
import Foundation
import Logging
import ZeroMQ

/// A DEALER on the daemon's control endpoint that speaks the wire protocol through the codec; sends block for at most
/// 30 s, receives for at most 30 s (``receiveReply()``) or not at all (``tryReceive()``).
///
/// Not `Sendable`: libzmq sockets belong to one thread.
final class WirePeer {
    let socket: ZMQSocket
    /// Reads bodies of any size: a snapshot may be larger than what the daemon accepts.
    private let codec = WireCodec(maxBodyBytes: 64 << 20)
    private var nextReq: UInt64 = 1

    /// - Parameters:
    ///   - receiveHighWaterMark: `ZMQ_RCVHWM`; small for a peer meant to fall behind.
    ///   - sendHighWaterMark: `ZMQ_SNDHWM`; large for a peer meant to flood.
    init(
        context: ZMQContext, endpoint: String, receiveHighWaterMark: Int32? = nil, sendHighWaterMark: Int32? = nil
    ) throws {
        let options = ZMQSocketOptions(
            linger: .zero, maxMessageSize: nil, heartbeat: nil, sendHighWaterMark: sendHighWaterMark,
            receiveHighWaterMark: receiveHighWaterMark
        )
        socket = try ZMQSocket(.dealer, context: context, options: options)
        try socket.setOption(.receiveTimeout, to: 30_000)
        try socket.setOption(.sendTimeout, to: 30_000)
        try socket.connect(endpoint)
    }

    func close() { socket.close() }

    func req() -> UInt64 {
        nextReq += 1
        return nextReq
    }

    func send(_ message: ClientMessage) throws { try send(frames: codec.encode(message)) }

    func send(frames: [[UInt8]]) throws { try socket.send(ZMQMessage(frames)) }

    /// The next message if one is queued.
    func tryReceive() throws -> DaemonMessage? {
        guard let message = try socket.tryReceive() else { return nil }
        guard case .daemon(let decoded) = try codec.decode(message.frames, from: .daemon) else {
            throw ScenarioFailure("the daemon sent a client's message")
        }
        return decoded
    }

    /// Waits for the next message.
    func receive() throws -> DaemonMessage {
        guard case .daemon(let message) = try codec.decode(try socket.receive().frames, from: .daemon) else {
            throw ScenarioFailure("the daemon sent a client's message")
        }
        return message
    }

    /// Waits for the next message that is not a `HEARTBEAT`.
    func receiveReply() throws -> DaemonMessage {
        while true {
            let message = try receive()
            if case .heartbeat = message { continue }
            return message
        }
    }

    /// Says `HELLO` (announcing a 60 s heartbeat, so that the daemon counts a silent peer alive for 3 minutes) and
    /// waits for the `WELCOME`.
    func hello(role: PeerRole, name: String, serves: [String] = []) throws -> Welcome {
        try send(
            .hello(Hello(req: req(), role: role, name: name, instance: name, heartbeatMs: 60_000, serves: serves)))
        let reply = try receiveReply()
        guard case .welcome(let welcome) = reply else { throw ScenarioFailure("expected WELCOME, got \(reply)") }
        return welcome
    }
}

struct ScenarioFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
