public import FlowDaemon
public import FlowWire

/// A message the daemon sent, to whom (decoded from the frames a transport would send).
public struct Delivery: Hashable, Sendable, CustomStringConvertible {
    public let peer: PeerAddress
    public let message: DaemonMessage

    public init(_ peer: PeerAddress, _ message: DaemonMessage) {
        self.peer = peer
        self.message = message
    }

    public var description: String { "→\(peer) \(message)" }
}

/// What one input made the daemon do, in order.
public struct DaemonOutcome: Sendable {
    /// The messages sent, each as its peer decodes it.
    public var sent: [Delivery] = []
    /// The events published, each as a subscriber decodes it.
    public var events: [EventMessage] = []
    /// The work asked of the daemon itself: `attach <session> <attachment>`, `resume …`, `detach …`, `adapt …`.
    public var local: [String] = []

    public init() {}

    /// The messages sent to one peer, in order.
    public func to(_ peer: PeerAddress) -> [DaemonMessage] { sent.filter { $0.peer == peer }.map(\.message) }
}
