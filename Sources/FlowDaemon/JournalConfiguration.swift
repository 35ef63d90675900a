/// How hard the journal holds on to what it writes before flowd answers.
public enum FsyncPolicy: Sendable, Hashable {
    /// `fdatasync` at every commit: an answered request survives a power loss.
    case always
    /// `fdatasync` at most once per interval: a power loss may lose the last interval's requests (a crash of flowd
    /// alone loses nothing written).
    case interval(milliseconds: Int)
    /// Never `fdatasync` (the kernel writes back when it likes): for tests and throwaway state.
    case never

    /// The policy named `name` (`always`, `interval`, `never`), `nil` for another name.
    package init?(_ name: String, intervalMilliseconds: Int = 100) {
        switch name {
        case "always": self = .always
        case "interval": self = .interval(milliseconds: intervalMilliseconds)
        case "never": self = .never
        default: return nil
        }
    }

    /// `always`, `interval` or `never`.
    package var name: String {
        switch self {
        case .always: "always"
        case .interval: "interval"
        case .never: "never"
        }
    }
}

/// What flowd does when its journal is damaged before its tail (docs/RELIABILITY.md, "Torn tail or damage").
public enum JournalDamagePolicy: String, Sendable, Hashable, CaseIterable {
    /// Refuse to start (``JournalError/Code/damaged``), leaving the files as they are: the default.
    case refuse
    /// Start from the records before the damage: the journal is copied aside, cut there, and the daemon gets a new
    /// daemon ID so that clients resync. For an operator who looked and chose to lose what follows.
    case truncate
}

/// Where flowd keeps its state and how.
public struct JournalConfiguration: Sendable, Hashable, Codable {
    /// The state directory (created with mode 0700 when missing).
    public var directory: String
    /// When appended records are forced to disk.
    public var fsync: FsyncPolicy = .interval(milliseconds: 100)
    /// When the live journal file grows past this many bytes, the daemon writes a snapshot (compaction).
    public var compactBytes: Int = 8 * 1024 * 1024
    /// What to do with a journal damaged before its tail.
    public var damage: JournalDamagePolicy = .refuse

    public init(
        directory: String, fsync: FsyncPolicy = .interval(milliseconds: 100), compactBytes: Int = 8 << 20,
        damage: JournalDamagePolicy = .refuse
    ) {
        self.directory = directory
        self.fsync = fsync
        self.compactBytes = compactBytes
        self.damage = damage
    }

    private enum CodingKeys: String, CodingKey {
        case directory
        case fsync
        case fsyncIntervalMs = "fsync_interval_ms"
        case compactBytes = "compact_bytes"
        case damage
    }

    /// Reads a configuration; missing fields keep their defaults (`directory` is required). `fsync` is `always`,
    /// `interval` or `never`; `fsync_interval_ms` (default 100) is the interval's length; `damage` is `refuse` (the
    /// default) or `truncate`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        directory = try container.decode(String.self, forKey: .directory)
        let intervalMs = try container.decodeIfPresent(Int.self, forKey: .fsyncIntervalMs) ?? 100
        guard intervalMs >= 0 else {
            throw DecodingError.dataCorruptedError(
                forKey: .fsyncIntervalMs, in: container, debugDescription: "must not be negative")
        }
        let name = try container.decodeIfPresent(String.self, forKey: .fsync) ?? "interval"
        guard let policy = FsyncPolicy(name, intervalMilliseconds: intervalMs) else {
            throw DecodingError.dataCorruptedError(
                forKey: .fsync, in: container, debugDescription: "'\(name)' is not always, interval or never")
        }
        fsync = policy
        compactBytes = try container.decodeIfPresent(Int.self, forKey: .compactBytes) ?? (8 << 20)
        guard compactBytes >= 0 else {
            throw DecodingError.dataCorruptedError(
                forKey: .compactBytes, in: container, debugDescription: "must not be negative")
        }
        let damageName = try container.decodeIfPresent(String.self, forKey: .damage) ?? "refuse"
        guard let damage = JournalDamagePolicy(rawValue: damageName) else {
            throw DecodingError.dataCorruptedError(
                forKey: .damage, in: container, debugDescription: "'\(damageName)' is not refuse or truncate")
        }
        self.damage = damage
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(directory, forKey: .directory)
        try container.encode(fsync.name, forKey: .fsync)
        if case .interval(let milliseconds) = fsync {
            try container.encode(milliseconds, forKey: .fsyncIntervalMs)
        }
        try container.encode(compactBytes, forKey: .compactBytes)
        try container.encode(damage.rawValue, forKey: .damage)
    }
}
