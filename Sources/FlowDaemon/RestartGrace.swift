/// After a restart, the waiting attachments of a kind that two or more processes served when the last run ended are
/// held back until every one of them is back, or `daemon.restart_grace_ms` after the start, whichever comes first
/// (docs/PROTOCOL.md §5.1): so the first process to reconnect does not take them all while the others are a moment
/// behind, and none waits long for a process that does not come back. A kind one process served is not held: there is
/// nothing to share, and that process may come back under another name.
///
/// Which processes served each kind is not journaled: the daemon keeps their names beside the journal
/// (``StepperNamesFile``); without them (a fresh state, a state an older flowd wrote) nothing is held.
struct RestartGrace {
    /// The names of the processes that served each kind in the last run and have not said `HELLO` since: the kinds
    /// held back. Empty once the grace is over.
    private(set) var missing: [String: Set<String>]
    /// When the grace ends, whoever is back; `nil` when it is over or never began.
    private(set) var endsAt: UInt64?

    /// No grace: a fresh start, or `restart_grace_ms` 0.
    static let none = RestartGrace(missing: [:], endsAt: nil)

    private init(missing: [String: Set<String>], endsAt: UInt64?) {
        self.missing = missing
        self.endsAt = endsAt
    }

    /// A grace of `graceMs` from `now` for the kinds of `expected` (names by kind, as the last run kept them) with two
    /// names or more.
    init(expected: [String: [String]], now: UInt64, graceMs: Int) {
        let kinds = expected.compactMapValues { Set($0).count >= 2 ? Set($0) : nil }
        guard graceMs > 0, !kinds.isEmpty else {
            self = .none
            return
        }
        self.init(missing: kinds, endsAt: now + UInt64(graceMs))
    }

    /// Whether the waiting attachments of `kind` are held back now.
    func holds(_ kind: String) -> Bool { missing[kind] != nil }

    /// A process named `name` said `HELLO` serving `kinds`; returns whether that freed a kind held until then.
    mutating func joined(_ name: String, serving kinds: [String]) -> Bool {
        guard endsAt != nil else { return false }
        var freed = false
        for kind in kinds where missing[kind]?.remove(name) != nil && missing[kind]?.isEmpty == true {
            missing[kind] = nil
            freed = true
        }
        if missing.isEmpty { endsAt = nil }
        return freed
    }

    /// Ends the grace if it is due at `now`; returns the names still missing then (by kind), `nil` when it did not
    /// end now.
    mutating func end(ifDueAt now: UInt64) -> [String: Set<String>]? {
        guard let due = endsAt, now >= due else { return nil }
        defer {
            missing = [:]
            endsAt = nil
        }
        return missing
    }

    /// The names of `missing` for a log line: how many, and the first ``loggedNames`` sorted, so that a line stays
    /// short whatever the file held (a 34 MB `stepper-names` once made a 28 MB line).
    static func logged(_ missing: [String: Set<String>]) -> String {
        let names = Set(missing.values.joined()).sorted()
        let shown = names.prefix(loggedNames).joined(separator: ",")
        return names.count > loggedNames ? "\(names.count): \(shown),…" : "\(names.count): \(shown)"
    }

    static let loggedNames = 10
}
