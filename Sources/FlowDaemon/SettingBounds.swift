/// A numeric setting out of the values it accepts, named as the config file names it (`daemon.heartbeat_ms`).
///
/// The flags and the config file are held to the same bounds at start: a value outside stops the start naming the
/// field, instead of a daemon that cannot work (a `max_body_bytes` of 0 refuses every `HELLO`) or that crashes on it
/// (a negative `heartbeat_ms`; seconds that overflow as milliseconds).
package struct SettingOutOfBounds: Error, Sendable, Hashable, CustomStringConvertible {
    /// The config file's name of the field: `daemon.heartbeat_ms`, `sockets.linger_ms`.
    package let field: String
    package let value: Int
    package let bounds: ClosedRange<Int>

    /// The flag of a `daemon.` field (`--heartbeat-ms`): the field's name with dashes.
    package var flag: String { "--" + field.split(separator: ".").last!.replacing("_", with: "-") }

    /// `100...60000`, or `at least 1` when there is no upper bound.
    package var allowed: String { bounds.upperBound == .max ? "at least \(bounds.lowerBound)" : "\(bounds)" }

    package var description: String { "\(field) is \(value): it must be \(allowed)" }

    /// The first of `fields` whose value is outside its bounds.
    static func first(in fields: [(field: String, value: Int?, bounds: ClosedRange<Int>)]) -> SettingOutOfBounds? {
        for entry in fields {
            if let value = entry.value, !entry.bounds.contains(value) {
                return SettingOutOfBounds(field: entry.field, value: value, bounds: entry.bounds)
            }
        }
        return nil
    }
}

/// Ten years in seconds: more than any idle time means, and small enough to count in milliseconds.
private let longestIdleSeconds = 315_360_000
/// An hour in milliseconds: the longest wait or interval a setting in milliseconds accepts.
private let longestWaitMs = 3_600_000
/// 1 GiB: a restart replays up to this much journal after the last snapshot (about 65 ms of CPU per MiB,
/// docs/RELIABILITY.md), so more would make restarts take minutes.
private let largestCompactBytes = 1 << 30

extension DaemonConfiguration {
    /// The first field outside the values it accepts (config/README.md's table), `nil` when every one is usable.
    package func outOfBounds() -> SettingOutOfBounds? {
        SettingOutOfBounds.first(in: [
            ("daemon.heartbeat_ms", heartbeatMs, 100...60_000),
            ("daemon.liveness_intervals", livenessIntervals, 1...100),
            ("daemon.max_sessions", maxSessions, 1...Int.max),
            ("daemon.max_body_bytes", maxBodyBytes, 1024...Int.max),
            ("daemon.outbox_limit", outboxLimit, 1...Int.max),
            ("daemon.outbox_bytes_limit", outboxBytesLimit, 1024...Int.max),
            ("daemon.max_replay_commands", maxReplayCommands, 0...Int.max),
            ("daemon.max_session_screens", maxSessionScreens, 1...Int.max),
            ("daemon.max_session_ui_bytes", maxSessionUIBytes, 1024...Int.max),
            ("daemon.max_session_attachments", maxSessionAttachments, 1...Int.max),
            ("daemon.adapt_timeout_ms", adaptTimeoutMs, 0...longestWaitMs),
            ("daemon.deep_link_wait_ms", deepLinkWaitMs, 0...longestWaitMs),
            ("daemon.restart_grace_ms", restartGraceMs, 0...longestWaitMs),
            ("daemon.idle_session_timeout_s", idleSessionTimeoutS, 0...longestIdleSeconds),
            ("daemon.hibernate_after_s", hibernateAfterS, 0...longestIdleSeconds),
        ])
    }
}

extension FlowdConfigFile.Sockets {
    /// The first field given outside the values it accepts, `nil` when every one is usable.
    package func outOfBounds() -> SettingOutOfBounds? {
        SettingOutOfBounds.first(in: [
            ("sockets.linger_ms", lingerMs.map(Int.init), 0...longestWaitMs),
            ("sockets.max_message_bytes", maxMessageBytes.map(Int.init), 1024...Int.max),
            // Three intervals make the timeout, which libzmq takes as an `int` of milliseconds.
            ("sockets.zmtp_heartbeat_ms", zmtpHeartbeatMs.map(Int.init), 0...longestWaitMs),
            ("sockets.send_high_water_mark", sendHighWaterMark.map(Int.init), 0...Int(Int32.max)),
            ("sockets.receive_high_water_mark", receiveHighWaterMark.map(Int.init), 0...Int(Int32.max)),
        ])
    }
}

extension FlowdConfigFile.Journal {
    /// The first field given outside the values it accepts, `nil` when every one is usable.
    package func outOfBounds() -> SettingOutOfBounds? {
        SettingOutOfBounds.first(in: [
            ("journal.fsync_interval_ms", fsyncIntervalMs, 1...longestWaitMs),
            ("journal.compact_bytes", compactBytes, 4096...largestCompactBytes),
        ])
    }
}
