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
    /// How many questions each process was sent and has not answered: the load that picks which process is asked.
    private var asked: [PeerAddress: Int] = [:]

    var isEmpty: Bool { entries.isEmpty }

    subscript(key: Key) -> Entry? { entries[key] }

    /// How many questions `peer` was sent and has not answered yet.
    func outstanding(askedOf peer: PeerAddress) -> Int { asked[peer] ?? 0 }

    mutating func insert(_ entry: Entry, for key: Key) {
        remove(key)
        entries[key] = entry
        count(entry.askedOf, 1)
    }

    mutating func remove(_ key: Key) {
        guard let entry = entries.removeValue(forKey: key) else { return }
        count(entry.askedOf, -1)
    }

    mutating func removeSession(_ session: String) {
        for key in entries.keys where key.session == session { remove(key) }
    }

    mutating func ask(_ key: Key, of peer: PeerAddress?) {
        guard let old = entries[key] else { return }
        count(old.askedOf, -1)
        entries[key]!.askedOf = peer
        count(peer, 1)
    }

    private mutating func count(_ peer: PeerAddress?, _ change: Int) {
        guard let peer else { return }
        let now = (asked[peer] ?? 0) + change
        asked[peer] = now > 0 ? now : nil
    }

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
