import FlowClientTesting
import FlowCore
import FlowWire
import Testing

@testable import FlowClient

/// ``PresenterClient``: `SYNC`, snapshot adoption, exactly-once commands, gaps, re-reports, reconnects and a person's
/// operations, against a fake daemon.
@Suite(.timeLimit(.minutes(1)))
struct PresenterClientTests {
    /// The UI at seq 3: a stack `app` showing `home` on top of nothing else.
    static let ui: UISnapshot = {
        var model = PresentationModel()
        _ = model.apply([.setRoot(.stack("app")), .push(.view("home", type: "Home"), onto: "app")])
        return UISnapshot(model)
    }()

    static func visible(_ ids: PresentableID...) -> [PresentableReport] {
        ids.map { PresentableReport(presentable: $0.rawValue, state: .visible) }
    }

    /// Welcomes the presenter, answers its first `SYNC` with a snapshot of ``ui`` at seq 3 and serves its report.
    /// The daemon keeps the connection alive until the test calls ``FakeDaemon/fallSilent(toward:)``.
    ///
    /// - Returns: the presenter's routing id and the report it made.
    static func syncWithSnapshot(
        _ daemon: FakeDaemon,
        heartbeatMs: Int = 60_000
    ) async throws -> (peer: [UInt8], sync: Sync, report: [PresentableReport]) {
        let (peer, hello) = try await daemon.acceptHello(heartbeatMs: heartbeatMs, keepingAlive: true)
        #expect(hello.role == .presenter)
        let (_, sync) = try await daemon.expect("SYNC", from: peer) { $0.sync }
        try await daemon.send(.ok(OKReply(req: sync.req, result: ["seq": 3, "mode": "snapshot"])), to: peer)
        try await daemon.send(.snapshot(SnapshotMessage(session: "default", seq: 3, ui: ui)), to: peer)
        let (_, ack) = try await daemon.expect("ACK 3", from: peer) { $0.ack }
        #expect(ack.seq == 3)
        let (_, report) = try await daemon.expect("REPORT", from: peer) { $0.report }
        try await daemon.send(.ok(OKReply(req: report.req)), to: peer)
        return (peer, sync, report.reports)
    }

    static func command(_ seq: UInt64, _ command: NavigationCommand) -> DaemonMessage {
        .command(CommandMessage(session: "default", seq: seq, command: command))
    }

    /// flowd's answer to `sync` from seq 3 when it holds commands 4 (`detail`) and 5 (`more`) on `app`: the `OK`
    /// announcing the replay, then the replay.
    static func replayThrough5(_ sync: Sync) -> [DaemonMessage] {
        [
            .ok(OKReply(req: sync.req, result: ["seq": 5, "mode": "replay"])),
            command(4, .push(.view("detail", type: "Detail"), onto: "app")),
            command(5, .push(.view("more", type: "More"), onto: "app")),
        ]
    }

    /// Reads changes until one has applied `seq`; returns the sequence numbers of the commands applied on the way.
    static func appliedSeqs(
        in changes: AsyncStream<PresenterChange>,
        through seq: UInt64
    ) async throws -> [UInt64] {
        try await withDeadline("changes through seq \(seq)") {
            var applied: [UInt64] = []
            for await change in changes {
                if case .commands(let commands) = change.cause { applied += commands.map(\.seq) }
                if change.lastSeq >= seq { return applied }
            }
            return applied
        }
    }

    @Test func aPresenterReplacedByAnotherOfItsNameStopsInsteadOfSayingHelloAgain() async throws {
        // docs/PROTOCOL.md §3: the daemon tells the old connection `replaced`; saying HELLO again would take the
        // session back from the other process, which would do the same, for ever.
        try await FakeDaemon.with(logger: testLogger) { daemon in
            let presenter = PresenterClient(name: "tui", configuration: daemon.configuration())
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    let ended: Bool = try await withDeadline("run() ends") {
                        await #expect(throws: DaemonError(code: .replaced, message: "")) { try await presenter.run() }
                        return true
                    }
                    #expect(ended)
                }
                let (peer, _, _) = try await Self.syncWithSnapshot(daemon)
                try await daemon.send(
                    .error(ErrorReply(req: nil, code: .replaced, message: "another tui said HELLO", type: "HELLO")),
                    to: peer
                )
                try await group.waitForAll()
            }
            // Stopped: what it is asked now fails at once.
            await #expect(throws: FlowClientError(.stopped, "")) { try await presenter.userAction(Step("tap"), on: "home") }
        }
    }

    @Test func syncAdoptsTheSnapshotAcknowledgesItAndReportsWhatIsVisible() async throws {
        try await FakeDaemon.with(logger: testLogger) { daemon in
            let presenter = PresenterClient(name: "tui", configuration: daemon.configuration())
            let changes = presenter.changes()
            try await whileRunning(presenter.run) {
                let (_, sync, report) = try await Self.syncWithSnapshot(daemon)
                #expect(sync.session == "default")
                #expect(sync.lastSeq == 0)
                #expect(!sync.create)
                #expect(report == Self.visible("app", "home"))
                var iterator = changes.makeAsyncIterator()
                let change = try #require(await iterator.next())
                #expect(change.cause == .snapshot(seq: 3))
                #expect(change.reports == report)
                #expect(presenter.lastSeq == 3)
                #expect(presenter.model.visiblePresentables == ["app", "home"])
            }
        }
    }

    @Test func createSessionAsksTheDaemonToCreateIt() async throws {
        try await FakeDaemon.with(logger: testLogger) { daemon in
            let presenter = PresenterClient(
                name: "kiosk", session: "kiosk-3", createSession: true, configuration: daemon.configuration()
            )
            try await whileRunning(presenter.run) {
                let (peer, _) = try await daemon.acceptHello()
                let (_, sync) = try await daemon.expect("SYNC", from: peer) { $0.sync }
                #expect(sync.session == "kiosk-3")
                #expect(sync.create)
            }
        }
    }

    @Test func duplicateAndOldCommandsAreNotAppliedTwice() async throws {
        try await FakeDaemon.with(logger: testLogger) { daemon in
            let presenter = PresenterClient(name: "tui", configuration: daemon.configuration())
            let changes = presenter.changes()
            try await whileRunning(presenter.run) {
                let (peer, _, _) = try await Self.syncWithSnapshot(daemon)
                try await daemon.send(Self.command(4, .push(.view("detail", type: "Detail"), onto: "app")), to: peer)
                try await daemon.send(Self.command(4, .push(.view("detail", type: "Detail"), onto: "app")), to: peer)
                try await daemon.send(Self.command(2, .setRoot(.stack("other"))), to: peer)
                try await daemon.send(Self.command(5, .push(.view("more", type: "More"), onto: "app")), to: peer)
                try await daemon.send(Self.command(5, .pop(stack: "app")), to: peer)
                let served = try await daemon.serve(until: "ACK 5", from: peer) { $0.ack?.seq == 5 ? true : nil }
                #expect(served.acks.allSatisfy { $0 == 4 })
                #expect(try await Self.appliedSeqs(in: changes, through: 5) == [4, 5])
                #expect(presenter.model.children(of: "app") == ["home", "detail", "more"])
                #expect(presenter.model.visiblePresentables == ["app", "more"])
                #expect(presenter.lastSeq == 5)
            }
        }
    }

    @Test func aGapTriggersSyncWithTheLastAppliedSeqAndReplayFillsIt() async throws {
        try await FakeDaemon.with(logger: testLogger) { daemon in
            let presenter = PresenterClient(name: "tui", configuration: daemon.configuration())
            let changes = presenter.changes()
            try await whileRunning(presenter.run) {
                let (peer, _, _) = try await Self.syncWithSnapshot(daemon)
                // Command 4 was lost: 5 shows the gap.
                try await daemon.send(Self.command(5, .push(.view("more", type: "More"), onto: "app")), to: peer)
                let (sync, _, _) = try await daemon.serve(until: "SYNC", from: peer) { $0.sync }
                #expect(sync.lastSeq == 3)
                try await daemon.send(.ok(OKReply(req: sync.req, result: ["seq": 5, "mode": "replay"])), to: peer)
                // After a SYNC the daemon counts nothing visible: everything visible is reported again.
                let (_, reReport) = try await daemon.expect("REPORT", from: peer) { $0.report }
                #expect(reReport.reports == Self.visible("app", "home"))
                try await daemon.send(.ok(OKReply(req: reReport.req)), to: peer)
                try await daemon.send(Self.command(4, .push(.view("detail", type: "Detail"), onto: "app")), to: peer)
                try await daemon.send(Self.command(5, .push(.view("more", type: "More"), onto: "app")), to: peer)
                _ = try await daemon.serve(until: "ACK 5", from: peer) { $0.ack?.seq == 5 ? true : nil }
                #expect(try await Self.appliedSeqs(in: changes, through: 5) == [4, 5])
                #expect(presenter.model.children(of: "app") == ["home", "detail", "more"])
            }
        }
    }

    @Test func aHeartbeatAnnouncingAHigherSeqTriggersSync() async throws {
        try await FakeDaemon.with(logger: testLogger) { daemon in
            let presenter = PresenterClient(name: "tui", configuration: daemon.configuration())
            try await whileRunning(presenter.run) {
                let (peer, _, _) = try await Self.syncWithSnapshot(daemon)
                try await daemon.send(.heartbeat(Heartbeat(sessions: ["default": 3, "other": 9])), to: peer)
                try await daemon.send(.heartbeat(Heartbeat(sessions: ["default": 4])), to: peer)
                let (sync, _, _) = try await daemon.serve(until: "SYNC", from: peer) { $0.sync }
                #expect(sync.lastSeq == 3)
            }
        }
    }

    @Test func aSnapshotReplacesTheWholeModel() async throws {
        try await FakeDaemon.with(logger: testLogger) { daemon in
            let presenter = PresenterClient(name: "tui", configuration: daemon.configuration())
            let changes = presenter.changes()
            try await whileRunning(presenter.run) {
                let (peer, _, _) = try await Self.syncWithSnapshot(daemon)
                try await daemon.send(Self.command(4, .push(.view("detail", type: "Detail"), onto: "app")), to: peer)
                _ = try await daemon.serve(until: "ACK 4", from: peer) { $0.ack?.seq == 4 ? true : nil }
                // A gap far behind: the daemon answers with a snapshot of another UI.
                try await daemon.send(Self.command(9, .pop(stack: "app")), to: peer)
                let (sync, _, _) = try await daemon.serve(until: "SYNC", from: peer) { $0.sync }
                #expect(sync.lastSeq == 4)
                var other = PresentationModel()
                _ = other.apply([
                    .setRoot(.tabs("tabs")),
                    .setTabs("tabs", [.view("a", type: "A"), .view("b", type: "B")], selected: 1),
                ])
                try await daemon.send(.ok(OKReply(req: sync.req, result: ["seq": 9, "mode": "snapshot"])), to: peer)
                try await daemon.send(
                    .snapshot(SnapshotMessage(session: "default", seq: 9, ui: UISnapshot(other))), to: peer)
                let (report, _, acks) = try await daemon.serve(until: "REPORT", from: peer) { $0.report }
                #expect(acks.contains(9))
                #expect(report.reports == Self.visible("tabs", "b"))
                try await daemon.send(.ok(OKReply(req: report.req)), to: peer)
                _ = try await Self.appliedSeqs(in: changes, through: 9)
                #expect(presenter.model == other)
                #expect(presenter.lastSeq == 9)
                // Commands at or below the snapshot's seq are old now.
                try await daemon.send(Self.command(9, .pop(stack: "app")), to: peer)
                try await daemon.send(Self.command(10, .selectTab("tabs", index: 0)), to: peer)
                _ = try await daemon.serve(until: "ACK 10", from: peer) { $0.ack?.seq == 10 ? true : nil }
                #expect(presenter.model.visiblePresentables == ["tabs", "a"])
            }
        }
    }

    // MARK: - What the daemon dropped (this client's queue was full)

    /// The daemon answered `SYNC` with `snapshot`, but the `SNAPSHOT` never came (dropped at a full queue) while its
    /// heartbeats go on: once the liveness window (3 × 500 ms) has passed, the next heartbeat makes the presenter
    /// `SYNC` again on the same connection, and it adopts the snapshot that comes then.
    @Test func aSnapshotThatNeverCameIsAskedForAgainAfterTheLivenessWindow() async throws {
        try await FakeDaemon.with(logger: testLogger) { daemon in
            let presenter = PresenterClient(name: "tui", configuration: daemon.configuration())
            try await whileRunning(presenter.run) {
                let (peer, _) = try await daemon.acceptHello(heartbeatMs: 500, keepingAlive: true)
                let (_, first) = try await daemon.expect("SYNC", from: peer) { $0.sync }
                let answered = ContinuousClock.now
                try await daemon.send(.ok(OKReply(req: first.req, result: ["seq": 3, "mode": "snapshot"])), to: peer)
                let (second, _, _) = try await daemon.whileSendingHeartbeats(["default": 3], to: peer) {
                    try await daemon.serve(until: "a second SYNC on the same connection", from: peer) { $0.sync }
                }
                #expect(ContinuousClock.now - answered >= .milliseconds(1500))
                #expect(second.lastSeq == 0)
                #expect(second.req != first.req)
                let snapshotAt3 = { (sync: Sync) -> [DaemonMessage] in
                    [
                        .ok(OKReply(req: sync.req, result: ["seq": 3, "mode": "snapshot"])),
                        .snapshot(SnapshotMessage(session: "default", seq: 3, ui: Self.ui)),
                    ]
                }
                for message in snapshotAt3(second) { try await daemon.send(message, to: peer) }
                let (report, _, acks) = try await daemon.serve(
                    until: "REPORT", from: peer, answeringSyncs: snapshotAt3) { $0.report }
                #expect(acks == [3])
                #expect(report.reports == Self.visible("app", "home"))
                #expect(presenter.lastSeq == 3)
                #expect(presenter.model.visiblePresentables == ["app", "home"])
            }
        }
    }

    /// A `SYNC` whose `OK` never came (dropped) is sent again after the liveness window, on the same connection (the
    /// daemon counts nothing visible until a `SYNC` is answered and the presenter reports); the late `OK` to the
    /// first one is ignored, the second one's replay is followed by the reports.
    @Test func aSyncWithoutAnAnswerIsSentAgainAfterTheLivenessWindow() async throws {
        try await FakeDaemon.with(logger: testLogger) { daemon in
            let presenter = PresenterClient(name: "tui", configuration: daemon.configuration())
            try await whileRunning(presenter.run) {
                let (peer, _, _) = try await Self.syncWithSnapshot(daemon, heartbeatMs: 500)
                // Command 5 shows a gap: SYNC after 3, which the daemon does not answer.
                let gapShown = ContinuousClock.now
                try await daemon.send(Self.command(5, .push(.view("more", type: "More"), onto: "app")), to: peer)
                let (first, second) = try await daemon.whileSendingHeartbeats(["default": 5], to: peer) {
                    let (first, _, _) = try await daemon.serve(until: "SYNC", from: peer) { $0.sync }
                    let (second, _, _) = try await daemon.serve(until: "SYNC again", from: peer) { $0.sync }
                    return (first, second)
                }
                #expect(ContinuousClock.now - gapShown >= .milliseconds(1500))
                #expect(first.lastSeq == 3)
                #expect(second.lastSeq == 3)
                #expect(second.req != first.req)
                try await daemon.send(.ok(OKReply(req: first.req, result: ["seq": 5, "mode": "snapshot"])), to: peer)
                try await daemon.send(.ok(OKReply(req: second.req, result: ["seq": 5, "mode": "replay"])), to: peer)
                let (reReport, _, _) = try await daemon.serve(
                    until: "REPORT", from: peer, answeringSyncs: Self.replayThrough5) { $0.report }
                #expect(reReport.reports == Self.visible("app", "home"))
                try await daemon.send(.ok(OKReply(req: reReport.req)), to: peer)
                try await daemon.send(Self.command(4, .push(.view("detail", type: "Detail"), onto: "app")), to: peer)
                try await daemon.send(Self.command(5, .push(.view("more", type: "More"), onto: "app")), to: peer)
                _ = try await daemon.serve(until: "ACK 5", from: peer, answeringSyncs: Self.replayThrough5) {
                    $0.ack?.seq == 5 ? true : nil
                }
                #expect(presenter.model.children(of: "app") == ["home", "detail", "more"])
            }
        }
    }

    /// A replay announced by the `OK` but dropped (the queue was full): the heartbeats that announce its commands do
    /// not make the presenter `SYNC` while they may still be on their way, only once the liveness window has passed.
    @Test func aReplayThatNeverCameIsAskedForAgainAfterTheLivenessWindow() async throws {
        try await FakeDaemon.with(logger: testLogger) { daemon in
            let presenter = PresenterClient(name: "tui", configuration: daemon.configuration())
            try await whileRunning(presenter.run) {
                let (peer, _, _) = try await Self.syncWithSnapshot(daemon, heartbeatMs: 500)
                try await daemon.send(.heartbeat(Heartbeat(sessions: ["default": 5])), to: peer)
                let (sync, _, _) = try await daemon.serve(until: "SYNC", from: peer) { $0.sync }
                let answered = ContinuousClock.now
                try await daemon.send(.ok(OKReply(req: sync.req, result: ["seq": 5, "mode": "replay"])), to: peer)
                let (again, reports, _) = try await daemon.whileSendingHeartbeats(["default": 5], to: peer) {
                    try await daemon.serve(until: "SYNC again", from: peer) { $0.sync }
                }
                #expect(ContinuousClock.now - answered >= .milliseconds(1500))
                #expect(reports == [Self.visible("app", "home")])
                #expect(again.lastSeq == 3)
                for message in Self.replayThrough5(again) { try await daemon.send(message, to: peer) }
                _ = try await daemon.serve(until: "ACK 5", from: peer, answeringSyncs: Self.replayThrough5) {
                    $0.ack?.seq == 5 ? true : nil
                }
                #expect(presenter.model.children(of: "app") == ["home", "detail", "more"])
            }
        }
    }

    /// A `SNAPSHOT` over 1 MiB (the daemon's own inbound bound; an application with many or large screens makes
    /// one) is taken in: a client accepts up to ``FlowClientConfiguration/defaultMaxMessageSize`` from its daemon.
    /// (Few screens with large data: a model of thousands of screens costs seconds of a debug build's CPU, which
    /// starves the other tests' clients of their heartbeats.)
    @Test func aSnapshotOverOneMebibyteIsAdopted() async throws {
        var large = PresentationModel()
        let poster = JSONValue.string(String(repeating: "0123456789abcdef", count: 4096))  // 64 KiB
        _ = large.apply(
            [.setRoot(.stack("app"))]
                + (0..<24).map { .push(.view(PresentableID("screen-\($0)"), type: "Poster", data: poster), onto: "app") }
        )
        let snapshot = SnapshotMessage(session: "default", seq: 7, ui: UISnapshot(large))
        #expect(WireCodec().encode(.snapshot(snapshot)).reduce(0) { $0 + $1.count } > 1 << 20)
        #expect(FlowClientConfiguration().socketOptions.maxMessageSize == 128 << 20)
        try await FakeDaemon.with(logger: testLogger) { daemon in
            let presenter = PresenterClient(name: "tui", configuration: daemon.configuration())
            try await whileRunning(presenter.run) {
                let (peer, _) = try await daemon.acceptHello()
                let (_, sync) = try await daemon.expect("SYNC", from: peer) { $0.sync }
                try await daemon.send(.ok(OKReply(req: sync.req, result: ["seq": 7, "mode": "snapshot"])), to: peer)
                try await daemon.send(.snapshot(snapshot), to: peer)
                let (report, _, acks) = try await daemon.serve(until: "REPORT", from: peer) { $0.report }
                #expect(acks == [7])
                #expect(report.reports == Self.visible("app", "screen-23"))
                #expect(presenter.model == large)
            }
        }
    }

    /// A `SNAPSHOT` larger than the client's largest message (`maxMessageSize`, 64 KiB here) never comes: libzmq
    /// drops the connection on it. The presenter counts it missed (``ScriptedPresenter`` and flowctl name the bound
    /// then) and syncs again; one that fits is adopted and ends the row.
    @Test func aSnapshotOverTheLargestMessageIsCountedMissedAndAskedForAgain() async throws {
        var large = PresentationModel()
        let poster = JSONValue.string(String(repeating: "0123456789abcdef", count: 4096))  // 64 KiB
        _ = large.apply([.setRoot(.stack("app")), .push(.view("home", type: "Poster", data: poster), onto: "app")])
        try await FakeDaemon.with(logger: testLogger) { daemon in
            var configuration = daemon.configuration()
            configuration.socketOptions.maxMessageSize = 64 << 10
            let presenter = PresenterClient(name: "tui", configuration: configuration)
            try await whileRunning(presenter.run) {
                let (peer, _) = try await daemon.acceptHello(heartbeatMs: 100, keepingAlive: true)
                let (_, first) = try await daemon.expect("SYNC", from: peer) { $0.sync }
                try await daemon.send(.ok(OKReply(req: first.req, result: ["seq": 7, "mode": "snapshot"])), to: peer)
                let oversized = SnapshotMessage(session: "default", seq: 7, ui: UISnapshot(large))
                try await daemon.send(.snapshot(oversized), to: peer)
                // The next SYNC: on this connection (the liveness window passed) or on a new one (after silence).
                var second: (peer: [UInt8], sync: Sync)?
                while second == nil {
                    let received = try await daemon.receive()
                    switch received.message {
                    case .hello(let hello):
                        let welcome = Welcome(req: hello.req, peer: "p2", daemon: "daemon-1", heartbeatMs: 60_000)
                        try await daemon.send(.welcome(welcome), to: received.peer)
                    case .sync(let sync) where sync.req != first.req: second = (received.peer, sync)
                    default: continue
                    }
                }
                #expect(presenter.missedSnapshots.count == 1)
                #expect(presenter.missedSnapshots.maxMessageSize == 64 << 10)
                #expect(presenter.model.visiblePresentables.isEmpty)
                let (again, sync) = second!
                try await daemon.send(.ok(OKReply(req: sync.req, result: ["seq": 7, "mode": "snapshot"])), to: again)
                try await daemon.send(.snapshot(SnapshotMessage(session: "default", seq: 7, ui: Self.ui)), to: again)
                _ = try await daemon.serve(until: "REPORT", from: again) { $0.report }
                #expect(presenter.missedSnapshots.count == 0)
                #expect(presenter.model.visiblePresentables == ["app", "home"])
            }
        }
    }

    @Test func afterASilentDaemonThePresenterReconnectsAndSyncsWithItsLastSeq() async throws {
        try await FakeDaemon.with(logger: testLogger) { daemon in
            let presenter = PresenterClient(name: "tui", configuration: daemon.configuration())
            try await whileRunning(presenter.run) {
                let (firstPeer, _, _) = try await Self.syncWithSnapshot(daemon, heartbeatMs: 300)
                daemon.fallSilent(toward: firstPeer)
                // Silence: the presenter starts again with a new socket, HELLO, and, as the daemon run is the same
                // (restarted from its journal, or never gone), SYNC after seq 3: the daemon replays what follows.
                let (secondPeer, _) = try await daemon.acceptHello()
                #expect(secondPeer != firstPeer)
                let (_, sync) = try await daemon.expect("SYNC", from: secondPeer) { $0.sync }
                #expect(sync.lastSeq == 3)
                try await daemon.send(
                    .ok(OKReply(req: sync.req, result: ["seq": 3, "mode": "replay"])), to: secondPeer)
                let (_, report) = try await daemon.expect("REPORT", from: secondPeer) { $0.report }
                #expect(report.reports == Self.visible("app", "home"))
            }
        }
    }

    @Test func afterANewDaemonRunThePresenterSyncsFromZeroAndAdoptsItsSnapshot() async throws {
        try await FakeDaemon.with(logger: testLogger) { daemon in
            let presenter = PresenterClient(name: "tui", configuration: daemon.configuration())
            try await whileRunning(presenter.run) {
                let (firstPeer, _, _) = try await Self.syncWithSnapshot(daemon, heartbeatMs: 300)
                daemon.fallSilent(toward: firstPeer)
                // Silence, then a daemon run that lost the state: its sequence numbers are not the ones applied here.
                let (secondPeer, _) = try await daemon.acceptHello(daemon: "daemon-2")
                #expect(secondPeer != firstPeer)
                let (_, sync) = try await daemon.expect("SYNC", from: secondPeer) { $0.sync }
                #expect(sync.lastSeq == 0)
                try await daemon.send(
                    .ok(OKReply(req: sync.req, result: ["seq": 1, "mode": "snapshot"])), to: secondPeer)
                try await daemon.send(
                    .snapshot(SnapshotMessage(session: "default", seq: 1, ui: Self.ui)), to: secondPeer)
                _ = try await daemon.serve(until: "ACK 1", from: secondPeer) { $0.ack?.seq == 1 ? true : nil }
                #expect(presenter.lastSeq == 1)
                #expect(presenter.model.visiblePresentables == ["app", "home"])
            }
        }
    }

    @Test func aPresenterToldSessionEndedSyncsTheIDAgainFromSeqZero() async throws {
        try await FakeDaemon.with(logger: testLogger) { daemon in
            let presenter = PresenterClient(name: "tui", createSession: true, configuration: daemon.configuration())
            try await whileRunning(presenter.run) {
                let (firstPeer, _, _) = try await Self.syncWithSnapshot(daemon, heartbeatMs: 300)
                // END_SESSION (docs/PROTOCOL.md §4): an empty SNAPSHOT at the last seq, then the notice.
                let empty = SnapshotMessage(session: "default", seq: 3, ui: UISnapshot(PresentationModel()))
                try await daemon.send(.snapshot(empty), to: firstPeer)
                _ = try await daemon.serve(until: "ACK 3", from: firstPeer) { $0.ack?.seq == 3 ? true : nil }
                let notice = ErrorReply(req: nil, code: .sessionEnded, message: "ended", type: "END_SESSION")
                try await daemon.send(.error(notice), to: firstPeer)
                daemon.fallSilent(toward: firstPeer)
                // Silence, then the same daemon run: an operator may have created the ID anew, its seq starting
                // again, so the presenter syncs from 0 rather than after the ended session's 3.
                let (secondPeer, _) = try await daemon.acceptHello()
                #expect(secondPeer != firstPeer)
                let (_, sync) = try await daemon.expect("SYNC", from: secondPeer) { $0.sync }
                #expect(sync.lastSeq == 0)
                #expect(sync.create)
            }
        }
    }

    @Test func aDismissalMadeWhileDisconnectedIsReportedAfterTheNextSync() async throws {
        try await FakeDaemon.with(logger: testLogger) { daemon in
            let presenter = PresenterClient(name: "tui", configuration: daemon.configuration())
            try await whileRunning(presenter.run) {
                let (firstPeer, _, _) = try await Self.syncWithSnapshot(daemon, heartbeatMs: 300)
                try await daemon.send(
                    Self.command(4, .push(.view("detail", type: "Detail"), onto: "app")), to: firstPeer)
                let (report, _, _) = try await daemon.serve(until: "REPORT", from: firstPeer) { $0.report }
                try await daemon.send(.ok(OKReply(req: report.req)), to: firstPeer)
                daemon.fallSilent(toward: firstPeer)
                // Silence: the presenter reconnects. Before the daemon welcomes it, the person goes back.
                let (secondPeer, hello) = try await daemon.expect("HELLO") { message -> Hello? in
                    guard case .hello(let hello) = message, hello.req > 1 else { return nil }
                    return hello
                }
                #expect(secondPeer != firstPeer)
                try await presenter.tapBack(in: "app")
                #expect(presenter.model.visiblePresentables == ["app", "home"])
                try await daemon.send(
                    .welcome(Welcome(req: hello.req, peer: "p2", daemon: "daemon-1", heartbeatMs: 60_000)),
                    to: secondPeer
                )
                let (_, sync) = try await daemon.expect("SYNC", from: secondPeer) { $0.sync }
                #expect(sync.lastSeq == 4)
                try await daemon.send(
                    .ok(OKReply(req: sync.req, result: ["seq": 4, "mode": "replay"])), to: secondPeer)
                let (_, reReport) = try await daemon.expect("REPORT", from: secondPeer) { $0.report }
                #expect(
                    reReport.reports == [PresentableReport(presentable: "detail", state: .dismissed)]
                        + Self.visible("app", "home")
                )
            }
        }
    }

    @Test func aSyncRefusedBecauseAnotherPresenterHostsTheSessionEndsRun() async throws {
        try await FakeDaemon.with(logger: testLogger) { daemon in
            let presenter = PresenterClient(name: "second", configuration: daemon.configuration())
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    await #expect(throws: DaemonError(code: .sessionHosted, message: "")) { try await presenter.run() }
                }
                let (peer, _) = try await daemon.acceptHello()
                let (_, sync) = try await daemon.expect("SYNC", from: peer) { $0.sync }
                try await daemon.send(
                    .error(ErrorReply(req: sync.req, code: .sessionHosted, message: "hosted by 'tui'", type: "SYNC")),
                    to: peer
                )
                try await group.waitForAll()
            }
        }
    }

    @Test func aPersonsOperationsChangeTheModelAndAreReported() async throws {
        try await FakeDaemon.with(logger: testLogger) { daemon in
            let presenter = PresenterClient(name: "tui", configuration: daemon.configuration())
            try await whileRunning(presenter.run) {
                let (peer, _, _) = try await Self.syncWithSnapshot(daemon)
                try await daemon.send(Self.command(4, .push(.view("detail", type: "Detail"), onto: "app")), to: peer)
                _ = try await daemon.serve(until: "ACK 4", from: peer) { $0.ack?.seq == 4 ? true : nil }
                let (_, pushReport) = try await daemon.expect("REPORT after push", from: peer) { $0.report }
                try await daemon.send(.ok(OKReply(req: pushReport.req)), to: peer)

                async let back: Void = presenter.tapBack(in: "app")
                let (_, report) = try await daemon.expect("REPORT after back", from: peer) { $0.report }
                #expect(
                    report.reports == [
                        PresentableReport(presentable: "detail", state: .dismissed),
                        PresentableReport(presentable: "home", state: .visible),
                    ]
                )
                try await daemon.send(.ok(OKReply(req: report.req)), to: peer)
                try await back
                #expect(presenter.model.children(of: "app") == ["home"])

                await #expect(throws: PresentationError.nothingToGoBackTo("app")) {
                    try await presenter.tapBack(in: "app")
                }

                async let delivered = presenter.userAction(Step("pickCast", payload: 4), on: "home")
                let (_, action) = try await daemon.expect("USER_ACTION", from: peer) { message -> UserAction? in
                    if case .userAction(let body) = message { body } else { nil }
                }
                #expect(action.presentable == "home")
                #expect(action.action == Step("pickCast", payload: 4))
                try await daemon.send(.ok(OKReply(req: action.req, result: ["delivered": 1])), to: peer)
                #expect(try await delivered == 1)
            }
        }
    }
}
