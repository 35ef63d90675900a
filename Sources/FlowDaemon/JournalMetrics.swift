package import CoreMetrics

/// The journal's metrics: its size on disk, its syncs, and what the last start recovered and how long it took.
///
/// | metric | type |
/// |---|---|
/// | `flowd_journal_bytes` | gauge: the live journal file |
/// | `flowd_snapshot_bytes` | gauge: the last snapshot |
/// | `flowd_journal_syncs_total` | counter: `fdatasync`s of the journal |
/// | `flowd_journal_write_failures_total` | counter: journal writes that failed (a full disk), retried |
/// | `flowd_journal_available` | gauge: 1 while the journal is written, 0 while writes fail and state changes are refused |
/// | `flowd_recovery_seconds` | gauge: how long rebuilding the state took at start |
/// | `flowd_recovered_records` | gauge: records replayed at start |
///
/// A value type the I/O thread owns; its metric objects are `Sendable` and thread-safe.
package struct JournalMetrics: Sendable {
    /// The metric names (docs list them for dashboards; tests read them here).
    package enum Name: Sendable {
        package static let journalBytes = "flowd_journal_bytes"
        package static let snapshotBytes = "flowd_snapshot_bytes"
        package static let syncs = "flowd_journal_syncs_total"
        package static let writeFailures = "flowd_journal_write_failures_total"
        package static let available = "flowd_journal_available"
        package static let recoverySeconds = "flowd_recovery_seconds"
        package static let recoveredRecords = "flowd_recovered_records"
    }

    private let journalBytes: Gauge
    private let snapshotBytes: Gauge
    private let syncs: Counter
    private let writeFailures: Counter
    private let available: Gauge
    private let recoverySeconds: Gauge
    private let recoveredRecords: Gauge
    /// The store's sync count when last recorded (the counter takes increases).
    private var lastSyncs = 0
    private var lastWriteFailures = 0

    package init(factory: any MetricsFactory) {
        journalBytes = Gauge(label: Name.journalBytes, factory: factory)
        snapshotBytes = Gauge(label: Name.snapshotBytes, factory: factory)
        syncs = Counter(label: Name.syncs, factory: factory)
        writeFailures = Counter(label: Name.writeFailures, factory: factory)
        available = Gauge(label: Name.available, factory: factory)
        recoverySeconds = Gauge(label: Name.recoverySeconds, factory: factory)
        recoveredRecords = Gauge(label: Name.recoveredRecords, factory: factory)
    }

    /// Records what the start recovered.
    package func recorded(recovery: RecoveryReport, seconds: Double) {
        recoverySeconds.record(seconds)
        recoveredRecords.record(recovery.records)
    }

    /// Records the journal's sizes, syncs and write failures, and whether its writes are `failing`.
    package mutating func record(_ journal: JournalStore, failing: Bool = false) {
        available.record(failing ? 0 : 1)
        let failures = journal.writeFailures - lastWriteFailures
        if failures > 0 { writeFailures.increment(by: failures) }
        lastWriteFailures = journal.writeFailures
        journalBytes.record(journal.journalBytes)
        snapshotBytes.record(journal.snapshotBytes)
        let increase = journal.syncCount - lastSyncs
        if increase > 0 { syncs.increment(by: increase) }
        lastSyncs = journal.syncCount
    }
}
