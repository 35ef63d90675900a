/// The names `stepper-names` keeps, by kind (``DaemonCore/stepperNamesToKeep``), each counted once per reason to keep
/// it: a connection serving the kind under that name, the kind's names that left, the grace's names awaited. A name is
/// kept while one reason holds; what each turn changed is taken by the transport (``takeChanges()``), so a join costs
/// the kinds it serves, not every name kept (2000 joins rebuilt and encoded every name each time: docs/RELIABILITY.md).
struct KeptStepperNames {
    /// A name that became kept for a kind (`kept`), or is not any more.
    struct Change: Hashable {
        var kind: String
        var name: String
        var kept: Bool
    }

    private struct Entry: Hashable {
        var kind: String
        var name: String
    }

    private var reasons: [String: [String: Int]] = [:]
    /// The entries changed since the last ``takeChanges()``, with whether each was kept before; `nil`: not recorded
    /// (a daemon without a state directory keeps no file).
    private var touched: [Entry: Bool]?

    init(recordingChanges: Bool) { touched = recordingChanges ? [:] : nil }

    /// The names kept, by kind, each kind's sorted.
    var byKind: [String: [String]] { reasons.mapValues { $0.keys.sorted() } }

    /// One more reason to keep `name` for `kind`.
    mutating func keep(_ name: String, for kind: String) {
        let count = reasons[kind, default: [:]][name, default: 0]
        if count == 0 { note(Entry(kind: kind, name: name), wasKept: false) }
        reasons[kind, default: [:]][name] = count + 1
    }

    /// One reason fewer to keep `name` for `kind` (one that ``keep(_:for:)`` gave).
    mutating func release(_ name: String, for kind: String) {
        guard let count = reasons[kind]?[name] else { return }
        guard count == 1 else {
            reasons[kind]?[name] = count - 1
            return
        }
        note(Entry(kind: kind, name: name), wasKept: true)
        reasons[kind]?[name] = nil
        if reasons[kind]?.isEmpty == true { reasons[kind] = nil }
    }

    private mutating func note(_ entry: Entry, wasKept: Bool) {
        guard touched != nil, touched![entry] == nil else { return }
        touched![entry] = wasKept
    }

    /// What changed since the last call: a name kept and released in between (a process replaced by its restart) is
    /// no change.
    mutating func takeChanges() -> [Change] {
        guard let entries = touched, !entries.isEmpty else { return [] }
        touched = [:]
        return entries.compactMap { entry, wasKept in
            let kept = reasons[entry.kind]?[entry.name] != nil
            return kept == wasKept ? nil : Change(kind: entry.kind, name: entry.name, kept: kept)
        }
    }
}
