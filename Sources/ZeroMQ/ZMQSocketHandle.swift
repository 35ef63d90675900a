/// A socket owned by a ``ZMQEventLoop``'s thread, named from async code.
///
/// The handle is only a name: every operation on the socket goes through the loop
/// (``ZMQEventLoop/send(_:on:timeout:)``, ``ZMQEventLoop/bind(_:to:)``, …), which carries it out on its thread. What
/// the socket receives arrives in ``messages``. Equality and hashing look at ``id`` only.
package struct ZMQSocketHandle: Hashable, Sendable, CustomStringConvertible {
    /// Unique among every loop's sockets in this process.
    package let id: UInt64
    /// The socket's type.
    package let type: ZMQSocketType
    /// The messages the socket receives, in order (for a ROUTER, each starts with the sender's routing id).
    package let messages: ZMQInbox

    package static func == (lhs: ZMQSocketHandle, rhs: ZMQSocketHandle) -> Bool { lhs.id == rhs.id }
    package func hash(into hasher: inout Hasher) { hasher.combine(id) }
    package var description: String { "\(type)#\(id)" }
}
