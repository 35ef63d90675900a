import DequeModule
internal import FlowCore
internal import FlowWire

/// The verdicts of each client instance's recent STEPs, by `req`: how the daemon answers a STEP sent again (after a
/// lost connection or a daemon restart) without applying it twice.
///
/// Bounded: the last ``windowSize`` verdicts per instance (a client resends only the few steps in flight when its
/// connection went), and the ``instanceLimit`` instances heard from last (an instance is one run of a client
/// process). Kept across a restart: a snapshot's `steps` record holds them, and the STEP records after it add to them.
struct StepResultWindows: Hashable, Sendable {
    static let windowSize = 1024
    static let instanceLimit = 256

    private struct Window: Hashable, Sendable {
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
    /// The instance whose window was found last, and where: a STEP's verdict is looked up and then remembered for the
    /// same instance, and a stepper's STEPs follow each other; comparing an instance costs less than hashing it.
    /// Forgotten as ``windows`` gains or loses an instance (which moves its indices).
    private var lastFound: (instance: String, index: [String: Window].Index)?

    /// Where the instance's window is, if it has one.
    private mutating func index(of instance: String) -> [String: Window].Index? {
        if let lastFound, lastFound.instance == instance { return lastFound.index }
        guard let index = windows.index(forKey: instance) else { return nil }
        lastFound = (instance, index)
        return index
    }

    /// The verdict of the instance's STEP `req`, if it is still remembered.
    mutating func verdict(for origin: StepOrigin) -> StepVerdict? {
        guard let index = index(of: origin.instance) else { return nil }
        return windows.values[index].verdicts[origin.req]
    }

    /// Remembers a STEP's verdict, forgetting the instance's oldest one beyond the window.
    mutating func remember(_ verdict: StepVerdict, for origin: StepOrigin) {
        clock += 1
        if let known = index(of: origin.instance) {
            // In place: the window's dictionary is not copied out and back.
            windows.values[known].remember(verdict, for: origin.req, at: clock)
            return
        }
        lastFound = nil
        if windows.count >= Self.instanceLimit,
            let stalest = windows.min(by: { $0.value.lastUse < $1.value.lastUse })?.key
        {
            windows[stalest] = nil
        }
        // Made in place (`default:`): a copy out and back would duplicate the window's dictionary.
        windows[origin.instance, default: Window()].remember(verdict, for: origin.req, at: clock)
    }

    // What the windows hold, not where a lookup found one last.
    static func == (lhs: Self, rhs: Self) -> Bool { lhs.windows == rhs.windows && lhs.clock == rhs.clock }

    func hash(into hasher: inout Hasher) {
        hasher.combine(windows)
        hasher.combine(clock)
    }

    /// Whether no STEP verdict is remembered.
    var isEmpty: Bool { windows.isEmpty }
}

// The windows as data, for a snapshot: a snapshot's `steps` record holds them, since it no longer holds the STEP
// records they would be rebuilt from.
extension StepResultWindows: Codable {
    private struct SavedWindow: Codable {
        var instance: String
        var lastUse: UInt64
        /// Oldest first.
        var reqs: [UInt64]
        /// One per req.
        var verdicts: [StepVerdict]
    }

    private enum CodingKeys: String, CodingKey { case clock, windows }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        clock = try container.decode(UInt64.self, forKey: .clock)
        for saved in try container.decode([SavedWindow].self, forKey: .windows) {
            guard saved.reqs.count == saved.verdicts.count else {
                throw DecodingError.dataCorruptedError(
                    forKey: .windows, in: container, debugDescription: "a window with \(saved.reqs.count) reqs and "
                        + "\(saved.verdicts.count) verdicts")
            }
            var window = Window()
            window.lastUse = saved.lastUse
            window.order = Deque(saved.reqs)
            window.verdicts = Dictionary(zip(saved.reqs, saved.verdicts), uniquingKeysWith: { _, last in last })
            windows[saved.instance] = window
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(clock, forKey: .clock)
        let saved = windows.keys.sorted().map { instance in
            let window = windows[instance]!
            return SavedWindow(
                instance: instance, lastUse: window.lastUse, reqs: Array(window.order),
                verdicts: window.order.map { window.verdicts[$0]! })
        }
        try container.encode(saved, forKey: .windows)
    }
}
