#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
public import Logging

// # The journal's files and why a crash cannot mix them up
//
// ## Layout of the state directory (mode 0700)
// - `lock`: holds an exclusive `flock(2)` while a ``JournalStore`` is open (and the holder's pid, for the message
//   a second flowd gets). The file is never deleted: deleting a lock file races with the next locker.
// - `snapshot` (optional): a 36-byte header, then the payload.
//   Header, little-endian: magic `FLOWDSNP` (8 bytes), format version (UInt32, 1), *generation* (UInt64: the
//   generation of the one journal file whose records apply on top of this snapshot), payload length (UInt64),
//   CRC-32C of the payload (UInt32), CRC-32C of the preceding 32 header bytes (UInt32).
// - `journal-<generation>` (decimal): a 24-byte header, then frames.
//   Header: magic `FLOWDJNL` (8), version (UInt32, 1), generation (UInt64, equal to the name's), CRC-32C of the
//   preceding 20 bytes (UInt32). Each frame: length (UInt32 LE), CRC-32C of the 4 length bytes followed by the
//   record (UInt32 LE), the record. The CRC covers the length, so a zero-filled tail (a length of 0 with a CRC of 0)
//   does not pass for an empty record.
// - `snapshot.tmp`: only while a snapshot is being written.
// Without a snapshot the generation is 1 (`journal-1`).
//
// ## Appends
// A commit writes all buffered frames with one `pwrite` at the end of the good data, then syncs per ``FsyncPolicy``.
// A crash can leave only a prefix of those frames, possibly with a torn last frame; a power loss can also leave
// garbage or zeros in the range written since the last `fdatasync`. `load()` accepts frames up to the first one whose
// length or CRC does not check, truncates the file there (so later appends follow good data) and reports the cut
// bytes in ``JournalContents/discardedBytes``. Records whose commit returned under `.always` were `fdatasync`ed and
// are never cut; of a commit that did not return, a prefix of its records may survive.
// A failed write is undone with `ftruncate` (the buffer is kept for a retry). A failed `fdatasync` leaves the
// store unusable (``JournalError/Code/unusable``): after it the kernel may have dropped the dirty pages, and a later
// successful sync would not mean they are on disk.
//
// ## Snapshots (compaction), generation G to G+1
// 1. buffered records are written to `journal-G` (they are covered by the payload, and stay valid if this fails);
// 2. `snapshot.tmp` is written with generation G+1 in its header, and `fsync`ed;
// 3. `rename(snapshot.tmp, snapshot)` — the commit point;
// 4. the directory is `fsync`ed (the rename is durable);
// 5. `journal-(G+1)` is created with its header, `fsync`ed, and the directory `fsync`ed again;
// 6. `journal-G` is deleted.
// Invariant: `snapshot` names the generation of the only journal that applies to it, and `journal-(G+1)` exists on
// disk only after a snapshot naming G+1 is durable. So, whichever step a SIGKILL or power loss interrupts, `load()`
// finds either the old snapshot (or none) with `journal-G` — before step 3; a leftover `snapshot.tmp` is deleted — or
// the new snapshot, whose `journal-(G+1)` is missing, torn (header only partly written) or complete and empty; the
// old `journal-G` is then *older* than the snapshot and deleted unread, never applied on top of it. A journal newer
// than the snapshot cannot come from a crash; `load()` refuses it (``JournalError/Code/corrupt``) rather than guess,
// and likewise a damaged snapshot (it is only ever replaced by rename, so damage is not a torn write).
// A failure after step 3 leaves the store unusable (its open file is the old generation); a failure before it
// deletes `snapshot.tmp` and leaves the store as it was.

/// How hard the journal holds on to what it writes before flowd answers.
public enum FsyncPolicy: Sendable, Hashable {
    /// `fdatasync` at every commit: an answered request survives a power loss.
    case always
    /// `fdatasync` at most once per interval: a power loss may lose the last interval's requests (a crash of flowd
    /// alone loses nothing written).
    case interval(milliseconds: Int)
    /// Never `fdatasync` (the kernel writes back when it likes): for tests and throwaway state.
    case never

    /// The policy named `name` (`always`, `interval`, `never`), `nil` for another name.
    public init?(_ name: String, intervalMilliseconds: Int = 100) {
        switch name {
        case "always": self = .always
        case "interval": self = .interval(milliseconds: intervalMilliseconds)
        case "never": self = .never
        default: return nil
        }
    }

    /// `always`, `interval` or `never`.
    public var name: String {
        switch self {
        case .always: "always"
        case .interval: "interval"
        case .never: "never"
        }
    }
}

/// Where flowd keeps its state and how.
public struct JournalConfiguration: Sendable, Hashable, Codable {
    /// The state directory (created with mode 0700 when missing).
    public var directory: String
    /// When appended records are forced to disk.
    public var fsync: FsyncPolicy = .interval(milliseconds: 100)
    /// When the live journal file grows past this many bytes, the daemon writes a snapshot (compaction).
    public var compactBytes: Int = 8 * 1024 * 1024

    public init(directory: String, fsync: FsyncPolicy = .interval(milliseconds: 100), compactBytes: Int = 8 << 20) {
        self.directory = directory
        self.fsync = fsync
        self.compactBytes = compactBytes
    }

    private enum CodingKeys: String, CodingKey {
        case directory
        case fsync
        case fsyncIntervalMs = "fsync_interval_ms"
        case compactBytes = "compact_bytes"
    }

    /// Reads a configuration; missing fields keep their defaults (`directory` is required). `fsync` is `always`,
    /// `interval` or `never`; `fsync_interval_ms` (default 100) is the interval's length.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        directory = try container.decode(String.self, forKey: .directory)
        let intervalMs = try container.decodeIfPresent(Int.self, forKey: .fsyncIntervalMs) ?? 100
        guard intervalMs >= 0 else {
            throw DecodingError.dataCorruptedError(
                forKey: .fsyncIntervalMs, in: container, debugDescription: "must not be negative")
        }
        let name = try container.decodeIfPresent(String.self, forKey: .fsync) ?? "interval"
        guard let policy = FsyncPolicy(name, intervalMilliseconds: intervalMs) else {
            throw DecodingError.dataCorruptedError(
                forKey: .fsync, in: container, debugDescription: "'\(name)' is not always, interval or never")
        }
        fsync = policy
        compactBytes = try container.decodeIfPresent(Int.self, forKey: .compactBytes) ?? (8 << 20)
        guard compactBytes >= 0 else {
            throw DecodingError.dataCorruptedError(
                forKey: .compactBytes, in: container, debugDescription: "must not be negative")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(directory, forKey: .directory)
        try container.encode(fsync.name, forKey: .fsync)
        if case .interval(let milliseconds) = fsync {
            try container.encode(milliseconds, forKey: .fsyncIntervalMs)
        }
        try container.encode(compactBytes, forKey: .compactBytes)
    }
}

/// What went wrong with the state directory.
///
/// Equality looks at the code only.
public struct JournalError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of failure; an open set of codes.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// A system call on the state directory failed (permissions, disk full, I/O error).
        public static let io = Code("io")
        /// Another process (another flowd) holds the state directory's lock.
        public static let locked = Code("locked")
        /// The files are damaged beyond a torn tail (a bad snapshot, a journal newer than the snapshot): nothing
        /// was changed; an operator has to look.
        public static let corrupt = Code("corrupt")
        /// The files were written by another format version of flowd.
        public static let incompatible = Code("incompatible")
        /// An appended record was larger than ``JournalStore/maxRecordBytes``.
        public static let recordTooLarge = Code("recordTooLarge")
        /// The store is closed, or `load()` has not run yet.
        public static let notOpen = Code("notOpen")
        /// An earlier failure (a failed `fdatasync`, a compaction that failed half-way) left the store in a state
        /// that cannot be trusted: the daemon should stop; the next start recovers from the files.
        public static let unusable = Code("unusable")

        public var description: String { name }
    }

    /// What went wrong.
    public let code: Code
    /// Details for a person (the file and the system's error text).
    public let message: String

    /// An error with `code` and `message`.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public static func == (lhs: JournalError, rhs: JournalError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// `locked: /var/lib/flowd is in use by another flowd (pid 812)`.
    public var description: String { "\(code): \(message)" }
}

/// What ``JournalStore/load()`` found.
public struct JournalContents: Sendable {
    /// The last snapshot's payload, `nil` if none.
    public var snapshot: [UInt8]?
    /// Records appended after that snapshot, in order.
    public var records: [[UInt8]]
    /// Bytes of a torn or corrupt tail that were cut off the journal (and logged); 0 normally.
    public var discardedBytes: Int

    public init(snapshot: [UInt8]?, records: [[UInt8]], discardedBytes: Int) {
        self.snapshot = snapshot
        self.records = records
        self.discardedBytes = discardedBytes
    }
}

/// The file layer of flowd's journal: durable, crash-safe append of opaque records with group commit, snapshots
/// with compaction, and loading after a crash. The file layout and the crash-safety argument are at the top of
/// `JournalStore.swift`.
///
/// Use: `init` (locks the directory) → ``load()`` once → per request ``append(_:)``, and before answering
/// ``commit(now:)`` (one write for everything appended since); ``syncIfDue(now:)`` when ``nextSyncDue`` comes;
/// ``writeSnapshot(_:)`` when ``journalBytes`` passes the configuration's `compactBytes`; ``close()``.
///
/// Not `Sendable`: it is owned by the daemon's I/O thread, which calls it without locks; its buffer and file offset
/// are plain mutable state that a second thread would corrupt.
public final class JournalStore {
    /// The largest record ``append(_:)`` accepts (frames carry a 32-bit length; a record this large is a mistake).
    public static let maxRecordBytes = 1 << 30

    /// The configuration the store was opened with.
    public let configuration: JournalConfiguration

    /// Size of the live journal file in bytes (header included; what is committed, not what is buffered).
    public private(set) var journalBytes: Int = 0
    /// Size of the snapshot file in bytes, 0 if there is none.
    public private(set) var snapshotBytes: Int = 0
    /// `fdatasync`s of the journal done by commits, ``syncIfDue(now:)`` and ``close()`` (for tests and metrics; the
    /// syncs a snapshot needs are not counted).
    public private(set) var syncCount: Int = 0
    /// The live journal's generation (1 until the first snapshot).
    public private(set) var generation: UInt64 = 1

    /// Whether the live journal has grown past ``JournalConfiguration/compactBytes`` and past the last snapshot.
    ///
    /// The second condition makes snapshots at least double in size from one to the next while they keep most of
    /// what they replace (a tree is rebuilt by replay: docs/RELIABILITY.md), so each record is rewritten a bounded
    /// number of times and the bytes written stay linear in the records, not quadratic.
    public var needsCompaction: Bool { journalBytes > max(configuration.compactBytes, snapshotBytes) }

    /// When ``syncIfDue(now:)`` should run next (in the clock of `now`), `nil` when nothing written is unsynced or
    /// the policy is not `.interval`.
    public var nextSyncDue: UInt64? {
        guard hasUnsyncedData, case .interval(let milliseconds) = configuration.fsync else { return nil }
        guard let lastSync else { return 0 }
        return lastSync &+ UInt64(max(0, milliseconds))
    }

    private let logger: Logger
    private let directory: String
    private var lockDescriptor: Int32
    private var directoryDescriptor: Int32
    private var journalDescriptor: Int32 = -1
    /// Frames appended and not yet written.
    private var buffer: [UInt8] = []
    /// An oversized record was appended (and dropped): the next commit reports it.
    private var droppedRecordBytes: Int?
    private var hasUnsyncedData = false
    private var lastSync: UInt64?
    /// Why the store cannot be used any more, if it cannot.
    private var failure: JournalError?
    /// Tests: where ``writeSnapshot(_:)`` stops as if the process were killed.
    var simulatedCrash: SnapshotCrashPoint?

    /// Opens the state directory: creates it (mode 0700) if missing and takes an exclusive lock on its `lock` file.
    /// Reads nothing yet (``load()`` does).
    ///
    /// - Throws: ``JournalError`` `.locked` when another process holds the directory, `.io` when it cannot be
    ///   created or opened.
    public init(configuration: JournalConfiguration, logger: Logger) throws(JournalError) {
        self.configuration = configuration
        self.logger = logger
        var directory = configuration.directory
        while directory.count > 1 && directory.hasSuffix("/") { directory.removeLast() }
        guard !directory.isEmpty else { throw JournalError(.io, "the state directory's path is empty") }
        self.directory = directory
        try Self.makeDirectory(directory)
        let directoryDescriptor = retryingOnInterrupt { open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard directoryDescriptor >= 0 else {
            throw JournalError(.io, "cannot open the state directory \(directory): \(errorText())")
        }
        let lockPath = directory + "/lock"
        let lockDescriptor = retryingOnInterrupt { open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600) }
        guard lockDescriptor >= 0 else {
            let reason = errorText()
            closeDescriptor(directoryDescriptor)
            throw JournalError(.io, "cannot open \(lockPath): \(reason)")
        }
        guard retryingOnInterrupt({ flock(lockDescriptor, LOCK_EX | LOCK_NB) }) == 0 else {
            let code = errno
            let holder = Self.readSmallFile(lockDescriptor).flatMap { Int(String(decoding: $0, as: UTF8.self)) }
            closeDescriptor(lockDescriptor)
            closeDescriptor(directoryDescriptor)
            if code == EWOULDBLOCK || code == EAGAIN {
                let by = holder.map { "another flowd (pid \($0))" } ?? "another flowd"
                throw JournalError(
                    .locked, "the state directory \(directory) is in use by \(by); one directory per flowd")
            }
            throw JournalError(.io, "cannot lock \(lockPath): \(errorText(code))")
        }
        // The holder's pid, for the message above; the lock, not this content, is what excludes.
        let pid = Array("\(getpid())\n".utf8)
        if ftruncate(lockDescriptor, 0) == 0 {
            _ = pid.withUnsafeBytes { pwrite(lockDescriptor, $0.baseAddress, $0.count, 0) }
        }
        self.lockDescriptor = lockDescriptor
        self.directoryDescriptor = directoryDescriptor
    }

    deinit { close() }

    // MARK: - Loading

    /// Reads the snapshot and the live journal, validating every frame; at the first torn or corrupt frame the journal
    /// is truncated there (logged, counted in ``JournalContents/discardedBytes``). Deletes what an interrupted
    /// compaction left (`snapshot.tmp`, journals older than the snapshot) and creates the live journal if missing.
    /// Afterwards the store accepts appends. Calling it again reads afresh and drops what is buffered.
    ///
    /// - Throws: ``JournalError`` `.corrupt` or `.incompatible` when the files cannot be trusted (nothing is changed
    ///   then), `.io` when they cannot be read.
    public func load() throws(JournalError) -> JournalContents {
        guard lockDescriptor >= 0 else { throw JournalError(.notOpen, "the journal store is closed") }
        closeJournal()
        buffer.removeAll(keepingCapacity: true)
        droppedRecordBytes = nil
        hasUnsyncedData = false
        failure = nil

        let names = try listDirectory()
        var snapshot: [UInt8]?
        var generation: UInt64 = 1
        snapshotBytes = 0
        if names.contains("snapshot") {
            let (payload, snapshotGeneration, size) = try readSnapshot()
            snapshot = payload
            generation = snapshotGeneration
            snapshotBytes = size
        }
        let journals = names.compactMap(Self.journalGeneration(fileName:))
        if let newer = journals.filter({ $0 > generation }).min() {
            throw JournalError(
                .corrupt,
                "\(directory)/journal-\(newer) is newer than the "
                    + (snapshot == nil ? "missing snapshot" : "snapshot (generation \(generation))")
                    + ": the snapshot it belongs to is gone; refusing to guess (move the files aside to start empty)")
        }
        if names.contains("snapshot.tmp") {
            logger.notice(
                "journal: deleting the snapshot.tmp of an interrupted compaction",
                metadata: ["directory": "\(directory)"])
            unlinkLogging(directory + "/snapshot.tmp")
        }
        for stale in journals where stale < generation {
            logger.notice(
                "journal: deleting a journal the snapshot replaced",
                metadata: ["file": "\(directory)/journal-\(stale)", "snapshot_generation": "\(generation)"])
            unlinkLogging(journalPath(stale))
        }

        self.generation = generation
        var records: [[UInt8]] = []
        var discarded = 0
        if journals.contains(generation) {
            (records, discarded) = try openExistingJournal(generation)
        } else {
            journalDescriptor = try createJournal(generation)
            journalBytes = Self.journalHeaderSize
        }
        logger.info(
            "journal: loaded",
            metadata: [
                "directory": "\(directory)", "generation": "\(generation)", "snapshot_bytes": "\(snapshotBytes)",
                "records": "\(records.count)", "journal_bytes": "\(journalBytes)", "discarded_bytes": "\(discarded)",
            ])
        return JournalContents(snapshot: snapshot, records: records, discardedBytes: discarded)
    }

    // MARK: - Appending

    /// Buffers `record` in memory (framed, with its CRC); nothing is written until ``commit(now:)``. A record larger
    /// than ``maxRecordBytes`` is dropped and the next commit throws `.recordTooLarge`.
    public func append(_ record: [UInt8]) {
        guard record.count <= Self.maxRecordBytes else {
            droppedRecordBytes = record.count
            return
        }
        let length = UInt32(truncatingIfNeeded: record.count)
        var crc = CRC32C()
        crc.update(littleEndian: length)
        record.withUnsafeBytes { crc.update($0) }
        buffer.appendLittleEndian(length)
        buffer.appendLittleEndian(crc.value)
        buffer.append(contentsOf: record)
    }

    /// Whether records are appended and not yet committed.
    public var hasPendingRecords: Bool { !buffer.isEmpty }

    /// Writes every buffered record with one write, then syncs per policy: `.always` → `fdatasync` before returning;
    /// `.interval(ms)` → `fdatasync` if `ms` passed since the last sync (otherwise ``syncIfDue(now:)`` does it);
    /// `.never` → none. No-op when nothing is buffered.
    ///
    /// - Parameter now: milliseconds from any monotonic origin (the same for every call).
    /// - Throws: ``JournalError`` `.io` when the write failed (the file is cut back and the records stay buffered
    ///   for a retry), `.unusable` after a failed sync, `.recordTooLarge` (nothing written; the other records stay
    ///   buffered), `.notOpen`.
    public func commit(now: UInt64) throws(JournalError) {
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

    /// Under `.interval`: `fdatasync`s what is written and unsynced once ``nextSyncDue`` has come. No-op otherwise.
    public func syncIfDue(now: UInt64) throws(JournalError) {
        try requireUsable()
        guard let due = nextSyncDue, now >= due else { return }
        try sync(now: now)
    }

    // MARK: - Snapshots

    /// Compaction: `payload` (the whole state, including what is buffered) replaces the snapshot and the journal.
    /// Buffered records are written to the old journal first. Crash-safe at every point (see the top of this file).
    ///
    /// - Throws: ``JournalError`` `.io` when it failed before the new snapshot took effect (the store goes on with
    ///   the old one); `.unusable` afterwards when it failed after (the next start loads the new snapshot).
    public func writeSnapshot(_ payload: [UInt8]) throws(JournalError) {
        try requireUsable()
        if !buffer.isEmpty { try writeBuffer() }
        let newGeneration = generation + 1
        let temporaryPath = directory + "/snapshot.tmp"
        let snapshotPath = directory + "/snapshot"

        // Steps 2-3: snapshot.tmp, synced, renamed over snapshot. A failure here leaves the old state in force.
        do throws(JournalError) {
            var header: [UInt8] = []
            header.reserveCapacity(Self.snapshotHeaderSize)
            header.append(contentsOf: Self.snapshotMagic)
            header.appendLittleEndian(Self.formatVersion)
            header.appendLittleEndian(newGeneration)
            header.appendLittleEndian(UInt64(payload.count))
            var payloadCRC = CRC32C()
            payload.withUnsafeBytes { payloadCRC.update($0) }
            header.appendLittleEndian(payloadCRC.value)
            header.appendLittleEndian(CRC32C.checksum(header))

            let descriptor = retryingOnInterrupt {
                open(temporaryPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            }
            guard descriptor >= 0 else { throw JournalError(.io, "cannot create \(temporaryPath): \(errorText())") }
            defer { closeDescriptor(descriptor) }
            if simulatedCrash == .temporaryTorn {
                try writeAll(descriptor, header, at: 0, path: temporaryPath)
                let half = Array(payload.prefix(payload.count / 2))
                try writeAll(descriptor, half, at: header.count, path: temporaryPath)
                try crash(at: .temporaryTorn)
            }
            try writeAll(descriptor, header, at: 0, path: temporaryPath)
            try writeAll(descriptor, payload, at: header.count, path: temporaryPath)
            guard retryingOnInterrupt({ fsync(descriptor) }) == 0 else {
                throw JournalError(.io, "cannot sync \(temporaryPath): \(errorText())")
            }
            try crash(at: .temporaryWritten)
            guard rename(temporaryPath, snapshotPath) == 0 else {
                throw JournalError(.io, "cannot rename \(temporaryPath) to \(snapshotPath): \(errorText())")
            }
        } catch {
            // Not after a simulated crash: that leaves the files as they are.
            if failure == nil { _ = unlink(temporaryPath) }
            throw error
        }

        // Steps 4-5: the new snapshot is in force; the open journal is of the old generation. A failure from here on
        // leaves the store unusable, and the next load() finds the new snapshot.
        let newDescriptor: Int32
        do throws(JournalError) {
            try crash(at: .renamed)
            try syncDirectory()
            newDescriptor = try createJournal(newGeneration)
        } catch {
            if failure == nil {
                failure = JournalError(
                    .unusable, "a compaction failed after its snapshot took effect: \(error.message)")
            }
            throw failure!
        }

        // Step 6.
        let oldGeneration = generation
        closeJournal()
        journalDescriptor = newDescriptor
        generation = newGeneration
        journalBytes = Self.journalHeaderSize
        snapshotBytes = Self.snapshotHeaderSize + payload.count
        hasUnsyncedData = false
        if simulatedCrash == .journalCreated {
            failure = JournalError(.unusable, "simulated crash at \(SnapshotCrashPoint.journalCreated)")
            throw failure!
        }
        unlinkLogging(journalPath(oldGeneration))
        logger.debug(
            "journal: compacted",
            metadata: ["generation": "\(newGeneration)", "snapshot_bytes": "\(snapshotBytes)"])
    }

    // MARK: - Closing

    /// Writes what is buffered, syncs unsynced data (except under `.never`), closes the files and releases the lock.
    /// Failures are logged. Idempotent; `deinit` calls it.
    public func close() {
        if journalDescriptor >= 0 && failure == nil {
            do throws(JournalError) {
                if !buffer.isEmpty { try writeBuffer() }
                if hasUnsyncedData && configuration.fsync != .never { try sync(now: lastSync ?? 0) }
            } catch {
                logger.error("journal: closing lost unsynced data", metadata: ["error": "\(error)"])
            }
        }
        closeJournal()
        if directoryDescriptor >= 0 {
            closeDescriptor(directoryDescriptor)
            directoryDescriptor = -1
        }
        if lockDescriptor >= 0 {
            closeDescriptor(lockDescriptor)  // releases the flock
            lockDescriptor = -1
        }
        buffer = []
    }

    // MARK: - Internals: journal files

    static let formatVersion: UInt32 = 1
    static let journalMagic = Array("FLOWDJNL".utf8)
    static let snapshotMagic = Array("FLOWDSNP".utf8)
    static let journalHeaderSize = 24
    static let snapshotHeaderSize = 36
    static let frameHeaderSize = 8

    private func journalPath(_ generation: UInt64) -> String { "\(directory)/journal-\(generation)" }

    static func journalGeneration(fileName: String) -> UInt64? {
        guard fileName.hasPrefix("journal-") else { return nil }
        let digits = fileName.dropFirst("journal-".count)
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return UInt64(digits)
    }

    static func journalHeader(generation: UInt64) -> [UInt8] {
        var header: [UInt8] = []
        header.reserveCapacity(journalHeaderSize)
        header.append(contentsOf: journalMagic)
        header.appendLittleEndian(formatVersion)
        header.appendLittleEndian(generation)
        header.appendLittleEndian(CRC32C.checksum(header))
        return header
    }

    /// Creates `journal-<generation>` (replacing a torn one) with its header, synced, and syncs the directory.
    private func createJournal(_ generation: UInt64) throws(JournalError) -> Int32 {
        let path = journalPath(generation)
        let descriptor = retryingOnInterrupt { open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600) }
        guard descriptor >= 0 else { throw JournalError(.io, "cannot create \(path): \(errorText())") }
        do throws(JournalError) {
            let header = Self.journalHeader(generation: generation)
            if simulatedCrash == .journalTorn {
                try writeAll(descriptor, Array(header.prefix(header.count / 2)), at: 0, path: path)
                try crash(at: .journalTorn)
            }
            try writeAll(descriptor, header, at: 0, path: path)
            guard retryingOnInterrupt({ fsync(descriptor) }) == 0 else {
                throw JournalError(.io, "cannot sync \(path): \(errorText())")
            }
            try syncDirectory()
        } catch {
            closeDescriptor(descriptor)
            throw error
        }
        return descriptor
    }

    /// Opens the live journal, reads its frames and cuts a bad tail.
    private func openExistingJournal(_ generation: UInt64) throws(JournalError) -> ([[UInt8]], Int) {
        let path = journalPath(generation)
        let descriptor = retryingOnInterrupt { open(path, O_RDWR | O_CLOEXEC) }
        guard descriptor >= 0 else { throw JournalError(.io, "cannot open \(path): \(errorText())") }
        var keep = false
        defer { if !keep { closeDescriptor(descriptor) } }
        let bytes = try Self.readWholeFile(descriptor, path: path)

        let headerSize = Self.journalHeaderSize
        let headerValid =
            bytes.count >= headerSize && Array(bytes[0..<headerSize]) == Self.journalHeader(generation: generation)
        if !headerValid {
            // A header that is short, or exactly as long as a header and damaged, is a creation that a crash (or a
            // power loss) interrupted before anything could be appended: start the file afresh.
            if bytes.count <= headerSize {
                logger.warning(
                    "journal: recreating a journal whose creation was interrupted",
                    metadata: ["file": "\(path)", "bytes": "\(bytes.count)"])
                closeDescriptor(descriptor)
                keep = true  // closed here
                journalDescriptor = try createJournal(generation)
                journalBytes = headerSize
                return ([], 0)
            }
            if Array(bytes[0..<8]) == Self.journalMagic && bytes.readLittleEndianUInt32(at: 8) != Self.formatVersion {
                throw JournalError(
                    .incompatible,
                    "\(path) has format version \(bytes.readLittleEndianUInt32(at: 8)); this flowd reads version "
                        + "\(Self.formatVersion)")
            }
            throw JournalError(
                .corrupt, "\(path) does not start with a valid journal header for generation \(generation)")
        }

        var records: [[UInt8]] = []
        var offset = headerSize
        var reason = ""
        bytes.withUnsafeBytes { raw in
            while offset < raw.count {
                guard raw.count - offset >= Self.frameHeaderSize else {
                    reason = "torn frame header"
                    return
                }
                let length = Int(raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self).littleEndian)
                let stored = raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self).littleEndian
                guard length <= Self.maxRecordBytes, raw.count - offset - Self.frameHeaderSize >= length else {
                    reason = "frame length \(length) beyond the end of the file"
                    return
                }
                let start = offset + Self.frameHeaderSize
                let record = UnsafeRawBufferPointer(rebasing: raw[start..<(start + length)])
                var crc = CRC32C()
                crc.update(UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + 4)]))
                crc.update(record)
                guard crc.value == stored else {
                    reason = "CRC mismatch"
                    return
                }
                records.append(Array(record))
                offset = start + length
            }
        }
        let discarded = bytes.count - offset
        if discarded > 0 {
            logger.error(
                "journal: cutting a torn or corrupt tail; the records in it are lost",
                metadata: [
                    "file": "\(path)", "offset": "\(offset)", "discarded_bytes": "\(discarded)",
                    "reason": "\(reason)", "records_kept": "\(records.count)",
                ])
            guard retryingOnInterrupt({ ftruncate(descriptor, off_t(offset)) }) == 0 else {
                throw JournalError(.io, "cannot truncate \(path) to \(offset) bytes: \(errorText())")
            }
            guard retryingOnInterrupt({ fsyncData(descriptor) }) == 0 else {
                throw JournalError(.io, "cannot sync \(path): \(errorText())")
            }
        }
        keep = true
        journalDescriptor = descriptor
        journalBytes = offset
        return (records, discarded)
    }

    /// Reads and checks `snapshot`: its payload, the generation it names and its size.
    private func readSnapshot() throws(JournalError) -> ([UInt8], UInt64, Int) {
        let path = directory + "/snapshot"
        let descriptor = retryingOnInterrupt { open(path, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else { throw JournalError(.io, "cannot open \(path): \(errorText())") }
        defer { closeDescriptor(descriptor) }
        let bytes = try Self.readWholeFile(descriptor, path: path)
        let headerSize = Self.snapshotHeaderSize
        guard bytes.count >= headerSize, Array(bytes[0..<8]) == Self.snapshotMagic else {
            throw JournalError(.corrupt, "\(path) is not a flowd snapshot (\(bytes.count) bytes)")
        }
        let version = bytes.readLittleEndianUInt32(at: 8)
        guard version == Self.formatVersion else {
            throw JournalError(
                .incompatible, "\(path) has format version \(version); this flowd reads version \(Self.formatVersion)")
        }
        guard CRC32C.checksum(bytes[0..<(headerSize - 4)]) == bytes.readLittleEndianUInt32(at: headerSize - 4) else {
            throw JournalError(.corrupt, "\(path): the header's CRC does not match")
        }
        let generation = bytes.readLittleEndianUInt64(at: 12)
        let length = bytes.readLittleEndianUInt64(at: 20)
        guard length == UInt64(bytes.count - headerSize) else {
            throw JournalError(
                .corrupt, "\(path): the header says \(length) payload bytes, the file has \(bytes.count - headerSize)")
        }
        let payload = Array(bytes[headerSize...])
        guard CRC32C.checksum(payload) == bytes.readLittleEndianUInt32(at: 28) else {
            throw JournalError(.corrupt, "\(path): the payload's CRC does not match")
        }
        guard generation >= 1 else { throw JournalError(.corrupt, "\(path): generation 0") }
        return (payload, generation, bytes.count)
    }

    // MARK: - Internals: writing and syncing

    /// Writes the buffer at the end of the journal with one write; on failure cuts the file back and keeps the buffer.
    private func writeBuffer() throws(JournalError) {
        let path = journalPath(generation)
        do throws(JournalError) {
            try writeAll(journalDescriptor, buffer, at: journalBytes, path: path)
        } catch {
            if retryingOnInterrupt({ ftruncate(journalDescriptor, off_t(journalBytes)) }) != 0 {
                failure = JournalError(
                    .unusable, "\(error.message); and cannot cut \(path) back to \(journalBytes) bytes: \(errorText())")
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
        guard retryingOnInterrupt({ fsyncData(journalDescriptor) }) == 0 else {
            // After a failed fdatasync the kernel may have dropped the dirty pages; a later success would lie.
            failure = JournalError(.unusable, "cannot sync \(journalPath(generation)): \(errorText())")
            throw failure!
        }
        syncCount += 1
        lastSync = now
        hasUnsyncedData = false
    }

    private func syncDirectory() throws(JournalError) {
        guard retryingOnInterrupt({ fsync(directoryDescriptor) }) == 0 else {
            throw JournalError(.io, "cannot sync the directory \(directory): \(errorText())")
        }
    }

    private func writeAll(_ descriptor: Int32, _ bytes: [UInt8], at offset: Int, path: String) throws(JournalError) {
        let failed: Int32? = bytes.withUnsafeBytes { raw in
            var written = 0
            while written < raw.count {
                let count = pwrite(descriptor, raw.baseAddress! + written, raw.count - written, off_t(offset + written))
                if count < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                if count == 0 { return EIO }
                written += count
            }
            return nil
        }
        if let failed { throw JournalError(.io, "cannot write \(path): \(errorText(failed))") }
    }

    private func requireUsable() throws(JournalError) {
        if let failure { throw failure }
        guard journalDescriptor >= 0 else {
            throw JournalError(.notOpen, lockDescriptor < 0 ? "the journal store is closed" : "load() has not run")
        }
    }

    private func closeJournal() {
        if journalDescriptor >= 0 {
            closeDescriptor(journalDescriptor)
            journalDescriptor = -1
        }
    }

    private func unlinkLogging(_ path: String) {
        if unlink(path) != 0 && errno != ENOENT {
            logger.warning("journal: cannot delete a file", metadata: ["file": "\(path)", "error": "\(errorText())"])
        }
    }

    private func crash(at point: SnapshotCrashPoint) throws(JournalError) {
        guard simulatedCrash == point else { return }
        failure = JournalError(.unusable, "simulated crash at \(point)")
        throw failure!
    }

    // MARK: - Internals: the directory

    private func listDirectory() throws(JournalError) -> Set<String> {
        guard let stream = opendir(directory) else {
            throw JournalError(.io, "cannot list \(directory): \(errorText())")
        }
        defer { closedir(stream) }
        var names: Set<String> = []
        while let entry = readdir(stream) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: entry.pointee.d_name)) {
                    String(cString: $0)
                }
            }
            names.insert(name)
        }
        return names
    }

    /// `mkdir -p`: missing parents with mode 0755, the directory itself with 0700; syncs the parent of what it made.
    private static func makeDirectory(_ path: String) throws(JournalError) {
        var status = stat()
        if stat(path, &status) == 0 {
            guard (status.st_mode & S_IFMT) == S_IFDIR else {
                throw JournalError(.io, "the state directory \(path) exists and is not a directory")
            }
            return
        }
        let parent: String
        if let slash = path.lastIndex(of: "/") {
            parent = slash == path.startIndex ? "/" : String(path[..<slash])
        } else {
            parent = "."
        }
        if parent != path && stat(parent, &status) != 0 {
            try makeParent(parent)
        }
        guard mkdir(path, 0o700) == 0 || errno == EEXIST else {
            throw JournalError(.io, "cannot create the state directory \(path): \(errorText())")
        }
        let parentDescriptor = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if parentDescriptor >= 0 {
            _ = fsync(parentDescriptor)
            closeDescriptor(parentDescriptor)
        }
    }

    private static func makeParent(_ path: String) throws(JournalError) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            var status = stat()
            if stat(prefix, &status) == 0 { continue }
            guard mkdir(prefix, 0o755) == 0 || errno == EEXIST else {
                throw JournalError(.io, "cannot create \(prefix): \(errorText())")
            }
        }
    }

    private static func readWholeFile(_ descriptor: Int32, path: String) throws(JournalError) -> [UInt8] {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw JournalError(.io, "cannot stat \(path): \(errorText())") }
        let size = Int(status.st_size)
        var failure: Int32?
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { raw, initialized in
            var done = 0
            while done < size {
                let count = pread(descriptor, raw.baseAddress! + done, size - done, off_t(done))
                if count < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    break
                }
                if count == 0 { break }  // shrank meanwhile: what was read
                done += count
            }
            initialized = done
        }
        if let failure { throw JournalError(.io, "cannot read \(path): \(errorText(failure))") }
        return bytes
    }

    private static func readSmallFile(_ descriptor: Int32) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: 32)
        let count = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        return Array(bytes[0..<count].filter { $0 != UInt8(ascii: "\n") })
    }
}

@available(*, unavailable, message: "owned by the daemon's I/O thread: its buffer and offsets are unsynchronized state")
extension JournalStore: Sendable {}

/// Points where a test makes ``JournalStore/writeSnapshot(_:)`` stop as a SIGKILL would, leaving the files as they
/// are at that moment.
enum SnapshotCrashPoint: String, Sendable, CaseIterable, CustomStringConvertible {
    /// `snapshot.tmp` half written, not synced.
    case temporaryTorn
    /// `snapshot.tmp` complete and synced, not renamed.
    case temporaryWritten
    /// Renamed over `snapshot`; the new journal not created.
    case renamed
    /// The new journal created with half its header.
    case journalTorn
    /// The new journal complete; the old one not deleted.
    case journalCreated

    var description: String { rawValue }
}

// MARK: - CRC-32C

/// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), table-driven: eight bytes per step ("slicing-by-8").
struct CRC32C {
    private(set) var state: UInt32 = 0xFFFF_FFFF

    var value: UInt32 { state ^ 0xFFFF_FFFF }

    /// Eight tables of 256 entries, one after the other: table 0 is the classic byte-at-a-time table; table k
    /// advances a byte's contribution past k more zero bytes.
    static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for index in 0..<256 {
            var crc = UInt32(index)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
            tables[index] = crc
        }
        for table in 1..<8 {
            for index in 0..<256 {
                let previous = tables[(table - 1) * 256 + index]
                tables[table * 256 + index] = (previous >> 8) ^ tables[Int(previous & 0xFF)]
            }
        }
        return tables
    }()

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard var pointer = bytes.baseAddress else { return }
        var remaining = bytes.count
        var crc = state
        Self.tables.withUnsafeBufferPointer { tables in
            let t = tables.baseAddress!
            while remaining >= 8 {
                let low = pointer.loadUnaligned(as: UInt32.self).littleEndian ^ crc
                let high = pointer.loadUnaligned(fromByteOffset: 4, as: UInt32.self).littleEndian
                crc = t[7 * 256 + Int(low & 0xFF)] ^ t[6 * 256 + Int((low >> 8) & 0xFF)]
                    ^ t[5 * 256 + Int((low >> 16) & 0xFF)] ^ t[4 * 256 + Int(low >> 24)]
                    ^ t[3 * 256 + Int(high & 0xFF)] ^ t[2 * 256 + Int((high >> 8) & 0xFF)]
                    ^ t[1 * 256 + Int((high >> 16) & 0xFF)] ^ t[Int(high >> 24)]
                pointer += 8
                remaining -= 8
            }
            while remaining > 0 {
                crc = t[Int((crc ^ UInt32(pointer.load(as: UInt8.self))) & 0xFF)] ^ (crc >> 8)
                pointer += 1
                remaining -= 1
            }
        }
        state = crc
    }

    mutating func update(littleEndian value: UInt32) {
        withUnsafeBytes(of: value.littleEndian) { update($0) }
    }

    static func checksum(_ bytes: some Collection<UInt8>) -> UInt32 {
        var crc = CRC32C()
        if bytes.withContiguousStorageIfAvailable({ crc.update(UnsafeRawBufferPointer($0)) }) == nil {
            Array(bytes).withUnsafeBytes { crc.update($0) }
        }
        return crc.value
    }
}

// MARK: - Helpers

extension [UInt8] {
    fileprivate mutating func appendLittleEndian(_ value: UInt32) {
        append(UInt8(truncatingIfNeeded: value))
        append(UInt8(truncatingIfNeeded: value >> 8))
        append(UInt8(truncatingIfNeeded: value >> 16))
        append(UInt8(truncatingIfNeeded: value >> 24))
    }

    fileprivate mutating func appendLittleEndian(_ value: UInt64) {
        appendLittleEndian(UInt32(truncatingIfNeeded: value))
        appendLittleEndian(UInt32(truncatingIfNeeded: value >> 32))
    }

    fileprivate func readLittleEndianUInt32(at offset: Int) -> UInt32 {
        withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self).littleEndian }
    }

    fileprivate func readLittleEndianUInt64(at offset: Int) -> UInt64 {
        withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt64.self).littleEndian }
    }
}

private func closeDescriptor(_ descriptor: Int32) {
    _ = close(descriptor)
}

private func fsyncData(_ descriptor: Int32) -> Int32 {
    #if canImport(Darwin)
    fsync(descriptor)
    #else
    fdatasync(descriptor)
    #endif
}

private func retryingOnInterrupt(_ call: () -> Int32) -> Int32 {
    while true {
        let result = call()
        if result == -1 && errno == EINTR { continue }
        return result
    }
}

private func errorText(_ code: Int32 = errno) -> String {
    "\(String(cString: strerror(code))) (errno \(code))"
}
