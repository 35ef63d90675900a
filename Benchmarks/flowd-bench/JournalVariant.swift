#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FlowCore
import FlowDaemon
import Foundation
import Logging

/// How a flowd run journals its state: the fsync policy of its ``JournalConfiguration`` and where the state directory
/// goes (a fresh directory per run, removed after the run's recovery was timed).
struct JournalSettings: Codable, Sendable, Hashable {
    /// The fsync policies to run flowd with (`never`, `interval`, `always`), each a variant of its own.
    var policies: [String]
    /// The interval of `interval`, in milliseconds.
    var intervalMilliseconds: Int
    /// ``JournalConfiguration/compactBytes`` of the daemon.
    var compactBytes: Int
    /// Where the state directories are made.
    var parent: String
    /// The file system `parent` is on, for the report.
    var fileSystem: String
    /// Whether the state directories stay (their paths are printed) instead of being removed.
    var keep = false
}

/// What a journaled run wrote and what reading it back cost.
struct JournalResult: Codable, Sendable {
    /// `never`, `interval` or `always`.
    var policy: String
    /// Steps the stepper sent in the whole run (warm-up, samples, throughput phase and its end marker).
    var stepsSent: Int
    /// The state directory's snapshot and live journal at the end, in bytes (headers and frames included).
    var snapshotBytes: Int
    var journalBytes: Int
    /// Bytes the daemon had the kernel write to storage during the throughput phase (`write_bytes` of
    /// `/proc/<pid>/io`: the journal's appends and any compaction's snapshot), per step sent in it.
    var diskBytesPerThroughputStep: Double
    /// `fdatasync`s of the journal over the daemon's life (`flowd_journal_syncs_total`); -1 when not reported.
    var syncs: Int
    /// Reading the state back, as flowd does at start.
    var recovery: RecoveryResult

    /// Snapshot and journal bytes per step sent.
    var stateBytesPerStep: Double {
        stepsSent > 0 ? Double(snapshotBytes + journalBytes) / Double(stepsSent) : 0
    }
}

/// What the `recover` child measured: flowd's start-up path on a state directory, timed in two parts.
struct RecoveryResult: Codable, Sendable {
    /// `JournalStore.load()` plus splitting the snapshot into records: reading the files and checking every CRC.
    var loadSeconds: Double
    /// `DaemonCore.recover(from:)`: decoding every record (``JournalRecordCodec``) and replaying it into the sessions.
    var replaySeconds: Double
    var records: Int
    var sessions: Int
    /// The generation of the live journal: compactions the daemon did, plus one.
    var generation: Int
    /// Bytes of the records themselves (no frame headers).
    var recordBytes: Int
    /// CPU time of load and replay (this process, all threads): on a loaded machine, the figure that does not wait.
    /// flowd serves (READY) after these.
    var cpuSeconds: Double?
    /// Sessions recovery kept pending (only created, or saved as data with nothing after): made after READY, a slice
    /// per turn of the I/O loop.
    var pendingSessions: Int?
    /// Making every pending session after READY, as the I/O loop does in slices (wall clock and CPU time).
    var makeSeconds: Double?
    var makeCPUSeconds: Double?
    /// Resident memory at READY and once every pending session is made (`VmRSS`).
    var readyResidentBytes: Int?
    var madeResidentBytes: Int?
    /// Minor page faults (fresh pages touched) up to READY, and while making the pending sessions.
    var readyMinorFaults: Int?
    var makeMinorFaults: Int?

    var totalSeconds: Double { loadSeconds + replaySeconds }
    var recordsPerSecond: Double { totalSeconds > 0 ? Double(records) / totalSeconds : 0 }
}

/// The `recover` child: opens the state directory as flowd does at start (``JournalStore`` load, snapshot records,
/// ``DaemonCore/recover(from:)`` into a core running `application`, ``BenchApplication`` by default) and times it.
/// Nothing is written back: the store is closed without a commit.
func runRecovery(stateDirectory: String, application: any FlowApplication = BenchApplication()) throws {
    let logger = Logger(label: "flowd-bench.recover", factory: { _ in SwiftLogNoOpLogHandler() })
    let started = monotonicNanoseconds()
    let startedCPU = processCPUNanoseconds()
    let startedFaults = minorFaults()
    let store = try JournalStore(
        configuration: JournalConfiguration(directory: stateDirectory, fsync: .never), logger: logger
    )
    defer { store.close() }
    let contents = try store.load(splittingSnapshot: true)
    let records = contents.snapshotRecords + contents.records
    let loaded = monotonicNanoseconds()
    var core = DaemonCore(
        application: application, daemonID: "bench-recovery", logger: logger, now: 0, journaling: true
    )
    let report = try core.recover(from: records)
    _ = core.start(now: 0)
    let replayed = monotonicNanoseconds()
    let readyCPU = processCPUNanoseconds()
    let readyResident = residentBytes(pid: getpid())
    let readyFaults = minorFaults()
    // What flowd's I/O loop does after READY, a slice per turn, until no session is pending.
    while core.pendingSessionCount > 0 { _ = core.makePendingSessions(limit: DaemonCore.pendingSessionsMadePerTurn, now: 0) }
    let made = monotonicNanoseconds()
    let result = RecoveryResult(
        loadSeconds: Double(loaded - started) / 1e9, replaySeconds: Double(replayed - loaded) / 1e9,
        records: report.records, sessions: report.sessions, generation: Int(store.generation),
        recordBytes: records.reduce(0) { $0 + $1.count },
        cpuSeconds: Double(readyCPU - startedCPU) / 1e9, pendingSessions: report.pendingSessions,
        makeSeconds: Double(made - replayed) / 1e9, makeCPUSeconds: Double(processCPUNanoseconds() - readyCPU) / 1e9,
        readyResidentBytes: readyResident, madeResidentBytes: residentBytes(pid: getpid()),
        readyMinorFaults: readyFaults - startedFaults, makeMinorFaults: minorFaults() - readyFaults
    )
    // Freeing the recovered sessions is not part of a restart: not before the times are taken.
    withExtendedLifetime(core) {}
    emit("RESULT " + (try encodeJSON(result)))
}

/// CPU time this process used so far (`CLOCK_PROCESS_CPUTIME_ID`).
func processCPUNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

/// Minor page faults of this process so far (`getrusage`): pages touched for the first time.
func minorFaults() -> Int {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return usage.ru_minflt
}

/// A field of `/proc/<pid>/io` (`write_bytes`, …), 0 when unreadable.
func procIO(pid: Int32, field: String) -> Int {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/io", encoding: .utf8) else { return 0 }
    for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
        return Int(line.dropFirst(field.count + 1).trimmingCharacters(in: .whitespaces)) ?? 0
    }
    return 0
}

/// `VmRSS` of a process in bytes, 0 when unreadable.
func residentBytes(pid: Int32) -> Int {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return 0 }
    for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        let kilobytes = line.dropFirst(6).filter { $0.isNumber }
        return (Int(String(kilobytes)) ?? 0) * 1024
    }
    return 0
}

/// The size of a file, 0 when missing.
func fileSize(_ path: String) -> Int {
    var info = stat()
    return stat(path, &info) == 0 ? Int(info.st_size) : 0
}

/// The type of the file system `path` is on (`ext4`, `overlay`, `tmpfs`, …) and its source, from the mount whose
/// mount point is the longest prefix of `path` in `/proc/self/mounts`.
func fileSystemName(_ path: String) -> String {
    guard let mounts = try? String(contentsOfFile: "/proc/self/mounts", encoding: .utf8) else { return "unknown" }
    let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    var best: (point: String, text: String)?
    for line in mounts.split(separator: "\n") {
        let fields = line.split(separator: " ")
        guard fields.count >= 3 else { continue }
        let point = String(fields[1])
        let inside = point == "/" || resolved == point || resolved.hasPrefix(point + "/")
        if inside, point.count >= (best?.point.count ?? -1) {
            best = (point, "\(fields[2]) (\(fields[0]) on \(point))")
        }
    }
    return best?.text ?? "unknown"
}

/// A fresh state directory under `parent` (made by `mkdtemp`, mode 0700).
func makeStateDirectory(parent: String) throws -> String {
    var template = Array((parent + "/flowd-bench-state-XXXXXX").utf8CString)
    guard let pointer = mkdtemp(&template) else { throw BenchError("mkdtemp under \(parent) failed") }
    return String(cString: pointer)
}
