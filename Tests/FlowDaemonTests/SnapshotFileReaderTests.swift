#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
@testable import FlowDaemon
import Logging
import Testing

/// A snapshot split into its records as it is read (``JournalStore/load(splittingSnapshot:)``): the same records as
/// ``JournalSnapshot/records(in:)`` gives, whatever their sizes beside the read buffer, and damage refused.
@Suite struct SnapshotFileReaderTests {
    private static let quiet = Logger(label: "SnapshotFileReaderTests", factory: { _ in SwiftLogNoOpLogHandler() })

    /// Runs `body` with a state directory holding a snapshot of `payload`, removed afterwards.
    private func withSnapshot(_ payload: [UInt8], _ body: (String) throws -> Void) throws {
        var template = Array("/tmp/flowd-snapshot-reader-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw POSIXError(.EIO) }
        let root = String(cString: made)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let directory = root + "/state"
        let store = try open(directory)
        _ = try store.load()
        try store.writeSnapshot(payload)
        store.close()
        try body(directory)
    }

    private func open(_ directory: String) throws -> JournalStore {
        try JournalStore(configuration: JournalConfiguration(directory: directory, fsync: .never), logger: Self.quiet)
    }

    private func load(_ directory: String, splitting: Bool) throws -> JournalContents {
        let store = try open(directory)
        defer { store.close() }
        return try store.load(splittingSnapshot: splitting)
    }

    /// `count` bytes that differ from one record and one offset to the next.
    private static func bytes(_ count: Int, seed: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ seed &* 7 &+ $0 >> 8) }
    }

    private static let buffer = SnapshotFileReader.bufferBytes

    @Test(
        "Records of every size beside the read buffer come back as the payload holds them",
        arguments: [
            [0, 5, 3],
            [buffer / 2, buffer / 2 + 1, buffer / 2 - 1, 1],
            [1_100_000, 40, 7],  // a deep UI's state record first
            [40, 7, 1_100_000],  // ... or last
            [buffer - 4, buffer, buffer + 1, 2, buffer - 6],
            Array(repeating: 10_000, count: 20) + [3],  // many buffer fills, records across their edges
            [100_000],
        ])
    func recordsOfEverySize(sizes: [Int]) throws {
        let records = sizes.enumerated().map { Self.bytes($0.element, seed: $0.offset) }
        let payload = JournalSnapshot.payload(records)
        try withSnapshot(payload) { directory in
            let split = try load(directory, splitting: true)
            #expect(split.snapshot == nil)
            #expect(split.snapshotRecords == records)
            let whole = try load(directory, splitting: false)
            #expect(whole.snapshot == payload)
            #expect(whole.snapshotRecords.isEmpty)
        }
    }

    @Test("An empty payload has no records")
    func emptyPayload() throws {
        try withSnapshot([]) { directory in
            let contents = try load(directory, splitting: true)
            #expect(contents.snapshotRecords.isEmpty)
        }
    }

    @Test("A payload whose framing does not add up is corrupt, its CRC right or not; the file is kept")
    func damagedFramingIsRefused() throws {
        let records = [Self.bytes(50, seed: 1), Self.bytes(200_000, seed: 2)]
        let cut = Array(JournalSnapshot.payload(records).dropLast(3))
        try withSnapshot(cut) { directory in
            let error = #expect(throws: JournalError.self) { try load(directory, splitting: true) }
            #expect(error?.code == .corrupt)
            #expect(error?.message.contains("ends inside a record") == true)
            let whole = try load(directory, splitting: false)
            #expect(whole.snapshot == cut)  // the store alone does not read framing
        }
        try withSnapshot(JournalSnapshot.payload(records)) { directory in
            let path = directory + "/snapshot"
            var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            bytes[JournalFormat.snapshotHeaderSize + 4 + 50 + 2] ^= 0x40  // the large record's length
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let error = #expect(throws: JournalError.self) { try load(directory, splitting: true) }
            #expect(error?.code == .corrupt)
            #expect(error?.message.contains("the payload's CRC does not match") == true)
            let kept = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            #expect(kept == bytes)
        }
    }

    @Test("A snapshot shorter than its header says is corrupt when split too")
    func shortSnapshotIsRefused() throws {
        try withSnapshot(JournalSnapshot.payload([Self.bytes(300_000, seed: 3)])) { directory in
            let path = directory + "/snapshot"
            #expect(truncate(path, off_t(JournalFormat.snapshotHeaderSize + 200_000)) == 0)
            let error = #expect(throws: JournalError.self) { try load(directory, splitting: true) }
            #expect(error?.code == .corrupt)
            #expect(error?.message.contains("payload bytes, the file has 200000") == true)
        }
    }
}
