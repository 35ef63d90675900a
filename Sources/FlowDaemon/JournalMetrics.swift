package import CoreMetrics

/// The journal's metrics: its size on disk, its syncs, its compactions and the longest time one held the I/O thread,
/// and what the last start recovered and how long it took.
///
/// The names are ``MetricName``'s; README's Metrics table says what each counts.
///
/// A value type the I/O thread owns; its metric objects are `Sendable` and thread-safe.
package struct JournalMetrics: Sendable {
    private let journalBytes: Gauge
    private let snapshotBytes: Gauge
    /// Its syncs and write failures.
    private var totals: TotalCounters<JournalStore>
    private let available: Gauge
    private let compactions: Counter
    private let compactionStallMax: Gauge
    private let recoverySeconds: Gauge
    private let recoveredRecords: Gauge
    /// The store's compaction count when last recorded (the stall is recorded when it grew).
    private var lastCompactions = 0

    package init(factory: any MetricsFactory) {
        journalBytes = Gauge(label: MetricName.journalBytes, factory: factory)
        snapshotBytes = Gauge(label: MetricName.snapshotBytes, factory: factory)
        totals = TotalCounters(
            [MetricName.journalSyncs: \.syncCount, MetricName.journalWriteFailures: \.writeFailures], factory: factory)
        available = Gauge(label: MetricName.journalAvailable, factory: factory)
        compactions = Counter(label: MetricName.compactions, factory: factory)
        compactionStallMax = Gauge(label: MetricName.compactionStallMax, factory: factory)
        recoverySeconds = Gauge(label: MetricName.recoverySeconds, factory: factory)
        recoveredRecords = Gauge(label: MetricName.recoveredRecords, factory: factory)
    }

    /// Records what the start recovered.
    package func recorded(recovery: RecoveryReport, seconds: Double) {
        recoverySeconds.record(seconds)
        recoveredRecords.record(recovery.records)
    }

    /// Records the journal's sizes, syncs and write failures, and whether its writes are `failing`.
    package mutating func record(_ journal: JournalStore, failing: Bool = false) {
        available.record(failing ? 0 : 1)
        totals.record(journal)
        journalBytes.record(journal.journalBytes)
        snapshotBytes.record(journal.snapshotBytes)
        if journal.compactions > lastCompactions {
            compactions.increment(total: journal.compactions, before: lastCompactions)
            lastCompactions = journal.compactions
            let stall = journal.longestCompactionStall.components
            compactionStallMax.record(Double(stall.seconds) + Double(stall.attoseconds) / 1e18)
        }
    }
}
