/// The daemon's limits and timings; every field has a default that needs no config file.
public struct DaemonConfiguration: Sendable, Hashable, Codable {
    /// The interval of the daemon's heartbeats to each client, in milliseconds.
    public var heartbeatMs: Int = 1000
    /// How many of a peer's heartbeat intervals may pass in silence before the peer counts as dead.
    public var livenessIntervals: Int = 3
    /// The most sessions the daemon holds at once (`sessionLimit` beyond).
    public var maxSessions: Int = 10_000
    /// The largest message body accepted (`messageTooLarge` beyond).
    public var maxBodyBytes: Int = 256 * 1024
    /// How many sent commands a session keeps for a presenter's replay; older ones are served by a snapshot.
    public var outboxLimit: Int = 1024
    /// How many bytes of commands a session keeps for a presenter's replay (as estimated: docs/LIMITS.md); the oldest
    /// go beyond, the newest stays whatever its size. 1 MiB holds 1024 ordinary commands (~230 bytes) four times over.
    public var outboxBytesLimit: Int = 1 << 20
    /// The most commands a `SYNC` replays; a presenter further behind gets a snapshot (one message) instead, so a
    /// replay fits in its queue (keep it below `sockets.send_high_water_mark`: docs/LIMITS.md).
    public var maxReplayCommands: Int = 512
    /// The session that exists from the start.
    public var defaultSession: String = "default"
    /// How long a session may go without a presenter and without a journaled change before the daemon ends it, in
    /// seconds; 0 (the default): sessions are never ended for idleness.
    public var idleSessionTimeoutS: Int = 0
    /// How long a session may go without a presenter and without a journaled change before the daemon keeps it as its
    /// saved state only, made again on its next use (docs/RELIABILITY.md, "Hibernation"), in seconds; 0: never.
    public var hibernateAfterS: Int = 60
    /// The screens (UI model nodes) a session may hold before its steps are refused (`sessionFull`).
    public var maxSessionScreens: Int = 20_000
    /// The bytes of screens a session's UI may hold, as docs/LIMITS.md counts them, before its steps are refused
    /// (`sessionFull`). 64 MiB: a UI of 20 000 plain screens counts ~2 MB; 256 screens whose data is a whole body do.
    public var maxSessionUIBytes: Int = 64 << 20
    /// The live attachments (remote and in-daemon) a session may hold before its steps are refused (`sessionFull`).
    public var maxSessionAttachments: Int = 20_000
    /// How long an adaptation asked of a stepper kind waits for its answer (`ADAPT`), in milliseconds, before its step
    /// is dropped (`adaptFailed`).
    public var adaptTimeoutMs: Int = 5000
    /// How long a URI deep link's chain may wait for the flows its next step needs, in milliseconds, before it is
    /// refused (`deepLinkIncomplete`).
    public var deepLinkWaitMs: Int = 3000
    /// After a restart, how long the restored attachments of a kind may wait for the processes that served it in the
    /// last run, in milliseconds, before they go to those back (docs/PROTOCOL.md §5.1); 0: offered at once.
    public var restartGraceMs: Int = 3000

    public init() {}

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case heartbeatMs = "heartbeat_ms"
        case livenessIntervals = "liveness_intervals"
        case maxSessions = "max_sessions"
        case maxBodyBytes = "max_body_bytes"
        case outboxLimit = "outbox_limit"
        case outboxBytesLimit = "outbox_bytes_limit"
        case maxReplayCommands = "max_replay_commands"
        case defaultSession = "default_session"
        case idleSessionTimeoutS = "idle_session_timeout_s"
        case hibernateAfterS = "hibernate_after_s"
        case maxSessionScreens = "max_session_screens"
        case maxSessionUIBytes = "max_session_ui_bytes"
        case maxSessionAttachments = "max_session_attachments"
        case adaptTimeoutMs = "adapt_timeout_ms"
        case deepLinkWaitMs = "deep_link_wait_ms"
        case restartGraceMs = "restart_grace_ms"
    }

    /// Reads a configuration; missing fields keep their defaults.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = DaemonConfiguration()
        heartbeatMs = try container.decodeIfPresent(Int.self, forKey: .heartbeatMs) ?? defaults.heartbeatMs
        livenessIntervals =
            try container.decodeIfPresent(Int.self, forKey: .livenessIntervals) ?? defaults.livenessIntervals
        maxSessions = try container.decodeIfPresent(Int.self, forKey: .maxSessions) ?? defaults.maxSessions
        maxBodyBytes = try container.decodeIfPresent(Int.self, forKey: .maxBodyBytes) ?? defaults.maxBodyBytes
        outboxLimit = try container.decodeIfPresent(Int.self, forKey: .outboxLimit) ?? defaults.outboxLimit
        outboxBytesLimit =
            try container.decodeIfPresent(Int.self, forKey: .outboxBytesLimit) ?? defaults.outboxBytesLimit
        maxReplayCommands =
            try container.decodeIfPresent(Int.self, forKey: .maxReplayCommands) ?? defaults.maxReplayCommands
        defaultSession = try container.decodeIfPresent(String.self, forKey: .defaultSession) ?? defaults.defaultSession
        idleSessionTimeoutS =
            try container.decodeIfPresent(Int.self, forKey: .idleSessionTimeoutS) ?? defaults.idleSessionTimeoutS
        hibernateAfterS = try container.decodeIfPresent(Int.self, forKey: .hibernateAfterS) ?? defaults.hibernateAfterS
        maxSessionScreens =
            try container.decodeIfPresent(Int.self, forKey: .maxSessionScreens) ?? defaults.maxSessionScreens
        maxSessionUIBytes =
            try container.decodeIfPresent(Int.self, forKey: .maxSessionUIBytes) ?? defaults.maxSessionUIBytes
        maxSessionAttachments =
            try container.decodeIfPresent(Int.self, forKey: .maxSessionAttachments) ?? defaults.maxSessionAttachments
        adaptTimeoutMs = try container.decodeIfPresent(Int.self, forKey: .adaptTimeoutMs) ?? defaults.adaptTimeoutMs
        deepLinkWaitMs = try container.decodeIfPresent(Int.self, forKey: .deepLinkWaitMs) ?? defaults.deepLinkWaitMs
        restartGraceMs = try container.decodeIfPresent(Int.self, forKey: .restartGraceMs) ?? defaults.restartGraceMs
    }
}
