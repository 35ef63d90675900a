/// A socket owned by a ``ZMQEventLoop``'s thread, named from async code.
///
/// The handle is only a name: every operation on the socket goes through the loop
/// (``ZMQEventLoop/send(_:on:timeout:)``, ``ZMQEventLoop/bind(_:to:)``, …), which carries it out on its thread. What
/// the socket receives arrives in ``messages``. Equality and hashing look at ``id`` only.
public struct ZMQSocketHandle: Hashable, Sendable, CustomStringConvertible {
    /// Unique among every loop's sockets in this process.
    public let id: UInt64
    /// The socket's type.
    public let type: ZMQSocketType
    /// The messages the socket receives, in order (for a ROUTER, each starts with the sender's routing id).
    public let messages: ZMQInbox

    init(id: UInt64, type: ZMQSocketType, messages: ZMQInbox) {
        self.id = id
        self.type = type
        self.messages = messages
    }

    public static func == (lhs: ZMQSocketHandle, rhs: ZMQSocketHandle) -> Bool { lhs.id == rhs.id }
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
    public var description: String { "\(type)#\(id)" }
}
