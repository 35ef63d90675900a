public import FlowCore
public import FlowWire

/// What a fake peer heard from the daemon: every message, the replies by `req`, the errors, the `WELCOME`s.
public struct PeerRecord: Sendable {
    /// Every message received, in order.
    public internal(set) var messages: [DaemonMessage] = []
    /// The result of every `OK`, by `req`.
    public internal(set) var results: [UInt64: JSONValue] = [:]
    /// Every `ERROR` received.
    public internal(set) var errors: [ErrorReply] = []
    /// `WELCOME.daemon` of every `WELCOME` received, in order.
    public internal(set) var welcomedBy: [String] = []
    /// The `req` of the last request sent.
    public internal(set) var lastReq: UInt64 = 0

    mutating func nextReq() -> UInt64 {
        lastReq += 1
        return lastReq
    }

    /// Records the parts every peer keeps; the message itself is appended to ``messages``.
    mutating func note(_ message: DaemonMessage) {
        messages.append(message)
        switch message {
        case .ok(let reply): results[reply.req] = reply.result
        case .error(let reply): errors.append(reply)
        case .welcome(let welcome): welcomedBy.append(welcome.daemon)
        default: break
        }
    }
}
