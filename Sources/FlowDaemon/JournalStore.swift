package import Logging
import SystemPackage

/// The file layer of flowd's journal: durable, crash-safe append of opaque records with group commit, snapshots
/// with compaction, and loading after a crash. The file layout and the crash-safety argument are in
/// docs/RELIABILITY.md ("On-disk format", "Why no crash mixes generations").
///
/// Use: `init` (locks the directory) → ``load()`` once → per request ``append(_:)``, and before answering
/// ``commit(now:)`` (one write for everything appended since); ``syncIfDue(now:)`` when ``nextSyncDue`` comes;
/// ``startSnapshot(_:)`` when ``needsCompaction``, and ``finishSnapshot()`` at each turn after; ``close()``.
///
/// Not `Sendable`: it is owned by the daemon's I/O thread, which calls it without locks; its buffer and file offset
/// are plain mutable state that a second thread would corrupt. Only the `.interval` syncs and a compaction's writes
/// run elsewhere, when the store has a ``JournalSyncer`` and a ``SnapshotWriter``, on values and duplicated
/// descriptors handed to them.
package final class JournalStore {
    /// The largest record ``append(_:)`` accepts (frames carry a 32-bit length; a record this large is a mistake).
    package static let maxRecordBytes = 1 << 30

    /// The configuration the store was opened with.
    package let configuration: JournalConfiguration

    /// Size of the live journal file in bytes (header included; what is committed, not what is buffered).
    package internal(set) var journalBytes: Int = 0
    /// Size of the snapshot file in bytes, 0 if there is none.
    package internal(set) var snapshotBytes: Int = 0
    /// `fdatasync`s of the journal done (or, in the background, started) by commits, ``syncIfDue(now:)`` and
    /// ``close()`` (for tests and metrics; the syncs a snapshot needs are not counted).
    package private(set) var syncCount: Int = 0
    /// Compactions that ended with their snapshot durable, since the store was opened.
    package internal(set) var compactions = 0
    /// The longest time a compaction's part on the caller's thread took (the caller measures it: it includes saving
    /// the sessions and taking the payload), for metrics.
    package var longestCompactionStall: Duration = .zero
    /// The live journal's generation (1 until the first snapshot).
    package internal(set) var generation: UInt64 = 1

    /// Whether no compaction runs and the journals after the snapshot have grown past
    /// ``JournalConfiguration/compactBytes`` and past the snapshot.
    ///
    /// The second condition makes snapshots at least double in size from one to the next while they keep most of
    /// what they replace (a tree is rebuilt by replay: docs/RELIABILITY.md), so each record is rewritten a bounded
    /// number of times and the bytes written stay linear in the records, not quadratic.
    package var needsCompaction: Bool {
        compactingGeneration == nil
            && journalBytes + earlierJournals.reduce(0) { $0 + $1.bytes } > max(configuration.compactBytes, snapshotBytes)
    }

    /// When ``syncIfDue(now:)`` should run next (in the clock of `now`), `nil` when nothing written is unsynced or
    /// the policy is not `.interval`.
    package var nextSyncDue: UInt64? {
        guard hasUnsyncedData, case .interval(let milliseconds) = configuration.fsync else { return nil }
        guard let lastSync else { return 0 }
        return lastSync &+ UInt64(max(0, milliseconds))
    }

    let logger: Logger
    let directory: StateDirectory
    /// The live journal, open once ``load()`` ran.
    var journal: FileDescriptor?
    /// Frames appended and not yet written.
    var buffer: [UInt8] = []
    /// An oversized record was appended (and dropped): the next commit reports it.
    var droppedRecordBytes: Int?
    var hasUnsyncedData = false
    private var lastSync: UInt64?
    /// Why the store cannot be used any more, if it cannot.
    var failure: JournalError?
    /// Tests: where ``writeSnapshot(_:)`` stops as if the process were killed.
    var simulatedCrash: SnapshotCrashPoint?
    /// Tests: the error the journal's next writes fail with (as a full disk's `ENOSPC`), until set back to `nil`.
    var simulatedWriteError: Errno?
    /// Tests: the error the journal's next background syncs fail with, until set back to `nil`.
    var simulatedSyncError: Errno?
    /// Tests: the error duplicating the journal's descriptor for a background sync fails with (as `EMFILE`).
    var simulatedDuplicateError: Errno?
    /// Where `.interval` syncs run when the caller must not wait for them; `nil`: on the caller's thread.
    let syncer: JournalSyncer?
    /// Where a compaction's writes and syncs run; `nil`: on the caller's thread, in ``startSnapshot(_:)``.
    let writer: SnapshotWriter?
    /// The generation of the snapshot a compaction is writing, until ``finishSnapshot()`` collects its outcome.
    var compactingGeneration: UInt64?
    /// The outcome of a compaction run inline, until ``finishSnapshot()`` collects it.
    var inlineOutcome: SnapshotJob.Outcome?
    /// The journals before the live one that the state still needs, oldest first (docs/RELIABILITY.md, "Why no
    /// crash mixes generations"); empty but while a compaction runs or after one that failed or was interrupted.
    var earlierJournals: [EarlierJournal] = []
    /// Writes of the live journal that failed (and were undone), since the store was opened.
    package private(set) var writeFailures = 0

    /// Opens the state directory: creates it (mode 0700) if missing and takes an exclusive lock on its `lock` file.
    /// Reads nothing yet (``load()`` does).
    ///
    /// - Throws: ``JournalError`` `.locked` when another process holds the directory, `.io` when it cannot be
    ///   created or opened.
    package convenience init(configuration: JournalConfiguration, logger: Logger) throws(JournalError) {
        try self.init(configuration: configuration, logger: logger, syncer: nil, writer: nil)
    }

    /// ``init(configuration:logger:)`` with `syncer` running the `.interval` syncs on a thread of its own (the
    /// daemon's store): the caller goes on while the disk syncs, and a failed sync makes the store unusable at its
    /// next call; and `writer` running compactions' writes and syncs, whose outcome ``finishSnapshot()`` collects.
    /// `nil`: they run inline.
    init(
        configuration: JournalConfiguration, logger: Logger, syncer: JournalSyncer?, writer: SnapshotWriter? = nil
    ) throws(JournalError) {
        self.configuration = configuration
        self.logger = logger
        self.syncer = syncer
        self.writer = writer
        var path = configuration.directory
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        guard !path.isEmpty else { throw JournalError(.io, "the state directory's path is empty") }
        directory = try StateDirectory(path: path)
    }

    deinit { close() }

    // MARK: - Loading (JournalStore+Load.swift)

    /// The snapshot's path.
    package var snapshotPath: String { directory.filePath("snapshot") }

    // MARK: - Appending

    /// Buffers `record` in memory (framed, with its CRC); nothing is written until ``commit(now:)``. A record larger
    /// than ``maxRecordBytes`` is dropped and the next commit throws `.recordTooLarge`.
    package func append(_ record: [UInt8]) {
        guard record.count <= Self.maxRecordBytes else {
            droppedRecordBytes = record.count
            return
        }
        JournalFormat.appendFrame(record, to: &buffer)
    }

    /// Whether records are appended and not yet committed.
    package var hasPendingRecords: Bool { !buffer.isEmpty }

    /// Writes every buffered record with one write, then syncs per policy: `.always` → `fdatasync` before returning;
    /// `.interval(ms)` → `fdatasync` if `ms` passed since the last sync (otherwise ``syncIfDue(now:)`` does it);
    /// `.never` → none. No-op when nothing is buffered.
    ///
    /// - Parameter now: milliseconds from any monotonic origin (the same for every call).
    /// - Throws: ``JournalError`` `.io` when the write failed (the file is cut back and the records stay buffered
    ///   for a retry), `.unusable` after a failed sync, `.recordTooLarge` (nothing written; the other records stay
    ///   buffered), `.notOpen`.
    package func commit(now: UInt64) throws(JournalError) {
        try requireUsable()
        if let size = droppedRecordBytes {
            droppedRecordBytes = nil
            throw JournalError(
                .recordTooLarge, "a record of \(size) bytes was not journaled (at most \(Self.maxRecordBytes))")
        }
        guard !buffer.isEmpty else { return }
        try writeBuffer()
        switch configuration.fsync {
        case .always:
            try sync(now: now)
        case .interval:
            try syncIfDue(now: now)
        case .never:
            break
        }
    }

    /// Under `.interval`: `fdatasync`s what is written and unsynced once ``nextSyncDue`` has come (with a syncer:
    /// starts that sync, unless one still runs; the next call starts it then). No-op otherwise.
    package func syncIfDue(now: UInt64) throws(JournalError) {
        try requireUsable()
        guard let due = nextSyncDue, now >= due else { return }
        if let syncer {
            try startSync(on: syncer, now: now)
        } else {
            try sync(now: now)
        }
    }

    // MARK: - Closing

    /// Writes what is buffered, syncs unsynced data (except under `.never`), closes the files and releases the lock.
    /// Failures are logged. Idempotent; `deinit` calls it.
    package func close() {
        writer?.waitUntilIdle()
        if compactingGeneration != nil {
            do throws(JournalError) {
                try finishSnapshot()
            } catch {
                logger.error("journal: closing after a failed compaction", metadata: ["error": "\(error)"])
            }
        }
        syncer?.waitUntilIdle()
        if let error = syncer?.takeFailure(), failure == nil {
            failure = JournalError(.unusable, error.message)
            logger.error("journal: closing after a failed sync", metadata: ["error": "\(error)"])
        }
        if journal != nil && failure == nil {
            do throws(JournalError) {
                if !buffer.isEmpty { try writeBuffer() }
                if hasUnsyncedData && configuration.fsync != .never { try sync(now: lastSync ?? 0) }
            } catch {
                logger.error("journal: closing lost unsynced data", metadata: ["error": "\(error)"])
            }
        }
        closeJournal()
        directory.close()
        buffer = []
    }

    // MARK: - Internals

    func journalPath(_ generation: UInt64) -> String {
        directory.filePath(JournalFormat.journalFileName(generation))
    }

    /// Creates `journal-<generation>` (replacing a torn one) with its header naming `previousLength`; syncs the file
    /// and the directory as asked (a compaction's switch leaves them to its writer, docs/RELIABILITY.md).
    func createJournal(
        _ generation: UInt64, previousLength: Int, syncsFile: Bool, syncsDirectory: Bool
    ) throws(JournalError) -> FileDescriptor {
        let path = journalPath(generation)
        let file = try FileDescriptor.open(journalFile: path, .readWrite, options: [.create, .truncate])
        do throws(JournalError) {
            let header = JournalFormat.journalHeader(generation: generation, previousLength: previousLength)
            if simulatedCrash == .journalTorn {
                try file.write(Array(header.prefix(header.count / 2)), at: 0, path: path)
                try crash(at: .journalTorn)
            }
            try file.write(header, at: 0, path: path)
            if syncsFile { try file.syncAll(path: path) }
            if syncsDirectory { try directory.sync() }
        } catch {
            try? file.close()
            throw error
        }
        return file
    }

    /// Writes the buffer at the end of the journal with one write; on failure cuts the file back and keeps the buffer.
    func writeBuffer() throws(JournalError) {
        let path = journalPath(generation)
        guard let journal else { throw JournalError(.notOpen, "load() has not run") }
        do throws(JournalError) {
            if let simulatedWriteError { throw JournalError.io("cannot write \(path)", simulatedWriteError) }
            try journal.write(buffer, at: journalBytes, path: path)
        } catch {
            writeFailures += 1
            do throws(JournalError) {
                try journal.truncate(to: journalBytes, path: path)
            } catch let cut {
                failure = JournalError(.unusable, "\(error.message); and \(cut.message)")
                throw failure!
            }
            throw error
        }
        journalBytes += buffer.count
        hasUnsyncedData = true
        if buffer.capacity > 4 << 20 {
            buffer = []  // a burst's buffer is not kept for ever
        } else {
            buffer.removeAll(keepingCapacity: true)
        }
    }

    private func sync(now: UInt64) throws(JournalError) {
        guard let journal else { throw JournalError(.notOpen, "load() has not run") }
        do throws(JournalError) {
            try journal.syncData(path: journalPath(generation))
        } catch {
            // After a failed fdatasync the kernel may have dropped the dirty pages; a later success would lie.
            failure = JournalError(.unusable, error.message)
            throw failure!
        }
        syncCount += 1
        lastSync = now
        hasUnsyncedData = false
    }

    /// Hands the journal's unsynced data to `syncer`, with a duplicate of the descriptor.
    private func startSync(on syncer: JournalSyncer, now: UInt64) throws(JournalError) {
        guard !syncer.isSyncing else { return }
        guard let journal else { throw JournalError(.notOpen, "load() has not run") }
        let path = journalPath(generation)
        let copy: FileDescriptor
        do {
            if let simulatedDuplicateError { throw simulatedDuplicateError }
            copy = try journal.duplicate()
        } catch {
            // Out of descriptors (EMFILE: connections hold them all) is no reason to stop: sync here, as without a
            // syncer. Before, the `.io` error stopped flowd at its next idle turn.
            return try sync(now: now)
        }
        syncer.start(copy, path: path, simulatedError: simulatedSyncError)
        syncCount += 1
        lastSync = now
        hasUnsyncedData = false
    }

    func requireUsable() throws(JournalError) {
        if let error = syncer?.takeFailure() {
            // As after a failed inline sync: the kernel may have dropped the dirty pages.
            failure = JournalError(.unusable, error.message)
        }
        if let failure { throw failure }
        guard journal != nil else {
            throw JournalError(.notOpen, directory.isOpen ? "load() has not run" : "the journal store is closed")
        }
    }

    func closeJournal() {
        try? journal?.close()
        journal = nil
    }

    /// Tests: stops here, as a SIGKILL would, when ``simulatedCrash`` is `point`.
    func crash(at point: SnapshotCrashPoint) throws(JournalError) {
        guard simulatedCrash == point else { return }
        failure = JournalError(.unusable, "simulated crash at \(point)")
        throw failure!
    }
}

@available(*, unavailable, message: "owned by the daemon's I/O thread: its buffer and offsets are unsynchronized state")
extension JournalStore: Sendable {}
