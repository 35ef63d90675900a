import DequeModule
internal import FlowCore
internal import FlowWire

/// The verdicts of each client instance's recent STEPs, by `req`: how the daemon answers a STEP sent again (after a
/// lost connection or a daemon restart) without applying it twice.
///
/// Bounded: the last ``windowSize`` verdicts per instance (a client resends only the few steps in flight when its
/// connection went), and the ``instanceLimit`` instances heard from last (an instance is one run of a client
/// process). Rebuilt by journal replay like the rest of the state, so it survives a restart.
struct StepResultWindows: Sendable {
    static let windowSize = 1024
    static let instanceLimit = 256

    private struct Window: Sendable {
        var verdicts: [UInt64: StepVerdict] = [:]
        /// The remembered reqs, oldest first.
        var order: Deque<UInt64> = []
        var lastUse: UInt64 = 0

        mutating func remember(_ verdict: StepVerdict, for req: UInt64, at clock: UInt64) {
            lastUse = clock
            if verdicts.updateValue(verdict, forKey: req) == nil { order.append(req) }
            guard order.count > StepResultWindows.windowSize else { return }
            verdicts[order.removeFirst()] = nil
        }
    }

    private var windows: [String: Window] = [:]
    private var clock: UInt64 = 0

    /// The verdict of the instance's STEP `req`, if it is still remembered.
    func verdict(for origin: StepOrigin) -> StepVerdict? {
        windows[origin.instance]?.verdicts[origin.req]
    }

    /// Remembers a STEP's verdict, forgetting the instance's oldest one beyond the window.
    mutating func remember(_ verdict: StepVerdict, for origin: StepOrigin) {
        clock += 1
        if windows[origin.instance] == nil, windows.count >= Self.instanceLimit,
            let stalest = windows.min(by: { $0.value.lastUse < $1.value.lastUse })?.key
        {
            windows[stalest] = nil
        }
        // Mutated in place (`default:`): a copy out and back would duplicate the window's dictionary on every STEP.
        windows[origin.instance, default: Window()].remember(verdict, for: origin.req, at: clock)
    }
}
