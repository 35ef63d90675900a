/// The configuration's intervals and waits in the milliseconds the core keeps time in, each held to what the core can
/// run with: a configuration built in code (an embedded daemon in a test) is not held to flowd's bounds
/// (``outOfBounds()``), and a negative interval must not trap.
extension DaemonConfiguration {
    /// ``heartbeatMs``, at least 1 ms: the daemon's heartbeat as it sends it and announces it in `WELCOME`.
    package var heartbeatInterval: UInt64 { UInt64(max(1, heartbeatMs)) }

    /// How long a peer whose `HELLO` announced `peerHeartbeatMs` may be silent: ``livenessIntervals`` (at least one)
    /// of those.
    package func livenessWindow(peerHeartbeatMs: Int) -> UInt64 {
        UInt64(max(1, livenessIntervals)) * UInt64(max(1, peerHeartbeatMs))
    }

    /// ``adaptTimeoutMs``, at least 0.
    package var adaptTimeout: UInt64 { UInt64(max(0, adaptTimeoutMs)) }

    /// ``deepLinkWaitMs``, at least 0.
    package var deepLinkWait: UInt64 { UInt64(max(0, deepLinkWaitMs)) }

    /// ``idleSessionTimeoutS`` in milliseconds, 0 (never) for a value below 1.
    package var idleSessionTimeout: UInt64 { Self.milliseconds(ofSeconds: idleSessionTimeoutS) }

    /// ``hibernateAfterS`` in milliseconds, 0 (never) for a value below 1.
    package var hibernationTimeout: UInt64 { Self.milliseconds(ofSeconds: hibernateAfterS) }

    /// `seconds` in milliseconds; 0 for a negative value, and no more than a clock's time can be added to.
    private static func milliseconds(ofSeconds seconds: Int) -> UInt64 {
        UInt64(min(max(0, seconds), Int.max / 2000)) * 1000
    }
}
