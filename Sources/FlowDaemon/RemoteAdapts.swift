internal import FlowCore
internal import FlowWire

/// The adaptations asked of stepper kinds that wait for an answer (`ADAPT`, docs/PROTOCOL.md §5.6): each one's
/// question, the process it was sent to (none while no process that answers serves the kind) and its deadline.
///
/// A plain table: entries live at most `daemon.adapt_timeout_ms`, so there are few, and the scans below (a stepper's
/// `HELLO`, a peer lost, a tick) stay cheap.
struct RemoteAdapts {
    struct Key: Hashable, Comparable {
        let session: String
        let request: AdaptRequestID

        static func < (lhs: Key, rhs: Key) -> Bool { (lhs.session, lhs.request) < (rhs.session, rhs.request) }
    }

    struct Entry {
        let question: AdaptMessage
        /// The process the question was sent to; `nil` while it waits for one.
        var askedOf: PeerAddress?
        /// When the adaptation fails unanswered, on the daemon's clock.
        let deadline: UInt64
    }

    private var entries: [Key: Entry] = [:]

    var isEmpty: Bool { entries.isEmpty }

    subscript(key: Key) -> Entry? { entries[key] }

    mutating func insert(_ entry: Entry, for key: Key) { entries[key] = entry }

    mutating func remove(_ key: Key) { entries[key] = nil }

    mutating func removeSession(_ session: String) {
        entries = entries.filter { $0.key.session != session }
    }

    mutating func ask(_ key: Key, of peer: PeerAddress?) { entries[key]?.askedOf = peer }

    /// The questions not sent to any process, of one of `kinds`, in order.
    func waiting(kinds: [String]) -> [Key] {
        entries.filter { $0.value.askedOf == nil && kinds.contains($0.value.question.kind) }.keys.sorted()
    }

    /// The questions sent to `peer`, in order.
    func asked(of peer: PeerAddress) -> [Key] {
        entries.filter { $0.value.askedOf == peer }.keys.sorted()
    }

    /// The questions whose deadline is at or before `now`, in order.
    func expired(at now: UInt64) -> [Key] {
        entries.filter { $0.value.deadline <= now }.keys.sorted()
    }

    /// The earliest deadline.
    var nextDeadline: UInt64? { entries.values.map(\.deadline).min() }
}
