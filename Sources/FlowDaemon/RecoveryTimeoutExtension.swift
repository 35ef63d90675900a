/// While flowd rebuilds its state, asks systemd for more start time as long as the recovery makes progress
/// (`EXTEND_TIMEOUT_USEC`), so that a long recovery does not run into `TimeoutStartSec` and a stuck one still does.
struct RecoveryTimeoutExtension: Sendable {
    /// How often the recovery's progress is looked at.
    static let interval: Duration = .seconds(2)
    /// The start time each look asks for from then on: a few intervals, so a recovery that keeps going never runs out.
    static let extensionMicroseconds = 10_000_000

    private var lastReplayed: Int?

    init() {}

    /// What to tell systemd about `progress`: `nil` when no recovery runs or it made no progress since the last look.
    mutating func notification(for progress: RecoveryProgress?) -> String? {
        guard let progress else { return nil }
        defer { lastReplayed = progress.replayed }
        if let lastReplayed, progress.replayed <= lastReplayed { return nil }
        return "EXTEND_TIMEOUT_USEC=\(Self.extensionMicroseconds)\n"
            + "STATUS=recovering the state: \(progress.replayed) of \(progress.total) journal records"
    }
}
