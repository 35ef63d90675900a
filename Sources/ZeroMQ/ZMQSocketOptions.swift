/// The options every Flowd socket gets when it is made, chosen on purpose instead of libzmq's defaults.
///
/// - ``linger``: 100 ms (libzmq: forever). Closing a socket and terminating the context never hang, yet a last reply
///   usually leaves.
/// - ``maxMessageSize``: 1 MiB (libzmq: no limit). A peer sending more is disconnected before the message is
///   buffered.
/// - ``heartbeat``: a ZMTP PING every second, the connection dropped after 3 s of silence (libzmq: off). A hung peer
///   is noticed within seconds instead of TCP's half hour.
/// - ``sendHighWaterMark`` / ``receiveHighWaterMark``: libzmq's (1000 messages per peer).
/// - ``routerMandatory`` (ROUTER sockets): on (libzmq: off). Sending to a gone peer fails with
///   ``ZMQError/Code/hostUnreachable`` instead of vanishing.
/// - ``immediateOnDealers`` (DEALER sockets): on (libzmq: off). Messages wait for a completed connection instead of
///   being parked on one that may never complete.
/// - ``curve``: none (libzmq: NULL mechanism, no encryption).
public struct ZMQSocketOptions: Hashable, Sendable {
    /// ZMTP-level heartbeats (`ZMQ_HEARTBEAT_IVL`, `_TIMEOUT`, `_TTL`).
    public struct Heartbeat: Hashable, Sendable {
        /// How often a PING is sent.
        public var interval: Duration
        /// The connection is dropped when nothing arrives this long after a PING.
        public var timeout: Duration
        /// The peer is asked to drop the connection when it hears nothing from us this long (≥ 100 ms to matter);
        /// a longer one than ``longestTTL`` is sent as that.
        public var ttl: Duration

        /// The longest TTL a PING can carry: ZMTP sends it in tenths of a second in 16 bits, and libzmq refuses a
        /// longer `ZMQ_HEARTBEAT_TTL` (`EINVAL`).
        public static let longestTTL: Duration = .milliseconds(6_553_500)

        /// Heartbeat settings; the defaults notice a dead peer in about 3 to 4 seconds.
        public init(interval: Duration = .seconds(1), timeout: Duration = .seconds(3), ttl: Duration = .seconds(3)) {
            self.interval = interval
            self.timeout = timeout
            self.ttl = ttl
        }
    }

    /// `ZMQ_LINGER`: how long queued outgoing messages may delay closing; always bounded. Default 100 ms.
    public var linger: Duration
    /// `ZMQ_MAXMSGSIZE`: the largest inbound message, in bytes; `nil` means no limit. Default 1 MiB.
    public var maxMessageSize: Int64?
    /// ZMTP heartbeats; `nil` turns them off. Default: ``Heartbeat/init(interval:timeout:ttl:)``'s defaults.
    public var heartbeat: Heartbeat?
    /// `ZMQ_SNDHWM`; `nil` keeps libzmq's (1000 messages per peer).
    public var sendHighWaterMark: Int32?
    /// `ZMQ_RCVHWM`; `nil` keeps libzmq's (1000 messages per peer).
    public var receiveHighWaterMark: Int32?
    /// `ZMQ_ROUTER_MANDATORY=1` on ROUTER sockets. Default on.
    public var routerMandatory: Bool
    /// `ZMQ_IMMEDIATE=1` on DEALER sockets (the client side of the daemon's ROUTERs). Default on.
    public var immediateOnDealers: Bool
    /// CURVE encryption and authentication (``ZMQCurveSecurity``); `nil` (the default) keeps the NULL mechanism.
    public var curve: ZMQCurveSecurity?

    /// Options with the documented defaults, any of which can be overridden here.
    public init(
        linger: Duration = .milliseconds(100),
        maxMessageSize: Int64? = 1 << 20,
        heartbeat: Heartbeat? = Heartbeat(),
        sendHighWaterMark: Int32? = nil,
        receiveHighWaterMark: Int32? = nil,
        routerMandatory: Bool = true,
        immediateOnDealers: Bool = true,
        curve: ZMQCurveSecurity? = nil
    ) {
        self.linger = linger
        self.maxMessageSize = maxMessageSize
        self.heartbeat = heartbeat
        self.sendHighWaterMark = sendHighWaterMark
        self.receiveHighWaterMark = receiveHighWaterMark
        self.routerMandatory = routerMandatory
        self.immediateOnDealers = immediateOnDealers
        self.curve = curve
    }

    /// The libzmq `ZMQ_LINGER` value for ``linger``.
    var lingerMilliseconds: Int32 { milliseconds(linger) }

    /// Sets these options on `socket`.
    func apply(to socket: ZMQSocket) throws(ZMQError) {
        try socket.setOption(.linger, to: lingerMilliseconds)
        try socket.setOption(.maxMessageSize, to: maxMessageSize ?? -1)
        if let heartbeat {
            try socket.setOption(.heartbeatInterval, to: milliseconds(heartbeat.interval))
            try socket.setOption(.heartbeatTimeout, to: milliseconds(heartbeat.timeout))
            try socket.setOption(.heartbeatTTL, to: milliseconds(min(heartbeat.ttl, Heartbeat.longestTTL)))
        }
        if let sendHighWaterMark { try socket.setOption(.sendHighWaterMark, to: sendHighWaterMark) }
        if let receiveHighWaterMark { try socket.setOption(.receiveHighWaterMark, to: receiveHighWaterMark) }
        if routerMandatory, socket.type == .router { try socket.setOption(.routerMandatory, to: true) }
        if immediateOnDealers, socket.type == .dealer { try socket.setOption(.immediate, to: true) }
        switch curve {
        case .server(let secretKey, let zapDomain)?:
            if let zapDomain { try socket.setOption(.zapDomain, to: zapDomain) }
            try socket.setOption(.curveServer, to: true)
            try socket.setOption(.curveSecretKey, to: secretKey)
        case .client(let keyPair, let serverKey)?:
            try socket.setOption(.curveServerKey, to: serverKey)
            try socket.setOption(.curvePublicKey, to: keyPair.publicKey)
            try socket.setOption(.curveSecretKey, to: keyPair.secretKey)
        case nil:
            break
        }
    }
}

/// `duration` in whole milliseconds (rounded up, clamped to `0...Int32.max`), as libzmq options take it.
func milliseconds(_ duration: Duration) -> Int32 {
    let (seconds, attoseconds) = duration.components
    if seconds < 0 || (seconds == 0 && attoseconds <= 0) { return 0 }
    let (wholeMilliseconds, overflow) = seconds.multipliedReportingOverflow(by: 1000)
    if overflow { return Int32.max }
    let rest = (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
    return Int32(clamping: wholeMilliseconds + rest)
}
