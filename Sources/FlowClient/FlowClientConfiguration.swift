public import FlowWire
public import Logging
public import ZeroMQ

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// How a client connects to `flowd`; every setting has a default that needs no configuration.
public struct FlowClientConfiguration: Sendable {
    /// Where the daemon listens (``FlowWire/FlowdEndpoints/default(environment:)`` unless given).
    public var endpoints: FlowdEndpoints
    /// A random ID for this run of the process (`instance` in `HELLO`). With a `STEP`'s `req` it names the step, so the
    /// daemon recognises one sent again after a lost connection (`docs/PROTOCOL.md` §5.5). Clients made from one
    /// configuration share it, which is safe (request numbers never repeat within a process); an instance MUST NOT be
    /// used again by another run of a process (its request numbers start over).
    public var instance: String
    /// How often the client sends `HEARTBEAT` (100 ms to 60 s, `heartbeat_ms` in `HELLO`).
    public var heartbeatInterval: Duration
    /// How many of the daemon's heartbeat intervals of silence make the client drop the connection and start again
    /// with a new socket and `HELLO` (3 in the protocol).
    public var livenessIntervals: Int
    /// How long to wait for `WELCOME` after connecting before starting again with a new socket; `nil` uses
    /// ``livenessIntervals`` × ``heartbeatInterval``.
    public var handshakeTimeout: Duration?
    /// The pause before a new connection attempt after one failed, doubled on each failure in a row up to
    /// ``maximumReconnectDelay``.
    public var reconnectDelay: Duration
    /// The longest pause between connection attempts.
    public var maximumReconnectDelay: Duration
    /// How long a request waits for its reply (including waiting for a connection); `nil` waits as long as it takes.
    /// Default 30 s: a reply the daemon dropped (this client's queue was full) does not hold a caller forever, and a
    /// daemon restarted by systemd or docker has time to come back. A presenter's own `SYNC` and `REPORT` wait at most
    /// the daemon's liveness window (``livenessIntervals`` of its heartbeat) whatever this says. A timeout that fires
    /// late because the process did not run waits one more of the daemon's heartbeat intervals (`docs/PROTOCOL.md` §3).
    public var requestTimeout: Duration?
    /// The options of the client's sockets: bounded linger, `ZMQ_IMMEDIATE` on the control DEALER, and inbound
    /// messages up to ``defaultMaxMessageSize`` (a `SNAPSHOT` is as large as the application's screens make it).
    public var socketOptions: ZMQSocketOptions
    /// CURVE towards a daemon that runs with keys (its public key and the client's key pair); `nil`: plaintext.
    public var curve: FlowClientCurve?
    /// Where the client logs.
    public var logger: Logger

    /// A configuration; every parameter has a default.
    public init(
        endpoints: FlowdEndpoints = .default(),
        instance: String = UUID().uuidString.lowercased(),
        heartbeatInterval: Duration = .seconds(1),
        livenessIntervals: Int = 3,
        handshakeTimeout: Duration? = nil,
        reconnectDelay: Duration = .milliseconds(100),
        maximumReconnectDelay: Duration = .seconds(2),
        requestTimeout: Duration? = .seconds(30),
        socketOptions: ZMQSocketOptions = ZMQSocketOptions(
            linger: .milliseconds(100), maxMessageSize: defaultMaxMessageSize, immediateOnDealers: true
        ),
        curve: FlowClientCurve? = nil,
        logger: Logger = Logger(label: "flowd.client")
    ) {
        self.endpoints = endpoints
        self.instance = instance
        self.heartbeatInterval = heartbeatInterval
        self.livenessIntervals = livenessIntervals
        self.handshakeTimeout = handshakeTimeout
        self.reconnectDelay = reconnectDelay
        self.maximumReconnectDelay = maximumReconnectDelay
        self.requestTimeout = requestTimeout
        self.socketOptions = socketOptions
        self.curve = curve
        self.logger = logger
    }

    /// The largest message a client takes from the daemon by default, ``FlowWire/WireProtocol/clientMaxMessageBytes``
    /// (128 MiB). The daemon is the only peer of a client's sockets and does not bound what it sends; it logs a
    /// warning when it sends a larger one.
    public static let defaultMaxMessageSize = Int64(WireProtocol.clientMaxMessageBytes)

    /// The options of the sockets that talk to the daemon: ``socketOptions`` with ``curve``, if set, as a CURVE client,
    /// and a ZMTP heartbeat TTL of at least ``livenessIntervals`` of ``heartbeatInterval``.
    ///
    /// The TTL is how long the daemon's libzmq keeps the connection of a client it hears nothing from (its own ZMTP
    /// heartbeats off): no shorter than the window after which the daemon counts the client dead (`docs/PROTOCOL.md`
    /// §3), so a client announcing a 60 s heartbeat is not cut off after 3 s.
    public var connectionSocketOptions: ZMQSocketOptions {
        var options = socketOptions
        if let curve { options.curve = .client(keyPair: curve.keyPair, serverKey: curve.serverKey) }
        if var heartbeat = options.heartbeat {
            heartbeat.ttl = max(heartbeat.ttl, .milliseconds(heartbeatMilliseconds) * max(1, livenessIntervals))
            options.heartbeat = heartbeat
        }
        return options
    }

    /// How long the daemon may stay silent, or leave unsent what it owes, before the client gives up waiting:
    /// ``livenessIntervals`` of the daemon's heartbeat interval (`heartbeat_ms` in its `WELCOME`).
    func livenessWindow(daemonHeartbeatMs: Int) -> Duration {
        .milliseconds(max(daemonHeartbeatMs, 1)) * max(1, livenessIntervals)
    }

    /// ``heartbeatInterval`` in whole milliseconds, clamped to the protocol's 100...60000.
    var heartbeatMilliseconds: Int {
        let (seconds, attoseconds) = heartbeatInterval.components
        let milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        return Int(min(max(milliseconds, 100), 60_000))
    }
}

extension WireCodec {
    /// A codec for what the daemon sends: a body may be as large as the socket takes (`maxMessageSize`; no bound when
    /// that is `nil`), not the 256 KiB the daemon allows what it receives. A `SNAPSHOT` is as large as the session's
    /// screens make it.
    init(decodingWhatFits options: ZMQSocketOptions) {
        self.init(maxBodyBytes: options.maxMessageSize.map { Int(clamping: $0) } ?? Int.max)
    }
}
