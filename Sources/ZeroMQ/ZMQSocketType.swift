internal import CZeroMQ

/// The kind of a libzmq socket, which fixes its messaging pattern.
///
/// A struct with static members rather than an enum, so more types can be added without breaking `switch`es.
package struct ZMQSocketType: Hashable, Sendable, CustomStringConvertible {
    /// libzmq's `ZMQ_*` socket type constant.
    let rawValue: Int32
    private let name: String

    private init(_ rawValue: Int32, _ name: String) {
        self.rawValue = rawValue
        self.name = name
    }

    /// `ZMQ_ROUTER`: prefixes each received message with the sender's routing id and routes by the first frame.
    package static let router = ZMQSocketType(ZMQ_ROUTER, "ROUTER")
    /// `ZMQ_DEALER`: asynchronous request/reply client; round-robins outgoing messages over its peers.
    package static let dealer = ZMQSocketType(ZMQ_DEALER, "DEALER")
    /// `ZMQ_PUB`: publishes to every matching subscriber; drops at the high-water mark.
    package static let pub = ZMQSocketType(ZMQ_PUB, "PUB")
    /// `ZMQ_SUB`: receives the messages whose first frame starts with a subscribed prefix.
    package static let sub = ZMQSocketType(ZMQ_SUB, "SUB")
    /// `ZMQ_XPUB`: a PUB that also receives its subscribers' (un)subscriptions as messages.
    package static let xpub = ZMQSocketType(ZMQ_XPUB, "XPUB")
    /// `ZMQ_XSUB`: a SUB that sends subscriptions as messages.
    package static let xsub = ZMQSocketType(ZMQ_XSUB, "XSUB")
    /// `ZMQ_PAIR`: exactly one peer, both directions; meant for `inproc://`.
    package static let pair = ZMQSocketType(ZMQ_PAIR, "PAIR")
    /// `ZMQ_PUSH`: pipeline sender; round-robins over its peers.
    package static let push = ZMQSocketType(ZMQ_PUSH, "PUSH")
    /// `ZMQ_PULL`: pipeline receiver; fair-queues from its peers.
    package static let pull = ZMQSocketType(ZMQ_PULL, "PULL")
    /// `ZMQ_REQ`: strict send/receive alternation (the ZAP handler protocol's client side).
    package static let req = ZMQSocketType(ZMQ_REQ, "REQ")
    /// `ZMQ_REP`: strict receive/send alternation (a ZAP handler's socket).
    package static let rep = ZMQSocketType(ZMQ_REP, "REP")

    package var description: String { name }
}
