import Synchronization

/// A clock that moves only when a test moves it: the daemon's milliseconds (``milliseconds``) and, for a service's
/// logic that takes a `ContinuousClock.Instant`, the same time as an instant (``instant``).
///
/// `Sendable`: its time is behind a `Mutex`, so a service's logic may read it from another task.
public final class ManualClock: Sendable {
    private let origin: ContinuousClock.Instant
    private let elapsed: Mutex<UInt64>

    /// A clock at `milliseconds`.
    public init(milliseconds: UInt64 = 0) {
        origin = ContinuousClock.now
        elapsed = Mutex(milliseconds)
    }

    /// The time now, in milliseconds, as ``EmbeddedDaemon`` hands it to the daemon.
    public var milliseconds: UInt64 { elapsed.withLock { $0 } }

    /// The time now as an instant of the continuous clock (fixed while the clock does not move).
    public var instant: ContinuousClock.Instant { origin + .milliseconds(milliseconds) }

    /// Time passes by `duration` (rounded down to whole milliseconds; a negative duration does nothing).
    public func advance(by duration: Duration) {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0, attoseconds >= 0 || seconds > 0 else { return }
        let ms = UInt64(seconds) * 1000 + UInt64(max(0, attoseconds) / 1_000_000_000_000_000)
        elapsed.withLock { $0 += ms }
    }

    /// Time passes to `milliseconds`; returns `false` (and does not move) if that is in the past.
    @discardableResult
    public func advance(toMilliseconds milliseconds: UInt64) -> Bool {
        elapsed.withLock { now in
            guard milliseconds >= now else { return false }
            now = milliseconds
            return true
        }
    }
}
