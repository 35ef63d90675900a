#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
@testable import FlowDaemon
import Logging
import Testing

private let quiet = Logger(label: "JournalStoreTests", factory: { _ in SwiftLogNoOpLogHandler() })

/// Runs `body` with the path of a state directory that does not exist yet, inside a fresh directory under /tmp that is
/// removed afterwards.
private func withStateDirectory(_ body: (String) throws -> Void) throws {
    var template = Array("/tmp/flowd-journal-test-XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else { throw POSIXError(.EIO) }
    let root = String(cString: made)
    defer { try? FileManager.default.removeItem(atPath: root) }
    try body(root + "/state")
}

private func open(_ directory: String, fsync: FsyncPolicy = .never) throws -> JournalStore {
    try JournalStore(configuration: JournalConfiguration(directory: directory, fsync: fsync), logger: quiet)
}

private func record(_ text: String) -> [UInt8] { Array(text.utf8) }

/// Closes `store`, opens the directory afresh and loads it (closing that store too).
private func reload(_ store: JournalStore, _ directory: String) throws -> JournalContents {
    store.close()
    let again = try open(directory)
    defer { again.close() }
    return try again.load()
}

private func files(_ directory: String) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0 != "lock" }.sorted()
}

private func fileBytes(_ path: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
}

private func writeFile(_ path: String, _ bytes: [UInt8]) throws {
    try Data(bytes).write(to: URL(fileURLWithPath: path))
}

private func fileSize(_ path: String) -> Int {
    var status = stat()
    return stat(path, &status) == 0 ? Int(status.st_size) : -1
}

/// What can follow the good frames of a journal after a crash or a power loss.
enum GarbageTail: String, CaseIterable, Sendable {
    /// Zeros: a power loss on a file whose size was updated before its data.
    case zeros
    /// A frame header whose length goes beyond the end of the file.
    case lengthBeyondTheEnd
    /// A whole frame with a wrong CRC.
    case wrongCRC
    /// Fewer bytes than a frame header.
    case partialFrameHeader

    var bytes: [UInt8] {
        switch self {
        case .zeros: [UInt8](repeating: 0, count: 4096)
        case .lengthBeyondTheEnd: [0x10, 0, 0, 0, 0xAA, 0xBB]
        case .wrongCRC: [3, 0, 0, 0, 1, 2, 3, 4, 9, 9, 9]
        case .partialFrameHeader: [1, 2, 3]
        }
    }
}

@Suite("JournalStore")
struct JournalStoreTests {
    // MARK: - Round trips

    @Test func emptyDirectoryIsCreatedPrivateAndLoadsEmpty() throws {
        try withStateDirectory { directory in
            let store = try open(directory)
            defer { store.close() }
            var status = stat()
            #expect(stat(directory, &status) == 0)
            #expect(status.st_mode & 0o777 == 0o700)
            let contents = try store.load()
            #expect(contents.snapshot == nil)
            #expect(contents.records.isEmpty)
            #expect(contents.discardedBytes == 0)
            #expect(try files(directory) == ["journal-1"])
            #expect(store.journalBytes == fileSize(directory + "/journal-1"))
            #expect(store.snapshotBytes == 0)
        }
    }

    @Test func roundTripAcrossCloseAndReopen() throws {
        try withStateDirectory { directory in
            let large = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            let written = [record("first"), [], large, record("last")]
            let store = try open(directory)
            _ = try store.load()
            for item in written { store.append(item) }
            #expect(store.hasPendingRecords)
            try store.commit(now: 0)
            #expect(!store.hasPendingRecords)
            #expect(store.journalBytes == fileSize(directory + "/journal-1"))

            let contents = try reload(store, directory)
            #expect(contents.records == written)
            #expect(contents.snapshot == nil)
            #expect(contents.discardedBytes == 0)
        }
    }

    @Test func reopenedStoreAppendsAfterWhatIsThereAndCloseWritesTheBuffer() throws {
        try withStateDirectory { directory in
            let first = try open(directory)
            _ = try first.load()
            first.append(record("a"))
            try first.commit(now: 0)
            first.close()

            let second = try open(directory)
            #expect(try second.load().records == [record("a")])
            second.append(record("dropped"))  // load() again reads afresh and drops what is buffered
            #expect(try second.load().records == [record("a")])
            second.append(record("b"))
            try second.commit(now: 0)
            second.append(record("c"))  // not committed: close writes it
            #expect(try reload(second, directory).records == [record("a"), record("b"), record("c")])
        }
    }

    @Test func useBeforeLoadOrAfterCloseIsRefused() throws {
        try withStateDirectory { directory in
            let store = try open(directory)
            store.append(record("x"))
            #expect((#expect(throws: JournalError.self) { try store.commit(now: 0) })?.code == .notOpen)
            #expect((#expect(throws: JournalError.self) { try store.writeSnapshot([]) })?.code == .notOpen)
            _ = try store.load()
            store.close()
            store.close()  // idempotent
            #expect((#expect(throws: JournalError.self) { try store.commit(now: 0) })?.code == .notOpen)
            #expect((#expect(throws: JournalError.self) { try store.load() })?.code == .notOpen)
        }
    }

    // MARK: - Damage

    @Test func tornTailIsCutAndLaterAppendsAreReadable() throws {
        try withStateDirectory { directory in
            let store = try open(directory)
            _ = try store.load()
            for item in ["one", "two", "three-three-three"] { store.append(record(item)) }
            try store.commit(now: 0)
            store.close()
            let path = directory + "/journal-1"
            let size = fileSize(path)
            #expect(truncate(path, off_t(size - 5)) == 0)  // mid-record: the third record's bytes are partly gone

            let reopened = try open(directory)
            let contents = try reopened.load()
            #expect(contents.records == [record("one"), record("two")])
            #expect(contents.discardedBytes == 8 + "three-three-three".utf8.count - 5)
            #expect(fileSize(path) == size - 8 - "three-three-three".utf8.count)
            reopened.append(record("four"))
            try reopened.commit(now: 0)

            let final = try reload(reopened, directory)
            #expect(final.records == [record("one"), record("two"), record("four")])
            #expect(final.discardedBytes == 0)
        }
    }

    @Test(arguments: GarbageTail.allCases)
    func garbageTailIsCut(tail: GarbageTail) throws {
        let garbage = tail.bytes
        try withStateDirectory { directory in
            let store = try open(directory)
            _ = try store.load()
            store.append(record("kept"))
            try store.commit(now: 0)
            store.close()
            let path = directory + "/journal-1"
            try writeFile(path, try fileBytes(path) + garbage)

            let reopened = try open(directory)
            let contents = try reopened.load()
            #expect(contents.records == [record("kept")])
            #expect(contents.discardedBytes == garbage.count)
            reopened.append(record("after"))
            try reopened.commit(now: 0)
            #expect(try reload(reopened, directory).records == [record("kept"), record("after")])
        }
    }

    /// A journal whose third frame of six is damaged (one byte flipped), written and closed.
    private func journalDamagedInTheMiddle(
        _ directory: String, offsetInFrame: Int
    ) throws -> (items: [[UInt8]], frameStart: Int, bytes: [UInt8]) {
        let store = try open(directory)
        _ = try store.load()
        let items = (0..<6).map { record("record-\($0)") }  // 8 bytes each: frames of 16
        for item in items { store.append(item) }
        try store.commit(now: 0)
        store.close()
        let path = directory + "/journal-1"
        var bytes = try fileBytes(path)
        let frameStart = JournalFormat.journalHeaderSize + 2 * 16
        bytes[frameStart + offsetInFrame] ^= 0x01
        try writeFile(path, bytes)
        return (items, frameStart, bytes)
    }

    @Test(arguments: [0, 4, 8, 12])  // the length, the CRC, the first and the last record byte of the third frame
    func damageBeforeTheTailIsRefusedAndTheFileKept(offsetInFrame: Int) throws {
        try withStateDirectory { directory in
            let (_, frameStart, damaged) = try journalDamagedInTheMiddle(directory, offsetInFrame: offsetInFrame)
            let reopened = try open(directory)
            defer { reopened.close() }
            let error = #expect(throws: JournalError.self) { try reopened.load() }
            #expect(error?.code == .damaged)
            #expect(error?.file == directory + "/journal-1")
            #expect(error?.offset == frameStart)
            #expect(try fileBytes(directory + "/journal-1") == damaged, "nothing changed")
            #expect(try files(directory) == ["journal-1"])
        }
    }

    @Test(arguments: [0, 4, 8, 12])
    func truncatePolicyStartsFromThePrefixAndKeepsTheJournalAside(offsetInFrame: Int) throws {
        try withStateDirectory { directory in
            let (items, frameStart, damaged) = try journalDamagedInTheMiddle(directory, offsetInFrame: offsetInFrame)
            let reopened = try JournalStore(
                configuration: JournalConfiguration(directory: directory, fsync: .never, damage: .truncate), logger: quiet)
            defer { reopened.close() }
            let contents = try reopened.load()
            #expect(contents.records == Array(items[0..<2]))
            #expect(contents.discardedBytes == 4 * 16)
            #expect(fileSize(directory + "/journal-1") == frameStart)
            let keptAs = "journal-1.damaged-at-\(frameStart)"
            #expect(contents.damage?.offset == frameStart)
            #expect(contents.damage?.keptAs == directory + "/" + keptAs)
            #expect(try fileBytes(directory + "/" + keptAs) == damaged, "the whole journal as it was")
            #expect(try files(directory) == ["journal-1", keptAs])
            #expect(try reopened.load().damage == nil, "cut once")
        }
    }

    @Test func aHoleBeforeTheLastFrameIsDamageNotATornTail() throws {
        try withStateDirectory { directory in
            let store = try open(directory)
            _ = try store.load()
            for item in ["one", "two", "three"] { store.append(record(item)) }
            try store.commit(now: 0)
            store.close()
            let path = directory + "/journal-1"
            var bytes = try fileBytes(path)
            let second = JournalFormat.journalHeaderSize + 8 + 3
            for index in second..<(second + 8 + 3) { bytes[index] = 0 }  // zeros where "two" was; "three" intact
            try writeFile(path, bytes)
            let reopened = try open(directory)
            defer { reopened.close() }
            #expect((#expect(throws: JournalError.self) { try reopened.load() })?.code == .damaged)

            // Without the last frame, the zeros are a torn tail.
            try writeFile(path, Array(bytes.prefix(second + 8 + 3)))
            let contents = try reopened.load()
            #expect(contents.records == [record("one")])
            #expect(contents.damage == nil)
        }
    }

    @Test func damagedSnapshotOrJournalHeaderIsCorrupt() throws {
        try withStateDirectory { directory in
            let store = try open(directory)
            _ = try store.load()
            try store.writeSnapshot(record("state"))
            store.append(record("r"))
            store.close()

            let snapshotPath = directory + "/snapshot"
            let good = try fileBytes(snapshotPath)
            var bad = good
            bad[bad.count - 1] ^= 0x40
            try writeFile(snapshotPath, bad)
            let reopened = try open(directory)
            #expect((#expect(throws: JournalError.self) { try reopened.load() })?.code == .corrupt)
            try writeFile(snapshotPath, Array(good.dropLast()))
            #expect((#expect(throws: JournalError.self) { try reopened.load() })?.code == .corrupt)
            try writeFile(snapshotPath, good)

            let journalPath = directory + "/journal-2"
            let journal = try fileBytes(journalPath)
            var badJournal = journal
            badJournal[10] ^= 0x01  // the version field
            try writeFile(journalPath, badJournal)
            #expect((#expect(throws: JournalError.self) { try reopened.load() })?.code == .incompatible)
            badJournal = journal
            badJournal[14] ^= 0x01  // the generation field
            try writeFile(journalPath, badJournal)
            #expect((#expect(throws: JournalError.self) { try reopened.load() })?.code == .corrupt)
            try writeFile(journalPath, journal)
            let contents = try reopened.load()
            #expect(contents.snapshot == record("state"))
            #expect(contents.records == [record("r")])
            reopened.close()
        }
    }

    /// The journal a snapshot names held acknowledged records, and its header was durable before the snapshot was
    /// (no crash leaves it missing or cut into its header): its loss is damage, not a journal to create afresh.
    @Test(arguments: [-1, 0, 10])  // deleted, emptied, cut inside its header
    func theSnapshotsJournalMissingOrCutToLessThanItsHeaderIsDamage(length: Int) throws {
        try withStateDirectory { directory in
            let store = try open(directory)
            _ = try store.load()
            try store.writeSnapshot(record("state"))
            store.append(record("acknowledged"))
            try store.commit(now: 0)
            store.close()

            let journalPath = directory + "/journal-2"
            let whole = try fileBytes(journalPath)
            if length < 0 { unlink(journalPath) } else { try writeFile(journalPath, Array(whole.prefix(length))) }
            let left = try files(directory)
            let reopened = try open(directory)
            let error = #expect(throws: JournalError.self) { try reopened.load() }
            #expect(error?.code == .damaged)
            #expect(error?.file == journalPath)
            #expect(try files(directory) == left, "nothing changed")
            reopened.close()

            let truncating = try JournalStore(
                configuration: JournalConfiguration(directory: directory, fsync: .never, damage: .truncate), logger: quiet)
            defer { truncating.close() }
            let contents = try truncating.load()
            #expect(contents.snapshot == record("state"))
            #expect(contents.records.isEmpty)
            #expect(contents.damage?.file == journalPath)
            let keptAs = "journal-2.damaged-at-0"
            #expect(try files(directory) == ["journal-2"] + (length < 0 ? [] : [keptAs]) + ["snapshot"])
            if length >= 0 { #expect(try fileBytes(directory + "/" + keptAs) == Array(whole.prefix(length))) }
            truncating.append(record("after"))
            try truncating.commit(now: 0)
            #expect(try truncating.load().records == [record("after")], "a journal to append to again")
        }
    }

    @Test(arguments: [0, 20, 36, 37, -1])  // empty, inside the header, the header alone, one payload byte, one too many
    func snapshotOfAnotherLengthThanItsHeaderSaysIsCorruptAndKept(length: Int) throws {
        try withStateDirectory { directory in
            let store = try open(directory)
            _ = try store.load()
            try store.writeSnapshot(record("state of the session"))
            store.close()

            let snapshotPath = directory + "/snapshot"
            let good = try fileBytes(snapshotPath)
            let bad = length < 0 ? good + [0] : Array(good.prefix(length))
            try writeFile(snapshotPath, bad)
            let reopened = try open(directory)
            let error = #expect(throws: JournalError.self) { try reopened.load() }
            #expect(error?.code == .corrupt)
            if length >= 36 || length < 0 {
                #expect(error?.message.contains("payload bytes, the file has \(bad.count - 36)") == true)
            }
            #expect(try fileBytes(snapshotPath) == bad)
            reopened.close()
        }
    }

    @Test func journalNewerThanTheSnapshotIsRefused() throws {
        try withStateDirectory { directory in
            let store = try open(directory)
            _ = try store.load()
            store.append(record("r"))
            try store.commit(now: 0)
            store.close()
            // Without a snapshot only journal-1 may exist.
            try FileManager.default.copyItem(atPath: directory + "/journal-1", toPath: directory + "/journal-2")
            let reopened = try open(directory)
            defer { reopened.close() }
            let error = #expect(throws: JournalError.self) { try reopened.load() }
            #expect(error?.code == .corrupt)
            #expect(error?.message.contains("journal-2") == true)
            #expect(try files(directory) == ["journal-1", "journal-2"])  // nothing changed
        }
    }

    // MARK: - Snapshots

    @Test func snapshotReplacesEarlierRecords() throws {
        try withStateDirectory { directory in
            let store = try open(directory)
            _ = try store.load()
            store.append(record("old-1"))
            try store.commit(now: 0)
            store.append(record("old-2"))  // buffered: written before the snapshot, then replaced with it
            try store.writeSnapshot(record("state-1"))
            #expect(store.generation == 2)
            #expect(store.journalBytes == JournalFormat.journalHeaderSize)
            #expect(store.snapshotBytes == fileSize(directory + "/snapshot"))
            #expect(try files(directory) == ["journal-2", "snapshot"])
            store.append(record("new-1"))
            store.append(record("new-2"))
            try store.commit(now: 0)

            let contents = try reload(store, directory)
            #expect(contents.snapshot == record("state-1"))
            #expect(contents.records == [record("new-1"), record("new-2")])

            let again = try open(directory)
            _ = try again.load()
            try again.writeSnapshot([])  // an empty payload is a snapshot too
            again.append(record("newest"))
            let last = try reload(again, directory)
            #expect(last.snapshot == [])
            #expect(last.records == [record("newest")])
            #expect(try files(directory) == ["journal-3", "snapshot"])
        }
    }

    /// Every point of `writeSnapshot` where a SIGKILL can land, with and without an earlier snapshot: the next load
    /// sees the old state (old snapshot + old records) or the new one (new snapshot, no records), never a mix; and
    /// appends after that load survive the next one. From the switch on, appends go to the next journal, which the
    /// load keeps after the old one until the new snapshot took effect.
    @Test(arguments: SnapshotCrashPoint.allCases, [false, true])
    func crashDuringSnapshotLoadsOneConsistentState(point: SnapshotCrashPoint, earlierSnapshot: Bool) throws {
        try withStateDirectory { directory in
            let store = try open(directory)
            _ = try store.load()
            if earlierSnapshot { try store.writeSnapshot(record("old-state")) }
            let oldGeneration = store.generation
            store.append(record("r1"))
            store.append(record("r2"))
            try store.commit(now: 0)

            store.simulatedCrash = point
            let error = #expect(throws: JournalError.self) { try store.writeSnapshot(record("new-state")) }
            #expect(error?.code == .unusable)
            #expect((#expect(throws: JournalError.self) { try store.commit(now: 0) })?.code == .unusable)
            store.close()

            let tookEffect = point == .renamed || point == .replacedJournalsLeft
            let switched = point != .journalTorn
            let leftOver = try files(directory)
            if point == .temporaryTorn || point == .temporaryWritten { #expect(leftOver.contains("snapshot.tmp")) }
            #expect(leftOver.contains("journal-\(oldGeneration)"), "deleted only once the new snapshot is durable")
            #expect(leftOver.contains("journal-\(oldGeneration + 1)"))

            let reopened = try open(directory)
            let contents = try reopened.load()
            if tookEffect {
                #expect(contents.snapshot == record("new-state"))
                #expect(contents.records.isEmpty)
            } else {
                #expect(contents.snapshot == (earlierSnapshot ? record("old-state") : nil))
                #expect(contents.records == [record("r1"), record("r2")])
            }
            #expect(reopened.generation == (switched ? oldGeneration + 1 : oldGeneration))
            #expect(contents.discardedBytes == 0)
            let generation = reopened.generation
            let journals = tookEffect || !switched ? [generation] : [oldGeneration, generation]
            #expect(
                try files(directory)
                    == journals.map { "journal-\($0)" } + (tookEffect || earlierSnapshot ? ["snapshot"] : []))

            reopened.append(record("r3"))
            try reopened.commit(now: 0)
            let final = try reload(reopened, directory)
            #expect(final.records == (tookEffect ? [] : [record("r1"), record("r2")]) + [record("r3")])
            #expect(final.snapshot == contents.snapshot)
        }
    }

    // MARK: - Locking

    @Test func secondStoreOnTheSameDirectoryIsLocked() throws {
        try withStateDirectory { directory in
            let first = try open(directory)
            let error = #expect(throws: JournalError.self) { _ = try open(directory) }
            #expect(error?.code == .locked)
            #expect(error?.message.contains("pid \(getpid())") == true)
            first.close()
            let second = try open(directory)  // free again
            second.close()
        }
    }

    @Test("Closed, the directory is free at once, even while a child being spawned holds a copy of the lock's descriptor")
    func closeReleasesTheLockThatACopiedDescriptorSharesToo() throws {
        try withStateDirectory { directory in
            let first = try open(directory)
            // A dup shares the open file description, as a child between fork and exec does.
            let lockPath = directory + "/lock"
            let descriptors = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").compactMap(Int32.init)
            let lockDescriptor = try #require(descriptors.first {
                (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")) == lockPath
            })
            let copy = dup(lockDescriptor)
            #expect(copy >= 0)
            defer { _ = close(copy) }
            first.close()
            let second = try open(directory)
            second.close()
        }
    }

    // MARK: - Fsync policies

    @Test func alwaysSyncsEveryCommit() throws {
        try withStateDirectory { directory in
            let store = try open(directory, fsync: .always)
            defer { store.close() }
            _ = try store.load()
            for index in 1...3 {
                store.append(record("r\(index)"))
                try store.commit(now: 0)
                #expect(store.syncCount == index)
                #expect(store.nextSyncDue == nil)
            }
            try store.commit(now: 0)  // nothing buffered: no write, no sync
            #expect(store.syncCount == 3)
        }
    }

    @Test func intervalSyncsAtMostOncePerIntervalAndSyncIfDueCatchesUp() throws {
        try withStateDirectory { directory in
            let store = try open(directory, fsync: .interval(milliseconds: 100))
            _ = try store.load()
            #expect(store.nextSyncDue == nil)
            store.append(record("a"))
            try store.commit(now: 1000)  // never synced before: due at once
            #expect(store.syncCount == 1)
            #expect(store.nextSyncDue == nil)

            store.append(record("b"))
            try store.commit(now: 1010)
            store.append(record("c"))
            try store.commit(now: 1099)
            #expect(store.syncCount == 1)
            #expect(store.nextSyncDue == 1100)
            try store.syncIfDue(now: 1050)
            #expect(store.syncCount == 1)
            try store.syncIfDue(now: 1100)
            #expect(store.syncCount == 2)
            #expect(store.nextSyncDue == nil)
            try store.syncIfDue(now: 5000)  // nothing unsynced
            #expect(store.syncCount == 2)

            store.append(record("d"))
            try store.commit(now: 1150)
            #expect(store.syncCount == 2)
            #expect(store.nextSyncDue == 1200)
            store.append(record("e"))
            try store.commit(now: 1200)  // the interval has passed: the commit syncs
            #expect(store.syncCount == 3)

            store.append(record("f"))
            try store.commit(now: 1210)
            store.close()  // syncs what is unsynced
            #expect(store.syncCount == 4)
        }
    }

    @Test func neverNeverSyncs() throws {
        try withStateDirectory { directory in
            let store = try open(directory, fsync: .never)
            _ = try store.load()
            for index in 0..<5 {
                store.append(record("r\(index)"))
                try store.commit(now: UInt64(index) * 1000)
                try store.syncIfDue(now: UInt64(index) * 1000 + 500)
                #expect(store.nextSyncDue == nil)
            }
            try store.writeSnapshot(record("s"))
            store.close()
            #expect(store.syncCount == 0)
        }
    }

    // MARK: - Configuration

    @Test func configurationDecodesWithDefaults() throws {
        func decode(_ json: String) throws -> JournalConfiguration {
            try JSONDecoder().decode(JournalConfiguration.self, from: Data(json.utf8))
        }
        let minimal = try decode(#"{"directory": "/var/lib/flowd"}"#)
        #expect(minimal == JournalConfiguration(directory: "/var/lib/flowd"))
        #expect(minimal.fsync == .interval(milliseconds: 100))
        #expect(minimal.compactBytes == 8 * 1024 * 1024)
        #expect(minimal.damage == .refuse)
        #expect(try decode(#"{"directory": "d", "damage": "truncate"}"#).damage == .truncate)
        #expect(throws: DecodingError.self) { try decode(#"{"directory": "d", "damage": "ignore"}"#) }

        #expect(try decode(#"{"directory": "d", "fsync": "always"}"#).fsync == .always)
        #expect(try decode(#"{"directory": "d", "fsync": "never"}"#).fsync == .never)
        #expect(try decode(#"{"directory": "d", "fsync_interval_ms": 250}"#).fsync == .interval(milliseconds: 250))
        let full = try decode(
            #"{"directory": "d", "fsync": "interval", "fsync_interval_ms": 5, "compact_bytes": 4096}"#)
        #expect(full == JournalConfiguration(directory: "d", fsync: .interval(milliseconds: 5), compactBytes: 4096))

        #expect(throws: DecodingError.self) { try decode(#"{"directory": "d", "fsync": "sometimes"}"#) }
        #expect(throws: DecodingError.self) { try decode(#"{"directory": "d", "fsync_interval_ms": -1}"#) }
        #expect(throws: DecodingError.self) { try decode(#"{"fsync": "always"}"#) }

        for configuration in [
            minimal, full, JournalConfiguration(directory: "x", fsync: .always, compactBytes: 1, damage: .truncate),
        ] {
            let encoded = try JSONEncoder().encode(configuration)
            #expect(try JSONDecoder().decode(JournalConfiguration.self, from: encoded) == configuration)
        }
        #expect(FsyncPolicy("interval", intervalMilliseconds: 7) == .interval(milliseconds: 7))
        #expect(FsyncPolicy("sometimes") == nil)
    }

    @Test func crc32cMatchesTheStandardCheckValue() {
        #expect(CRC32C.checksum(Array("123456789".utf8)) == 0xE306_9283)
        #expect(CRC32C.checksum([UInt8]()) == 0)
    }

    @Test func crc32cAgreesWithABitwiseReferenceAtEveryLengthAndAlignment() {
        func reference(_ bytes: ArraySlice<UInt8>) -> UInt32 {
            var crc: UInt32 = 0xFFFF_FFFF
            for byte in bytes {
                crc ^= UInt32(byte)
                for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
            }
            return crc ^ 0xFFFF_FFFF
        }
        var generator = SystemRandomNumberGenerator()
        let data = (0..<80).map { _ in UInt8.random(in: 0...255, using: &generator) }
        for start in 0..<8 {
            for end in start...data.count {
                #expect(CRC32C.checksum(data[start..<end]) == reference(data[start..<end]))
            }
        }
        // Fed in pieces, the same as at once.
        var pieces = CRC32C()
        data[0..<13].withUnsafeBytes { pieces.update($0) }
        data[13...].withUnsafeBytes { pieces.update($0) }
        #expect(pieces.value == reference(data[...]))
    }

    @Test(
        "CRC-32C by the CPU's instruction and by the tables: the same on the same bytes, at every length and alignment",
        .enabled(if: CRC32C.usesHardware, "this CPU has no CRC-32C instruction: the tables are the only path"))
    func crc32cByTheInstructionAndByTheTablesAgree() {
        var generator = SystemRandomNumberGenerator()
        let data = (0..<300).map { _ in UInt8.random(in: 0...255, using: &generator) }
        data.withUnsafeBytes { whole in
            for start in 0..<16 {
                for end in start...whole.count {
                    let bytes = UnsafeRawBufferPointer(rebasing: whole[start..<end])
                    var crc = CRC32C()
                    crc.update(bytes)
                    #expect(crc.state == CRC32C.tableUpdate(0xFFFF_FFFF, bytes))
                    // From a running value other than the initial one.
                    let before = crc.state
                    crc.update(bytes)
                    #expect(crc.state == CRC32C.tableUpdate(before, bytes))
                }
            }
        }
    }

    @Test(
        "CRC-32C by the instruction over three streams (24 KiB and more) is the tables' CRC, whatever came before",
        .enabled(if: CRC32C.usesHardware, "this CPU has no CRC-32C instruction: the tables are the only path"))
    func crc32cOfLongInputsByTheInstructionAndByTheTablesAgree() {
        var generator = SystemRandomNumberGenerator()
        let data = (0..<(3 * 3 * 8192 + 77)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        data.withUnsafeBytes { whole in
            for (start, end) in [(0, 3 * 8192), (1, 3 * 8192 + 1), (3, 3 * 8192 + 2), (0, whole.count), (5, whole.count)] {
                let bytes = UnsafeRawBufferPointer(rebasing: whole[start..<end])
                var crc = CRC32C()
                crc.update(bytes)
                #expect(crc.state == CRC32C.tableUpdate(0xFFFF_FFFF, bytes))
                let head = UnsafeRawBufferPointer(rebasing: whole[0..<13])
                var pieces = CRC32C()
                pieces.update(head)
                pieces.update(bytes)
                #expect(pieces.state == CRC32C.tableUpdate(CRC32C.tableUpdate(0xFFFF_FFFF, head), bytes))
            }
        }
    }
}
