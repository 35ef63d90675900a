import FlowCore
@testable import FlowDaemon
import FlowWire
import FlowdTesting
import Foundation
import TestFlows
import Testing

/// A session's outbox is bounded by bytes too (`daemon.outbox_bytes_limit`, docs/LIMITS.md "Many sessions, many
/// steps"): the oldest commands go while it is over, the newest stays; a presenter further behind gets `SYNC`'s
/// `mode: snapshot` as past `outbox_limit`; a restart or a woken session comes back to the same outbox.
struct OutboxBytesTests {
    /// What `push(detail.n)` counts: `TestApplication`'s deep link `openDetail(n)` sends it.
    static func detailBytes(_ movie: Int) -> Int {
        NavigationCommand.push(Screens.detail(movie), onto: "app").outboxBytes
    }

    /// A daemon whose outbox holds at most `bytes` of commands (and 1024 of them).
    static func harness(bytes: Int, journaling: Bool = false) -> DaemonHarness {
        var configuration = DaemonConfiguration()
        configuration.outboxBytesLimit = bytes
        return DaemonHarness(configuration: configuration, journaling: journaling)
    }

    /// The `SYNC` reply's mode for a presenter at `lastSeq` (`replay` or `snapshot`), and the seqs of the commands
    /// replayed.
    static func sync(_ h: DaemonHarness, lastSeq: UInt64, req: UInt64) -> (mode: String, replayed: [UInt64]) {
        let sent = h.receive(.sync(Sync(req: req, session: "default", lastSeq: lastSeq)), from: Peers.kiosk).sent
        var mode = "-"
        var replayed: [UInt64] = []
        for delivery in sent {
            switch delivery.message {
            case .ok(let reply):
                if case .object(let result) = reply.result { mode = result["mode"]?.stringValue ?? "-" }
            case .command(let command): replayed.append(command.seq)
            default: break
            }
        }
        return (mode, replayed)
    }

    /// What a presenter at each `lastSeq` from 0 to the session's gets (each a fresh `SYNC` of `Peers.kiosk`).
    static func syncs(_ h: DaemonHarness) -> [String] {
        h.hello(Peers.kiosk, .presenter, name: "kiosk")
        let seq = h.core.seq(of: "default") ?? 0
        return (0...seq).map { lastSeq in
            let (mode, replayed) = sync(h, lastSeq: lastSeq, req: 10 + lastSeq)
            return "\(lastSeq): \(mode) \(replayed)"
        }
    }

    @Test func theEstimateCountsTheScreensDataOnceAndAlikeAfterASaveAndARead() throws {
        // 64 a command, 32 + ID + type a screen, 8 a JSON value + its strings' and keys' UTF-8 bytes.
        #expect(
            Self.detailBytes(1) == 64 + 32 + "detail.1".utf8.count + "Detail".utf8.count + 8 + "movie".utf8.count + 8)
        #expect(Self.detailBytes(1) == 131, "docs/LIMITS.md's example")
        #expect(NavigationCommand.pop(stack: "app").outboxBytes == 64)
        let large = String(repeating: "é", count: 200_000)
        let screens: [Screen] = [
            .view("a", type: "T", data: ["text": .string(large), "n": .double(1.0), "list": [1, 2.5, nil, true]]),
            .view("b", type: "T", data: .string(large)),
        ]
        let command = NavigationCommand.setStack("app", screens)
        #expect(command.outboxBytes > 2 * large.utf8.count)
        #expect(command.outboxBytes < 2 * large.utf8.count + 400)
        // Sent or saved as a COMMAND body and read back (`1.0` may come back as an integer), it counts the same.
        let codec = WireCodec(maxBodyBytes: 1 << 22)
        let frames = codec.encode(.command(CommandMessage(session: "s", seq: 1, command: command)))
        guard case .daemon(.command(let read)) = try codec.decode(frames, from: .daemon) else {
            Issue.record("not read back as a COMMAND")
            return
        }
        #expect(read.command.outboxBytes == command.outboxBytes)
    }

    @Test func withinTheByteBoundAPresenterGetsAReplayAndPastItASnapshot() {
        // Room for the three detail pushes (seq 3, 4, 5) and not for `home`'s push (seq 2) too.
        let h = Self.harness(bytes: (1...3).map(Self.detailBytes).reduce(0, +))
        h.hello(Peers.flowctl, .operator, name: "flowctl")
        for movie in 1...3 { h.deepLink(Peers.flowctl, Step("openDetail", payload: .int(movie))) }
        h.hello(Peers.kiosk, .presenter, name: "kiosk")
        #expect(Self.sync(h, lastSeq: 2, req: 2) == ("replay", [3, 4, 5]))
        #expect(Self.sync(h, lastSeq: 1, req: 3) == ("snapshot", []))
        // One more: the oldest goes.
        h.deepLink(Peers.flowctl, Step("openDetail", payload: .int(4)), req: 3)
        #expect(Self.sync(h, lastSeq: 3, req: 4) == ("replay", [4, 5, 6]))
        #expect(Self.sync(h, lastSeq: 2, req: 5) == ("snapshot", []))
    }

    @Test func aCommandLargerThanTheByteBoundIsKeptAlone() {
        let h = Self.harness(bytes: Self.detailBytes(1) - 1)
        h.hello(Peers.flowctl, .operator, name: "flowctl")
        for movie in 1...3 { h.deepLink(Peers.flowctl, Step("openDetail", payload: .int(movie))) }
        h.hello(Peers.kiosk, .presenter, name: "kiosk")
        #expect(Self.sync(h, lastSeq: 5, req: 2) == ("replay", []))
        #expect(Self.sync(h, lastSeq: 4, req: 3) == ("replay", [5]))
        #expect(Self.sync(h, lastSeq: 3, req: 4) == ("snapshot", []))
    }

    @Test func aRestartFromTheSnapshotAndTheJournalComesBackToTheSameOutbox() throws {
        let h = Self.harness(bytes: 3 * Self.detailBytes(1), journaling: true)
        h.hello(Peers.flowctl, .operator, name: "flowctl")
        for movie in 1...4 { h.deepLink(Peers.flowctl, Step("openDetail", payload: .int(movie)), req: UInt64(movie)) }
        h.core.compactJournal()
        // After the snapshot, the journal's steps push older commands out of the restored outbox.
        for movie in 5...6 { h.deepLink(Peers.flowctl, Step("openDetail", payload: .int(movie)), req: UInt64(movie)) }
        let restarted = try h.restarted()
        let expected = Self.syncs(h)
        #expect(Self.syncs(restarted) == expected)
        #expect(expected.filter { $0.contains("replay") }.count == 4, "seq 5, 6, 7 and 8 (\(expected))")
    }

    @Test func aRestartWithLowerBoundsTrimsTheSavedOutboxToThem() throws {
        let h = Self.harness(bytes: 4 * Self.detailBytes(1), journaling: true)
        h.hello(Peers.flowctl, .operator, name: "flowctl")
        for movie in 1...4 { h.deepLink(Peers.flowctl, Step("openDetail", payload: .int(movie)), req: UInt64(movie)) }
        h.core.compactJournal()
        let same = try h.restarted()
        same.hello(Peers.kiosk, .presenter, name: "kiosk")
        #expect(Self.sync(same, lastSeq: 2, req: 2) == ("replay", [3, 4, 5, 6]))
        var lower = DaemonConfiguration()
        lower.outboxBytesLimit = 2 * Self.detailBytes(1)
        let byBytes = try h.restarted(configuration: lower)
        byBytes.hello(Peers.kiosk, .presenter, name: "kiosk")
        #expect(Self.sync(byBytes, lastSeq: 4, req: 2) == ("replay", [5, 6]))
        #expect(Self.sync(byBytes, lastSeq: 3, req: 3) == ("snapshot", []))
        lower = DaemonConfiguration()
        lower.outboxLimit = 1
        let byCount = try h.restarted(lazily: true, configuration: lower)
        byCount.hello(Peers.kiosk, .presenter, name: "kiosk")
        #expect(Self.sync(byCount, lastSeq: 5, req: 2) == ("replay", [6]))
        #expect(Self.sync(byCount, lastSeq: 4, req: 3) == ("snapshot", []))
    }

    @Test func aWokenSessionComesBackToTheSameOutbox() {
        var configuration = DaemonConfiguration()
        configuration.outboxBytesLimit = 3 * Self.detailBytes(1)
        configuration.hibernateAfterS = 0
        let never = DaemonHarness(configuration: configuration, journaling: true)
        configuration.hibernateAfterS = 30
        let sleeping = DaemonHarness(configuration: configuration, journaling: true)
        for h in [never, sleeping] {
            h.hello(Peers.flowctl, .operator, name: "flowctl", at: 0)
            for movie in 1...4 {
                h.deepLink(Peers.flowctl, Step("openDetail", payload: .int(movie)), req: UInt64(movie))
            }
            h.receive(.heartbeat(Heartbeat()), from: Peers.flowctl, at: 31_499)
            h.tick(at: 31_500)
        }
        #expect(sleeping.core.hibernatedSessionCount == 1 && never.core.hibernatedSessionCount == 0)
        // A deep link wakes it; its outbox, counted again from the saved commands, takes one more.
        for h in [never, sleeping] { h.deepLink(Peers.flowctl, Step("openDetail", payload: .int(5)), req: 5) }
        #expect(sleeping.core.hibernatedSessionCount == 0)
        #expect(Self.syncs(sleeping) == Self.syncs(never))
    }

    @Test func theSettingIsReadFromTheFileAndTheFlagWithinItsBounds() throws {
        #expect(DaemonConfiguration().outboxBytesLimit == 1_048_576)
        let path = NSTemporaryDirectory() + "flowd-config-\(UUID().uuidString).json"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try #"{"daemon": {"outbox_bytes_limit": 4096}}"#.write(toFile: path, atomically: true, encoding: .utf8)
        let fromFile = try FlowdOptions.parse(["--config", path, "--no-journal"]).settings(environment: [:])
        #expect(fromFile.server.daemon.outboxBytesLimit == 4096)
        let fromFlag = try FlowdOptions.parse(["--config", path, "--no-journal", "--outbox-bytes-limit", "65536"])
            .settings(environment: [:])
        #expect(fromFlag.server.daemon.outboxBytesLimit == 65536)
        #expect(
            #expect(throws: (any Error).self) { try FlowdOptions.parse(["--outbox-bytes-limit", "1023"]) }
                .map(FlowdOptions.message(for:)) == "--outbox-bytes-limit must be at least 1024")
        try #"{"daemon": {"outbox_bytes_limit": 0}}"#.write(toFile: path, atomically: true, encoding: .utf8)
        do {
            _ = try FlowdOptions.parse(["--config", path]).settings(environment: [:])
            Issue.record("an outbox_bytes_limit of 0 was accepted")
        } catch let error as FlowdConfigError {
            #expect(error.reason == "sets daemon.outbox_bytes_limit to 0: it must be at least 1024")
        }
    }
}
