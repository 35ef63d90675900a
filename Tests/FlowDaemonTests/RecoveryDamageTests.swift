import FlowClient
import FlowCore
import FlowDaemon
import FlowWire
import Foundation
import Logging
import TestFlows
import Testing

/// Records that read well but contradict the ones before them are damage, not state: recovery refuses them rather
/// than reset a session or change the daemon ID; and a daemon ID is only replaced by a record that names it.
struct RecoveryDamageTests {
    private func record(_ json: String) -> [UInt8] { Array(json.utf8) }

    /// A journal with a session `kiosk` that has moved on (its root flow is not where a new one starts).
    private func journal() -> (DaemonHarness, [[UInt8]]) {
        let harness = DaemonHarness(journaling: true)
        harness.hello(Peers.flowctl, .operator, name: "ops")
        harness.receive(.createSession(SessionRequest(req: 5, session: "kiosk")), from: Peers.flowctl)
        harness.deepLink(Peers.flowctl, Step("openDetail", payload: 3), session: "kiosk", req: 6)
        return (harness, harness.core.journalHistory)
    }

    @Test("A second session record for a live session is refused as damage, naming the record")
    func secondSessionRecordIsDamage() throws {
        let (harness, records) = journal()
        let crafted = records + [record(#"{"kind":"session","session":"kiosk"}"#)]
        let error = #expect(throws: RecoveryError.self) { try harness.restarted(journal: crafted) }
        #expect(error?.code == .damagedRecord)
        #expect(error?.record == records.count)
        #expect(error?.message.contains("second session record for session kiosk") == true)
    }

    @Test("A second daemon record is refused as damage unless it replaces the daemon ID before it")
    func secondDaemonRecordIsDamageUnlessItReplaces() throws {
        let (harness, records) = journal()
        let foreign = records + [record(#"{"daemon":"other","kind":"daemon"}"#)]
        let error = #expect(throws: RecoveryError.self) { try harness.restarted(journal: foreign) }
        #expect(error?.code == .damagedRecord)
        #expect(error?.record == records.count)
        let wrongOne = records + [record(#"{"daemon":"other","kind":"daemon","replaces":"not-this-one"}"#)]
        #expect((#expect(throws: RecoveryError.self) { try harness.restarted(journal: wrongOne) })?.code == .damagedRecord)
        let first = [record(#"{"daemon":"other","kind":"daemon","replaces":"test-daemon"}"#)] + records
        #expect((#expect(throws: RecoveryError.self) { try harness.restarted(journal: first) })?.code == .damagedRecord)

        let replacing = records + [record(#"{"daemon":"other","kind":"daemon","replaces":"test-daemon"}"#)]
        let restarted = try harness.restarted(journal: replacing)
        #expect(restarted.core.daemonID == "other")
        #expect(restarted.state(of: "kiosk") == harness.state(of: "kiosk"), "nothing else changes")
    }

    @Test("A new daemon ID is journaled as replacing the old one and survives the next restart")
    func changedDaemonIDSurvivesARestart() throws {
        let (harness, records) = journal()
        func core(_ id: String, recovering records: [[UInt8]]) throws -> DaemonCore {
            var core = DaemonCore(
                application: TestApplication(), daemonID: id,
                logger: Logger(label: "RecoveryDamageTests", factory: { _ in SwiftLogNoOpLogHandler() }), now: 0,
                journaling: true)
            _ = try core.recover(from: records)
            _ = core.start(now: 0)
            return core
        }
        var restarted = try core("run-2", recovering: records)
        #expect(restarted.daemonID == "test-daemon")
        restarted.changeDaemonID(to: "after-damage")
        #expect(restarted.daemonID == "after-damage")
        var again = try core("run-3", recovering: restarted.journalHistory)
        #expect(again.daemonID == "after-damage")
        #expect(again.seq(of: "kiosk") == harness.core.seq(of: "kiosk"))
        #expect(again.tree(of: "kiosk") == harness.core.tree(of: "kiosk"))

        var fresh = try core("run-4", recovering: [])
        fresh.changeDaemonID(to: "new")
        #expect(fresh.daemonID == "new", "a new state takes it too")
    }

    @Test("Recovery reports its progress every 4096 records (for systemd's EXTEND_TIMEOUT_USEC)")
    func recoveryReportsProgress() throws {
        let (_, records) = journal()
        let many = records + Array(repeating: record(#"{"kind":"adopted","session":"kiosk"}"#), count: 9000)
        var core = DaemonCore(
            application: TestApplication(), daemonID: "run-2",
            logger: Logger(label: "RecoveryDamageTests", factory: { _ in SwiftLogNoOpLogHandler() }), now: 0,
            journaling: true)
        var seen: [Int] = []
        let report = try core.recover(from: many) { seen.append($0) }
        #expect(seen == [4096, 8192])
        #expect(report.records == many.count)
    }

    @Test("A record of a newer format version is refused by name, not skipped")
    func newerRecordIsRefused() throws {
        let (harness, records) = journal()
        let newer = records + [record(#"{"kind":"ended","session":"kiosk","v":6}"#)]
        let error = #expect(throws: RecoveryError.self) { try harness.restarted(journal: newer) }
        #expect(error?.code == .newerRecord)
        #expect(error?.message.contains("'ended' record of format version 6") == true)
        let unknown = records + [record(#"{"kind":"ended","session":"kiosk"}"#)]
        #expect((#expect(throws: RecoveryError.self) { try harness.restarted(journal: unknown) })?.code == .unreadableRecord)
    }
}

/// The real daemon on a damaged state directory: it refuses to start and leaves the files, or with
/// `--journal-damage truncate` starts from the intact prefix under a new daemon ID.
@Suite(.timeLimit(.minutes(1)))
struct DamagedJournalStartTests {
    private static let quiet = Logger(label: "DamagedJournalStartTests", factory: { _ in SwiftLogNoOpLogHandler() })

    private func server(_ directory: String, damage: JournalDamagePolicy = .refuse) -> DaemonServer {
        DaemonServer(
            application: TickerApplication(),
            configuration: DaemonServer.Configuration(
                controlEndpoint: "ipc://\(directory)/control.sock", eventsEndpoint: "ipc://\(directory)/events.sock",
                journal: JournalConfiguration(directory: "\(directory)/state", fsync: .never, damage: damage)
            ),
            logger: Self.quiet
        )
    }

    private func daemonID(_ directory: String) async throws -> String {
        let configuration = FlowClientConfiguration(
            endpoints: FlowdEndpoints(control: "ipc://\(directory)/control.sock", events: "ipc://\(directory)/events.sock"),
            logger: Self.quiet
        )
        return try await OperatorClient.withConnection(name: "ops", configuration: configuration) {
            try await $0.health().daemon
        }
    }

    /// Runs a daemon until it is ready, asks its daemon ID, stops it.
    private func run(_ server: DaemonServer, _ directory: String) async throws -> String {
        let task = Task { try await server.run() }
        _ = try await server.waitUntilReady()
        let id = try await daemonID(directory)
        server.stop()
        try await task.value
        return id
    }

    @Test("A byte flipped before the journal's last frame stops the start; truncate starts over with a new daemon ID")
    func damagedJournalRefusedThenTruncated() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = try await run(server(directory), directory)
        let path = "\(directory)/state/journal-1"
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        // The journal holds its 32-byte header, the daemon record, then the default session's: damage the first
        // record's text.
        bytes[32 + 8 + 2] ^= 0x20
        try Data(bytes).write(to: URL(fileURLWithPath: path))

        let refused = server(directory)
        let error = await #expect(throws: JournalError.self) { try await refused.run() }
        #expect(error?.code == .damaged)
        #expect(error?.file == path)
        #expect(error?.offset == 32)
        #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) == bytes, "the journal is left as it was")

        let recovered = try await run(server(directory, damage: .truncate), directory)
        #expect(recovered != first, "clients see a new daemon ID and resync")
        #expect(FileManager.default.fileExists(atPath: "\(path).damaged-at-32"))
        let again = try await run(server(directory), directory)
        #expect(again == recovered, "the new ID is the state's from now on")
    }

    private func makeTemporaryDirectory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("flowd-damage-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}
