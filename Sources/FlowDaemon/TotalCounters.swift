internal import CoreMetrics

/// Counters that follow running totals of a `Source` (``DaemonCounters``, ``JournalStore``): one per row of a table of
/// metric names and key paths, made once, and given at each reading what its total gained since the last one. A
/// table, so that a counted total is one line where it is named rather than three (property, make, record).
struct TotalCounters<Source>: Sendable {
    private let rows: [(total: any KeyPath<Source, Int> & Sendable, counter: Counter)]
    /// The totals as last recorded, one per row.
    private var last: [Int]

    init(_ table: KeyValuePairs<String, any KeyPath<Source, Int> & Sendable>, factory: any MetricsFactory) {
        rows = table.map { (total: $0.value, counter: Counter(label: $0.key, factory: factory)) }
        last = Array(repeating: 0, count: rows.count)
    }

    /// Adds what each total of `source` gained since the last call to its counter.
    mutating func record(_ source: Source) {
        for (index, row) in rows.enumerated() {
            let now = source[keyPath: row.total]
            row.counter.increment(total: now, before: last[index])
            last[index] = now
        }
    }
}
