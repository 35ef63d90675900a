internal import FlowWire
internal import Logging

/// Warns when the daemon sends a message larger than a `FlowClient` client takes by default
/// (``WireProtocol/clientMaxMessageBytes``): that client's libzmq drops the connection on reading it, and a presenter
/// is sent the same `SNAPSHOT` at every `SYNC` (docs/LIMITS.md, *Known gaps*). A client's own bound is not in `HELLO`,
/// so the daemon sends the message all the same and says so: the 1st, 10th, 100th… such message is logged.
struct LargeSendWarning {
    let limit: Int
    /// Messages over ``limit`` sent since the start.
    private(set) var count = 0

    init(limit: Int = WireProtocol.clientMaxMessageBytes) { self.limit = limit }

    /// A message of `type` and `bytes` (its body) was sent to `peer`.
    mutating func sent(_ type: MessageType, bytes: Int, to peer: PeerAddress, logger: Logger) {
        guard bytes > limit else { return }
        count += 1
        guard RepeatedWarning.isLogged(count) else { return }
        logger.warning(
            "sent a message larger than a FlowClient client takes by default: it drops the connection (docs/LIMITS.md)",
            metadata: [
                "type": "\(type.rawValue)", "bytes": "\(bytes)", "limit": "\(limit)", "peer": "\(peer)",
                "larger_so_far": "\(count)",
            ])
    }
}
