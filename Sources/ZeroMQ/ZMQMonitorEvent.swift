internal import CZeroMQ

/// One connection event from a socket monitor (``ZMQSocket/startMonitor(at:events:)``,
/// ``ZMQEventLoop/startMonitor(_:events:)``): a connection accepted, lost, or a failed CURVE handshake.
package struct ZMQMonitorEvent: Hashable, Sendable, CustomStringConvertible {
    /// Kinds of monitor events (`ZMQ_EVENT_*`), combinable to choose what is monitored.
    package struct Kind: ZMQNamedFlags, Hashable, Sendable {
        package let rawValue: UInt16

        package init(rawValue: UInt16) { self.rawValue = rawValue }

        /// `ZMQ_EVENT_CONNECTED`: an outgoing connection was made.
        package static let connected = Kind(rawValue: UInt16(ZMQ_EVENT_CONNECTED))
        /// `ZMQ_EVENT_CONNECT_DELAYED`: a connect attempt is pending.
        package static let connectDelayed = Kind(rawValue: UInt16(ZMQ_EVENT_CONNECT_DELAYED))
        /// `ZMQ_EVENT_CONNECT_RETRIED`: a reconnect was scheduled (value: the interval in ms).
        package static let connectRetried = Kind(rawValue: UInt16(ZMQ_EVENT_CONNECT_RETRIED))
        /// `ZMQ_EVENT_LISTENING`: a bind succeeded.
        package static let listening = Kind(rawValue: UInt16(ZMQ_EVENT_LISTENING))
        /// `ZMQ_EVENT_BIND_FAILED`: a bind failed (value: errno).
        package static let bindFailed = Kind(rawValue: UInt16(ZMQ_EVENT_BIND_FAILED))
        /// `ZMQ_EVENT_ACCEPTED`: an incoming connection was accepted.
        package static let accepted = Kind(rawValue: UInt16(ZMQ_EVENT_ACCEPTED))
        /// `ZMQ_EVENT_ACCEPT_FAILED`: an incoming connection was refused (value: errno).
        package static let acceptFailed = Kind(rawValue: UInt16(ZMQ_EVENT_ACCEPT_FAILED))
        /// `ZMQ_EVENT_CLOSED`: a connection's socket was closed.
        package static let closed = Kind(rawValue: UInt16(ZMQ_EVENT_CLOSED))
        /// `ZMQ_EVENT_CLOSE_FAILED`: closing failed (value: errno).
        package static let closeFailed = Kind(rawValue: UInt16(ZMQ_EVENT_CLOSE_FAILED))
        /// `ZMQ_EVENT_DISCONNECTED`: a connection was lost or dropped (e.g. an oversized message, a heartbeat timeout).
        package static let disconnected = Kind(rawValue: UInt16(ZMQ_EVENT_DISCONNECTED))
        /// `ZMQ_EVENT_MONITOR_STOPPED`: the monitor was stopped; no event follows.
        package static let monitorStopped = Kind(rawValue: UInt16(ZMQ_EVENT_MONITOR_STOPPED))
        /// `ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL`: a ZMTP handshake failed for an unspecified reason.
        package static let handshakeFailedNoDetail = Kind(rawValue: UInt16(ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL))
        /// `ZMQ_EVENT_HANDSHAKE_SUCCEEDED`: a ZMTP handshake (and its security mechanism) succeeded.
        package static let handshakeSucceeded = Kind(rawValue: UInt16(ZMQ_EVENT_HANDSHAKE_SUCCEEDED))
        /// `ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL`: the peer broke the protocol, e.g. a security mechanism mismatch
        /// (value: a `ZMQ_PROTOCOL_ERROR_*` code).
        package static let handshakeFailedProtocol = Kind(rawValue: UInt16(ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL))
        /// `ZMQ_EVENT_HANDSHAKE_FAILED_AUTH`: the ZAP handler refused the peer (value: the ZAP status code).
        package static let handshakeFailedAuth = Kind(rawValue: UInt16(ZMQ_EVENT_HANDSHAKE_FAILED_AUTH))
        /// Every event kind.
        package static let all = Kind(rawValue: UInt16(ZMQ_EVENT_ALL))

        /// Every kind meaning a ZMTP handshake failed.
        package static let handshakeFailed: Kind = [.handshakeFailedNoDetail, .handshakeFailedProtocol,
                                                   .handshakeFailedAuth]

        package static let names: [(flag: Kind, name: String)] = [
            (.connected, "connected"), (.connectDelayed, "connectDelayed"), (.connectRetried, "connectRetried"),
            (.listening, "listening"), (.bindFailed, "bindFailed"), (.accepted, "accepted"),
            (.acceptFailed, "acceptFailed"), (.closed, "closed"), (.closeFailed, "closeFailed"),
            (.disconnected, "disconnected"), (.monitorStopped, "monitorStopped"),
            (.handshakeFailedNoDetail, "handshakeFailedNoDetail"), (.handshakeSucceeded, "handshakeSucceeded"),
            (.handshakeFailedProtocol, "handshakeFailedProtocol"), (.handshakeFailedAuth, "handshakeFailedAuth"),
        ]
    }

    /// What happened.
    package let kind: Kind
    /// The event's value: an errno, a reconnect interval, a protocol error or ZAP status code, or a file descriptor.
    package let value: UInt32
    /// The endpoint the event is about.
    package let endpoint: String

    /// Parses a message a monitor socket received: a 6-byte frame (event, value; native byte order) and the endpoint.
    ///
    /// - Returns: `nil` when `message` is not a monitor event.
    package init?(_ message: ZMQMessage) {
        guard message.count == 2, message[0].count == 6 else { return nil }
        let header = message[0]
        kind = Kind(rawValue: header.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 0, as: UInt16.self) })
        value = header.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 2, as: UInt32.self) }
        endpoint = String(decoding: message[1], as: UTF8.self)
    }

    package var description: String { "\(kind) \(endpoint) (\(value))" }
}
