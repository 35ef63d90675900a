#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FlowCore
@testable import FlowDaemon
import FlowWire
import Foundation
import Logging
import Prometheus
import TestFlows
import Testing

/// A compaction's writes and syncs run on the ``SnapshotWriter`` while appends go on in the next journal: every step
/// a crash or a power loss can interrupt leaves files that load to one consistent state, and the journals written by
/// an older flowd (format version 1) still load.
@Suite(.timeLimit(.minutes(1)))
struct JournalCompactionTests {
    private static let quiet = Logger(label: "JournalCompactionTests", factory: { _ in SwiftLogNoOpLogHandler() })

    /// Holds the writer at one step until the test lets it go.
    private final class Hold: Sendable {
        let point: SnapshotCrashPoint
        private let entered = DispatchSemaphore(value: 0)
        private let released = DispatchSemaphore(value: 0)

        init(at point: SnapshotCrashPoint) { self.point = point }

        /// Runs on the writer's thread at each step.
        func pass(_ step: SnapshotCrashPoint) {
            guard step == point else { return }
            entered.signal()
            released.wait()
        }

        func waitUntilHeld() { entered.wait() }
        func release() { released.signal() }
    }

    private static func withDirectory(_ body: (String) throws -> Void) throws {
        var template = Array("/tmp/flowd-compaction-test-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw POSIXError(.EIO) }
        let root = String(cString: made)
        defer { try? FileManager.default.removeItem(atPath: root) }
        try body(root)
    }

    private static func store(
        _ directory: String, fsync: FsyncPolicy = .never, writer: SnapshotWriter? = nil
    ) throws -> JournalStore {
        try JournalStore(
            configuration: JournalConfiguration(directory: directory, fsync: fsync), logger: quiet, syncer: nil,
            writer: writer)
    }

    private static func record(_ text: String) -> [UInt8] { Array(text.utf8) }

    private static func files(_ directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0 != "lock" }.sorted()
    }

    /// The files of `directory` as they are now, copied to `copy`: what a SIGKILL at this moment leaves.
    private static func copyFiles(of directory: String, to copy: String) throws {
        try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: false)
        for name in try files(directory) {
            try FileManager.default.copyItem(atPath: "\(directory)/\(name)", toPath: "\(copy)/\(name)")
        }
    }

    private static func load(_ directory: String) throws -> (JournalContents, UInt64) {
        let store = try store(directory)
        defer { store.close() }
        let contents = try store.load()
        return (contents, store.generation)
    }

    private static func fileSize(_ path: String) -> Int {
        var status = stat()
        return stat(path, &status) == 0 ? Int(status.st_size) : -1
    }

    // MARK: - Crashes while the writer runs

    /// A SIGKILL at each step of the writer, with records appended to the next journal meanwhile: the files load to
    /// the old snapshot with both journals' records, or to the new snapshot with the next journal's; and the store
    /// that went on keeps everything.
    @Test(arguments: [SnapshotCrashPoint.switched, .temporaryTorn, .temporaryWritten, .renamed, .replacedJournalsLeft])
    func aCrashAtEachWriterStepWithAppendsInTheNextJournalLoadsOneState(point: SnapshotCrashPoint) throws {
        try Self.withDirectory { root in
            let hold = Hold(at: point)
            let writer = SnapshotWriter(pause: { hold.pass($0) })
            let store = try Self.store(root + "/state", writer: writer)
            _ = try store.load()
            store.append(Self.record("r1"))
            store.append(Self.record("r2"))
            try store.commit(now: 0)

            try store.startSnapshot(Self.record("state"))
            hold.waitUntilHeld()
            #expect(store.generation == 2)
            #expect(store.isCompacting)
            #expect(!store.needsCompaction, "one compaction at a time")
            #expect(
                (#expect(throws: JournalError.self) { try store.startSnapshot([]) })?.code == .compacting)
            #expect(try store.finishSnapshot() == nil, "still running")
            // Appends go on while the writer is held: nothing on this thread waits for the snapshot.
            store.append(Self.record("r3"))
            store.append(Self.record("r4"))
            try store.commit(now: 1)
            try Self.copyFiles(of: root + "/state", to: root + "/killed")
            hold.release()
            writer.waitUntilIdle()
            #expect(try store.finishSnapshot() != nil)
            #expect(!store.isCompacting)
            store.append(Self.record("r5"))
            store.close()

            let tookEffect = point == .renamed || point == .replacedJournalsLeft
            let (killed, generation) = try Self.load(root + "/killed")
            if tookEffect {
                #expect(killed.snapshot == Self.record("state"))
                #expect(killed.records == [Self.record("r3"), Self.record("r4")])
                #expect(try Self.files(root + "/killed") == ["journal-2", "snapshot"])
            } else {
                #expect(killed.snapshot == nil)
                #expect(killed.records == ["r1", "r2", "r3", "r4"].map(Self.record))
                #expect(killed.journalPaths == [root + "/killed/journal-1", root + "/killed/journal-2"])
                #expect(try Self.files(root + "/killed") == ["journal-1", "journal-2"])
            }
            #expect(generation == 2)
            #expect(killed.discardedBytes == 0)

            let (survived, _) = try Self.load(root + "/state")
            #expect(survived.snapshot == Self.record("state"))
            #expect(survived.records == ["r3", "r4", "r5"].map(Self.record))
            #expect(try Self.files(root + "/state") == ["journal-2", "snapshot"])
        }
    }

    /// After a crash left two journals, appends go to the later one, the next compaction replaces both, and a crash
    /// in that one leaves three that load in order.
    @Test func journalsLeftByCrashesAreReadInOrderUntilASnapshotReplacesThem() throws {
        try Self.withDirectory { root in
            let directory = root + "/state"
            let first = try Self.store(directory)
            _ = try first.load()
            first.append(Self.record("a"))
            try first.commit(now: 0)
            first.simulatedCrash = .temporaryWritten
            #expect((#expect(throws: JournalError.self) { try first.writeSnapshot(Self.record("lost")) })?.code == .unusable)
            first.close()

            let second = try Self.store(directory)
            #expect(try second.load().records == [Self.record("a")])
            #expect(second.generation == 2)
            second.append(Self.record("b"))
            try second.commit(now: 0)
            #expect(second.needsCompaction == (second.journalBytes + Self.fileSize(directory + "/journal-1") > 8 << 20))
            second.simulatedCrash = .temporaryTorn
            _ = #expect(throws: JournalError.self) { try second.writeSnapshot(Self.record("lost too")) }
            second.close()
            #expect(try Self.files(directory) == ["journal-1", "journal-2", "journal-3", "snapshot.tmp"])

            let third = try Self.store(directory)
            let contents = try third.load()
            #expect(contents.records == [Self.record("a"), Self.record("b")])
            #expect(contents.journalFirstRecords == [0, 1, 2])
            #expect(contents.journal(ofRecord: 1) == 1)
            third.append(Self.record("c"))
            try third.writeSnapshot(Self.record("a+b+c"))
            third.append(Self.record("d"))
            third.close()
            #expect(try Self.files(directory) == ["journal-4", "snapshot"])
            let (last, generation) = try Self.load(directory)
            #expect(last.snapshot == Self.record("a+b+c"))
            #expect(last.records == [Self.record("d")])
            #expect(generation == 4)
        }
    }

    // MARK: - The daemon's requests during a compaction

    /// With the writer held before it writes the snapshot, the daemon's state changes are still answered and
    /// journaled (in the next journal); the outcome lands afterwards, and a restart from the files has them all.
    @Test func requestsAreAnsweredAndJournaledWhileTheWriterIsHeld() throws {
        try Self.withDirectory { root in
            let ops = PeerAddress([3])
            let hold = Hold(at: .temporaryTorn)
            let writer = SnapshotWriter(pause: { hold.pass($0) })
            let store = try Self.store(root + "/state", writer: writer)
            _ = try store.load()
            var core = DaemonCore(
                application: TestApplication(), daemonID: "d", logger: Self.quiet, now: 0, journaling: true)
            var committer = JournalCommitter(store: store, logger: Self.quiet)
            _ = try committer.commit(core.takeJournal(), outputs: core.start(now: 0), core: &core, now: 0)
            func send(_ message: ClientMessage) throws -> [DaemonMessage] {
                let outputs = core.handle(.message(from: ops, frames: WireCodec().encode(message)), now: 0)
                return try committer.commit(core.takeJournal(), outputs: outputs, core: &core, now: 0).compactMap {
                    if case .send(_, let message) = $0 { message } else { nil }
                }
            }
            _ = try send(.hello(Hello(req: 1, role: .operator, name: "ops", instance: "i", heartbeatMs: 1000)))
            _ = try send(.createSession(SessionRequest(req: 2, session: "before")))

            core.compactJournal()
            try store.startSnapshot(core.journalSnapshotPayload)
            hold.waitUntilHeld()
            let journalBytes = store.journalBytes
            #expect(
                try send(.createSession(SessionRequest(req: 3, session: "during")))
                    == [.ok(OKReply(req: 3, result: ["created": true]))])
            #expect(store.journalBytes > journalBytes, "journaled in the next journal")
            #expect(try store.finishSnapshot() == nil, "the snapshot is not written yet")
            hold.release()
            writer.waitUntilIdle()
            #expect(try store.finishSnapshot() != nil)
            _ = try send(.createSession(SessionRequest(req: 4, session: "after")))
            store.close()

            let reopened = try Self.store(root + "/state")
            defer { reopened.close() }
            let contents = try reopened.load(splittingSnapshot: true)  // as the daemon reads it at a restart
            let snapshot = contents.snapshotRecords
            try #require(!snapshot.isEmpty)
            var recovered = DaemonCore(
                application: TestApplication(), daemonID: "d2", logger: Self.quiet, now: 0, journaling: true)
            _ = try recovered.recover(from: snapshot + contents.records)
            #expect(recovered.sessionIDs == ["after", "before", "default", "during"])
        }
    }

    @Test func metricsCountCompactionsAndTheLongestStall() throws {
        try Self.withDirectory { root in
            let registry = PrometheusCollectorRegistry()
            var metrics = JournalMetrics(factory: PrometheusMetricsFactory(registry: registry))
            let store = try Self.store(root + "/state", writer: SnapshotWriter())
            defer { store.close() }
            _ = try store.load()
            metrics.record(store)
            try store.writeSnapshot(Self.record("one"))
            store.longestCompactionStall = .milliseconds(250)
            try store.writeSnapshot(Self.record("two"))
            metrics.record(store)
            let text = registry.emitToString()
            #expect(text.contains("\(MetricName.compactions) 2\n"), "\(text)")
            #expect(text.contains("\(MetricName.compactionStallMax) 0.25\n"), "\(text)")
        }
    }

    // MARK: - Power loss

    /// A power loss took the old journal's unsynced tail while pages of the next one reached the disk: the next
    /// journal would follow a gap, so it is dropped as a torn tail, counted, and appends go on in the old one.
    @Test(arguments: [false, true])  // cut on a frame boundary, or in the middle of a frame
    func anOldJournalShorterThanTheNextOneSaysDropsTheNextOne(midFrame: Bool) throws {
        try Self.withDirectory { root in
            let directory = root + "/state"
            let hold = Hold(at: .switched)
            let writer = SnapshotWriter(pause: { hold.pass($0) })
            let store = try Self.store(directory, writer: writer)
            _ = try store.load()
            for name in ["r1", "r2", "r3"] { store.append(Self.record(name)) }  // frames of 10 bytes
            try store.commit(now: 0)
            try store.startSnapshot(Self.record("state"))
            hold.waitUntilHeld()
            store.append(Self.record("n1"))
            try store.commit(now: 1)
            try Self.copyFiles(of: directory, to: root + "/lost")
            hold.release()
            store.close()

            let oldJournal = root + "/lost/journal-1"
            let cut = Self.fileSize(oldJournal) - (midFrame ? 4 : 10)
            #expect(truncate(oldJournal, off_t(cut)) == 0)
            let nextBytes = Self.fileSize(root + "/lost/journal-2")

            let reopened = try Self.store(root + "/lost")
            let contents = try reopened.load()
            #expect(contents.records == [Self.record("r1"), Self.record("r2")])
            #expect(contents.discardedBytes == nextBytes + (midFrame ? 6 : 0))
            #expect(contents.damage == nil)
            #expect(reopened.generation == 1)
            #expect(try Self.files(root + "/lost") == ["journal-1"])
            reopened.append(Self.record("after"))
            try reopened.commit(now: 0)
            reopened.close()
            let (again, _) = try Self.load(root + "/lost")
            #expect(again.records == [Self.record("r1"), Self.record("r2"), Self.record("after")])
        }
    }

    /// The next journal's header half written (the switch interrupted): it held no record and is dropped uncounted.
    @Test func anInterruptedSwitchLeavesTheOldJournalLive() throws {
        try Self.withDirectory { root in
            let directory = root + "/state"
            let store = try Self.store(directory)
            _ = try store.load()
            store.append(Self.record("r1"))
            try store.commit(now: 0)
            store.simulatedCrash = .journalTorn
            #expect((#expect(throws: JournalError.self) { try store.startSnapshot([]) })?.code == .unusable)
            store.close()
            #expect(try Self.files(directory) == ["journal-1", "journal-2"])
            let (contents, generation) = try Self.load(directory)
            #expect(contents.records == [Self.record("r1")])
            #expect(contents.discardedBytes == 0)
            #expect(generation == 1)
            #expect(try Self.files(directory) == ["journal-1"])
        }
    }

    @Test func aJournalLongerThanTheNextOneSaysOrAVersion1JournalAfterAnotherIsRefused() throws {
        try Self.withDirectory { root in
            let directory = root + "/state"
            let store = try Self.store(directory)
            _ = try store.load()
            store.append(Self.record("r1"))
            try store.commit(now: 0)
            store.simulatedCrash = .temporaryWritten
            _ = #expect(throws: JournalError.self) { try store.writeSnapshot([]) }
            store.close()
            let journal1 = directory + "/journal-1"
            let good = try Data(contentsOf: URL(fileURLWithPath: journal1))
            var longer = good
            JournalFormat.appendFrame(Self.record("extra"), to: &longer.bytes)
            try longer.write(to: URL(fileURLWithPath: journal1))
            let reopened = try Self.store(directory)
            defer { reopened.close() }
            #expect((#expect(throws: JournalError.self) { try reopened.load() })?.code == .corrupt)
            try good.write(to: URL(fileURLWithPath: journal1))

            let journal2 = directory + "/journal-2"
            try Data(JournalFormat.journalHeaderV1(generation: 2)).write(to: URL(fileURLWithPath: journal2))
            #expect((#expect(throws: JournalError.self) { try reopened.load() })?.code == .corrupt)
            #expect(try Self.files(directory) == ["journal-1", "journal-2", "snapshot.tmp"], "nothing changed")
        }
    }

    // MARK: - Format version 1

    /// Golden bytes of what flowd wrote before journal format version 2: a snapshot of generation 2 and its
    /// `journal-2` with a 24-byte header and one frame ("v1").
    private static let version1Snapshot: [UInt8] =
        Array("FLOWDSNP".utf8) + [1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0]
        + [0xDF, 0x68, 0xDB, 0x66, 0x95, 0xC2, 0xC8, 0xF6] + Array("state".utf8)
    private static let version1Journal: [UInt8] =
        Array("FLOWDJNL".utf8) + [1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0x8E, 0xE6, 0x78, 0x5D]
        + [2, 0, 0, 0, 0x4E, 0x93, 0xB8, 0x98] + Array("v1".utf8)

    @Test func aStateDirectoryOfFormatVersion1LoadsAndGoesOn() throws {
        #expect(Array(Self.version1Journal.prefix(24)) == JournalFormat.journalHeaderV1(generation: 2))
        #expect(Array(Self.version1Snapshot.prefix(36)) == JournalFormat.snapshotHeader(
            generation: 2, payload: Self.record("state")))
        var frame: [UInt8] = []
        JournalFormat.appendFrame(Self.record("v1"), to: &frame)
        #expect(Array(Self.version1Journal.dropFirst(24)) == frame)
        try Self.withDirectory { root in
            let directory = root + "/state"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
            try Data(Self.version1Snapshot).write(to: URL(fileURLWithPath: directory + "/snapshot"))
            try Data(Self.version1Journal).write(to: URL(fileURLWithPath: directory + "/journal-2"))

            let store = try Self.store(directory)
            let contents = try store.load()
            #expect(contents.snapshot == Self.record("state"))
            #expect(contents.records == [Self.record("v1")])
            #expect(store.journalBytes == Self.version1Journal.count)
            store.append(Self.record("v2"))
            try store.commit(now: 0)
            store.close()
            let (again, _) = try Self.load(directory)
            #expect(again.records == [Self.record("v1"), Self.record("v2")])

            let compacting = try Self.store(directory)
            _ = try compacting.load()
            try compacting.writeSnapshot(Self.record("state 2"))
            compacting.close()
            let header = try [UInt8](Data(contentsOf: URL(fileURLWithPath: directory + "/journal-3")))
            #expect(header == JournalFormat.journalHeader(generation: 3, previousLength: Self.version1Journal.count + 10))
            #expect(header.count == JournalFormat.journalHeaderSize)
        }
    }
}

extension Data {
    fileprivate var bytes: [UInt8] {
        get { [UInt8](self) }
        set { self = Data(newValue) }
    }
}
