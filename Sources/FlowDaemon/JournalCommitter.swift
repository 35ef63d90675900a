internal import FlowWire
internal import Logging

/// Writes the core's journal records before anything they caused is sent, and rides out a journal that cannot be
/// written (a full disk, a failing one) instead of stopping the daemon (docs/RELIABILITY.md, "Disk full").
///
/// When a commit fails with ``JournalError/Code/io`` (the store undid the write and keeps the records buffered), the
/// batch's outputs are held, the core refuses state changes (``DaemonCore/journalAvailable``, `journalUnavailable`),
/// and the commit is tried again with back-off (100 ms doubling to 5 s, in the clock of `now`). Outputs of batches
/// that made records meanwhile (a presenter lost, an in-daemon stepper's step) are held behind them; outputs of
/// batches that made none (reads, refusals, heartbeats) go out. Once a commit succeeds the held outputs go out in
/// order. Nothing is acknowledged before it is written; a crash meanwhile loses only what nobody was told.
///
/// Not `Sendable`: owned by the I/O thread with the store.
struct JournalCommitter {
    let store: JournalStore
    let logger: Logger
    /// Outputs of batches whose records are not written yet, in order.
    private(set) var held: [DaemonOutput] = []
    /// When the commit is tried again; `nil` while the journal is writable.
    private(set) var nextRetry: UInt64?
    private var retryDelay: UInt64 = Self.firstRetryDelay

    static let firstRetryDelay: UInt64 = 100
    static let maximumRetryDelay: UInt64 = 5_000

    init(store: JournalStore, logger: Logger) {
        self.store = store
        self.logger = logger
    }

    /// Whether commits are failing.
    var isFailing: Bool { nextRetry != nil }

    /// Appends `records` and commits them; returns what of `outputs` (and of what was held) may go out now.
    ///
    /// - Throws: ``JournalError`` other than `.io` (a failed sync, a record too large): the daemon stops.
    mutating func commit(
        _ records: [[UInt8]], outputs: consuming [DaemonOutput], core: inout DaemonCore, now: UInt64
    ) throws(JournalError) -> [DaemonOutput] {
        guard !records.isEmpty else { return outputs }
        for record in records { store.append(record) }
        guard !isFailing else {
            held += outputs
            return []
        }
        do throws(JournalError) {
            try store.commit(now: now)
            return outputs
        } catch {
            guard error.code == .io else { throw error }
            held = outputs
            retryDelay = Self.firstRetryDelay
            nextRetry = now + retryDelay
            core.journalAvailable = false
            logger.error(
                "journal cannot be written: refusing state changes until it can (journalUnavailable)",
                metadata: ["error": "\(error)", "retry_ms": "\(retryDelay)"])
            return []
        }
    }

    /// Tries the commit again once ``nextRetry`` has come; returns the held outputs when it succeeds.
    ///
    /// - Throws: ``JournalError`` other than `.io`.
    mutating func retryIfDue(core: inout DaemonCore, now: UInt64) throws(JournalError) -> [DaemonOutput] {
        guard let due = nextRetry, now >= due else { return [] }
        do throws(JournalError) {
            try store.commit(now: now)
        } catch {
            guard error.code == .io else { throw error }
            retryDelay = min(retryDelay * 2, Self.maximumRetryDelay)
            nextRetry = now + retryDelay
            if RepeatedWarning.isLogged(store.writeFailures) {
                logger.error(
                    "journal still cannot be written",
                    metadata: ["error": "\(error)", "failures": "\(store.writeFailures)", "retry_ms": "\(retryDelay)"])
            }
            return []
        }
        nextRetry = nil
        core.journalAvailable = true
        logger.notice("journal writable again: state changes accepted", metadata: ["held": "\(held.count)"])
        defer { held = [] }
        return held
    }
}

@available(*, unavailable, message: "owned by the daemon's I/O thread with its journal store")
extension JournalCommitter: Sendable {}
