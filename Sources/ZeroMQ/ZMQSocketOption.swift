internal import CZeroMQ

/// A typed libzmq socket option (`zmq_setsockopt` / `zmq_getsockopt`), used as
/// `try socket.setOption(.linger, to: 0)` and `try socket.option(.lastEndpoint)`.
///
/// Durations are in milliseconds, as libzmq takes them. The options ``ZMQSocketOptions`` sets on every socket are
/// documented there.
package struct ZMQSocketOption<Value: Sendable>: Sendable, CustomStringConvertible {
    /// libzmq's `ZMQ_*` option constant.
    let name: Int32
    /// The option's libzmq name, for errors.
    let label: String
    /// Buffer size for `zmq_getsockopt`.
    let capacity: Int
    let encode: @Sendable (Value) throws(ZMQError) -> [UInt8]
    let decode: @Sendable ([UInt8]) throws(ZMQError) -> Value

    package var description: String { label }
}

// MARK: - Encodings

extension ZMQSocketOption where Value == Int32 {
    fileprivate static func int32(_ name: Int32, _ label: String) -> Self {
        Self(name: name, label: label, capacity: 4, encode: { withUnsafeBytes(of: $0) { Array($0) } }, decode: {
            bytes throws(ZMQError) in
            guard bytes.count == 4 else { throw ZMQError(.invalidArgument, call: "zmq_getsockopt(\(label))") }
            return bytes.withUnsafeBytes { $0.loadUnaligned(as: Int32.self) }
        })
    }

    fileprivate static func readOnlyInt32(_ name: Int32, _ label: String) -> Self {
        let readable = int32(name, label)
        return Self(name: name, label: label, capacity: 4, encode: { _ throws(ZMQError) in
            throw ZMQError(.invalidArgument, call: "zmq_setsockopt(\(label)): read-only option")
        }, decode: readable.decode)
    }

    /// `ZMQ_LINGER`, ms: how long queued outgoing messages are kept after close; -1 forever (blocks context
    /// termination), 0 drops them at once.
    package static var linger: Self { int32(ZMQ_LINGER, "ZMQ_LINGER") }
    /// `ZMQ_SNDHWM`: outgoing messages queued per peer before sends block (or PUB/ROUTER drop); 0 means no limit.
    package static var sendHighWaterMark: Self { int32(ZMQ_SNDHWM, "ZMQ_SNDHWM") }
    /// `ZMQ_RCVHWM`: incoming messages queued per peer before the peer is held back; 0 means no limit.
    package static var receiveHighWaterMark: Self { int32(ZMQ_RCVHWM, "ZMQ_RCVHWM") }
    /// `ZMQ_HEARTBEAT_IVL`, ms: send a ZMTP PING this often; 0 disables heartbeats.
    package static var heartbeatInterval: Self { int32(ZMQ_HEARTBEAT_IVL, "ZMQ_HEARTBEAT_IVL") }
    /// `ZMQ_HEARTBEAT_TIMEOUT`, ms: drop the connection when nothing arrives this long after a PING.
    package static var heartbeatTimeout: Self { int32(ZMQ_HEARTBEAT_TIMEOUT, "ZMQ_HEARTBEAT_TIMEOUT") }
    /// `ZMQ_HEARTBEAT_TTL`, ms: ask the peer to drop the connection when it hears nothing from us this long
    /// (rounded down to tenths of a second; below 100 ms it has no effect).
    package static var heartbeatTTL: Self { int32(ZMQ_HEARTBEAT_TTL, "ZMQ_HEARTBEAT_TTL") }
    /// `ZMQ_RCVTIMEO`, ms: a blocking receive fails with ``ZMQError/Code/wouldBlock`` after this; -1 waits forever.
    package static var receiveTimeout: Self { int32(ZMQ_RCVTIMEO, "ZMQ_RCVTIMEO") }
    /// `ZMQ_SNDTIMEO`, ms: a blocking send fails with ``ZMQError/Code/wouldBlock`` after this; -1 waits forever.
    package static var sendTimeout: Self { int32(ZMQ_SNDTIMEO, "ZMQ_SNDTIMEO") }
    /// `ZMQ_RECONNECT_IVL`, ms: wait before reconnecting a lost connection; -1 never reconnects.
    package static var reconnectInterval: Self { int32(ZMQ_RECONNECT_IVL, "ZMQ_RECONNECT_IVL") }
    /// `ZMQ_BACKLOG`: the connections the kernel queues for a listener bound after it is set, beyond which a
    /// connecting peer is refused for now (and retries); libzmq's default is 100.
    package static var backlog: Self { int32(ZMQ_BACKLOG, "ZMQ_BACKLOG") }
    /// `ZMQ_HANDSHAKE_IVL`, ms: drop a connection whose ZMTP handshake takes longer; 0 never.
    package static var handshakeInterval: Self { int32(ZMQ_HANDSHAKE_IVL, "ZMQ_HANDSHAKE_IVL") }
    /// `ZMQ_FD` (read-only): a file descriptor that signals, edge-triggered and by readability only, that
    /// ``events`` may have changed. Never read, write or close it.
    package static var fileDescriptor: Self { readOnlyInt32(ZMQ_FD, "ZMQ_FD") }
}

extension ZMQSocketOption where Value == Int64 {
    /// `ZMQ_MAXMSGSIZE`, bytes: a peer sending a larger message is disconnected; -1 means no limit.
    package static var maxMessageSize: Self {
        Self(name: ZMQ_MAXMSGSIZE, label: "ZMQ_MAXMSGSIZE", capacity: 8, encode: {
            withUnsafeBytes(of: $0) { Array($0) }
        }, decode: { bytes throws(ZMQError) in
            guard bytes.count == 8 else { throw ZMQError(.invalidArgument, call: "zmq_getsockopt(ZMQ_MAXMSGSIZE)") }
            return bytes.withUnsafeBytes { $0.loadUnaligned(as: Int64.self) }
        })
    }
}

extension ZMQSocketOption where Value == Bool {
    fileprivate static func flag(_ name: Int32, _ label: String) -> Self {
        let raw = ZMQSocketOption<Int32>.int32(name, label)
        return Self(name: name, label: label, capacity: 4, encode: { value throws(ZMQError) in
            try raw.encode(value ? 1 : 0)
        }, decode: { bytes throws(ZMQError) in
            try raw.decode(bytes) != 0
        })
    }

    /// `ZMQ_ROUTER_MANDATORY` (ROUTER): sending to an unknown routing id fails with
    /// ``ZMQError/Code/hostUnreachable`` (and a full peer with ``ZMQError/Code/wouldBlock``) instead of being
    /// dropped silently. Write-only in libzmq 4.3 (reading it fails with ``ZMQError/Code/invalidArgument``).
    package static var routerMandatory: Self { flag(ZMQ_ROUTER_MANDATORY, "ZMQ_ROUTER_MANDATORY") }
    /// `ZMQ_ROUTER_HANDOVER` (ROUTER): a new connection with a routing id in use takes it over (instead of being
    /// refused).
    package static var routerHandover: Self { flag(ZMQ_ROUTER_HANDOVER, "ZMQ_ROUTER_HANDOVER") }
    /// `ZMQ_IMMEDIATE`: queue outgoing messages only on completed connections, so a send with no connected peer
    /// would block instead of parking the message on a connection that may never complete.
    package static var immediate: Self { flag(ZMQ_IMMEDIATE, "ZMQ_IMMEDIATE") }
    /// `ZMQ_XPUB_NODROP` (XPUB): a send that a subscriber's full queue cannot take fails with
    /// ``ZMQError/Code/wouldBlock`` (and reaches nobody) instead of being dropped for that subscriber silently. May be
    /// changed at any time.
    package static var xpubNoDrop: Self { flag(ZMQ_XPUB_NODROP, "ZMQ_XPUB_NODROP") }
    /// `ZMQ_CURVE_SERVER`: act as CURVE server (needs ``curveSecretKey``); set before bind or connect.
    package static var curveServer: Self { flag(ZMQ_CURVE_SERVER, "ZMQ_CURVE_SERVER") }
}

extension ZMQSocketOption where Value == [UInt8] {
    fileprivate static func bytes(_ name: Int32, _ label: String, readable: Bool) -> Self {
        Self(name: name, label: label, capacity: readable ? 256 : 0, encode: { $0 }, decode: { $0 })
    }

    /// `ZMQ_ROUTING_ID`: this socket's routing id as a ROUTER peer sees it (1 to 255 bytes, not starting with a
    /// zero byte); set before connect.
    package static var routingID: Self { bytes(ZMQ_ROUTING_ID, "ZMQ_ROUTING_ID", readable: true) }
    /// `ZMQ_SUBSCRIBE` (SUB, write-only): receive messages whose first frame starts with this prefix; empty
    /// subscribes to everything.
    package static var subscribe: Self { bytes(ZMQ_SUBSCRIBE, "ZMQ_SUBSCRIBE", readable: false) }
    /// `ZMQ_UNSUBSCRIBE` (SUB, write-only): removes one matching ``subscribe``.
    package static var unsubscribe: Self { bytes(ZMQ_UNSUBSCRIBE, "ZMQ_UNSUBSCRIBE", readable: false) }
}

extension ZMQSocketOption where Value == String {
    /// Strings are set without and read with a terminating NUL.
    fileprivate static func string(_ name: Int32, _ label: String, writable: Bool) -> Self {
        Self(name: name, label: label, capacity: 1024, encode: { value throws(ZMQError) in
            guard writable else { throw ZMQError(.invalidArgument, call: "zmq_setsockopt(\(label)): read-only option") }
            return Array(value.utf8)
        }, decode: { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        })
    }

    /// `ZMQ_LAST_ENDPOINT` (read-only): the endpoint of the last bind or connect, with a wildcard port resolved
    /// (bind `tcp://127.0.0.1:*`, then read the port here).
    package static var lastEndpoint: Self { string(ZMQ_LAST_ENDPOINT, "ZMQ_LAST_ENDPOINT", writable: false) }
    /// `ZMQ_ZAP_DOMAIN`: the domain sent to the ZAP handler (`inproc://zeromq.zap.01`) for this socket's peers.
    package static var zapDomain: Self { string(ZMQ_ZAP_DOMAIN, "ZMQ_ZAP_DOMAIN", writable: true) }
}

extension ZMQSocketOption where Value == ZMQCurveKey {
    fileprivate static func curveKey(_ name: Int32, _ label: String) -> Self {
        Self(name: name, label: label, capacity: ZMQCurveKey.byteCount, encode: { $0.bytes }, decode: {
            bytes throws(ZMQError) in try ZMQCurveKey(bytes: bytes)
        })
    }

    /// `ZMQ_CURVE_PUBLICKEY` (CURVE client): this socket's long-term public key.
    package static var curvePublicKey: Self { curveKey(ZMQ_CURVE_PUBLICKEY, "ZMQ_CURVE_PUBLICKEY") }
    /// `ZMQ_CURVE_SECRETKEY` (CURVE client and server): this socket's long-term secret key.
    package static var curveSecretKey: Self { curveKey(ZMQ_CURVE_SECRETKEY, "ZMQ_CURVE_SECRETKEY") }
    /// `ZMQ_CURVE_SERVERKEY` (CURVE client): the server's public key; setting it makes the socket a CURVE client.
    package static var curveServerKey: Self { curveKey(ZMQ_CURVE_SERVERKEY, "ZMQ_CURVE_SERVERKEY") }
}

extension ZMQSocketOption where Value == ZMQEvents {
    /// `ZMQ_EVENTS` (read-only): whether a message can be received or sent now. Re-read it after every send and
    /// receive when waiting on ``fileDescriptor``.
    package static var events: Self {
        let raw = ZMQSocketOption<Int32>.readOnlyInt32(ZMQ_EVENTS, "ZMQ_EVENTS")
        return Self(name: raw.name, label: raw.label, capacity: 4, encode: { _ throws(ZMQError) in
            throw ZMQError(.invalidArgument, call: "zmq_setsockopt(ZMQ_EVENTS): read-only option")
        }, decode: { bytes throws(ZMQError) in
            ZMQEvents(rawValue: Int16(truncatingIfNeeded: try raw.decode(bytes)))
        })
    }
}
