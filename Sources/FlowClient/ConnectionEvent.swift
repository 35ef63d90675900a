import FlowWire

/// What a connection tells the client built on it, in the order it happened.
enum ConnectionEvent: Sendable {
    /// `WELCOME` arrived on a new connection; `daemonChanged` when the daemon's run ID differs from the one the
    /// previous connection saw (the daemon restarted and forgot everything).
    case connected(Welcome, daemonChanged: Bool)
    /// A message from the daemon that is not a reply (`ATTACH`, `COMMAND`, `HEARTBEAT`, an unattributed `ERROR`…).
    case message(DaemonMessage)
    /// The connection ended, for `reason`; a new one follows unless the client is stopping.
    case disconnected(reason: String)
}

/// What a request does when there is no welcomed connection at the moment it is made.
enum DisconnectedPolicy: Sendable {
    /// Wait for the next connection and go out right after its `HELLO`/`WELCOME`.
    case wait
    /// Fail at once with ``FlowClientError/Code/notConnected``.
    case fail
    /// Like ``wait``, and kept when the connection is lost after sending (for `STEP`, which the daemon de-duplicates
    /// by `HELLO.instance` and `req`, `docs/PROTOCOL.md` §5.3): sent again, with the same `req`, after the next
    /// `WELCOME` of the same daemon run; failed with ``FlowClientError/Code/notDelivered`` when the `WELCOME` names
    /// another run (that daemon lost its state). A timeout fails it with `notDelivered` when it was never handed to a
    /// daemon that may have carried it out, else with `timedOut`.
    case resend
}

/// A request handed to the connection, whose reply can be awaited.
struct RequestTicket: Sendable {
    let req: UInt64
    let type: MessageType
}
