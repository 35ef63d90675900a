import FlowClientTesting
import FlowCore
import FlowWire
import Testing

@testable import FlowClient

/// The presenter's synchronisation without sockets or a clock: every input and instant is made by the test, nothing
/// waits.
@Suite struct PresenterSyncMachineTests {
    /// 3 liveness intervals, a 30 s request timeout.
    static let timing = PresenterSyncMachine.Timing(FlowClientConfiguration(logger: testLogger))
    let start = ContinuousClock.now

    /// The UI at seq 3: a stack `app` showing `home`.
    static let ui: UISnapshot = {
        var model = PresentationModel()
        _ = model.apply([.setRoot(.stack("app")), .push(.view("home", type: "Home"), onto: "app")])
        return UISnapshot(model)
    }()

    static func welcome(heartbeatMs: Int = 500) -> Welcome {
        Welcome(req: 1, peer: "p", daemon: "d1", heartbeatMs: heartbeatMs)
    }

    static func command(_ seq: UInt64, _ command: NavigationCommand, session: String = "default") -> CommandMessage {
        CommandMessage(session: session, seq: seq, command: command)
    }

    static func push(_ seq: UInt64, _ id: PresentableID) -> CommandMessage {
        command(seq, .push(.view(id, type: "Screen"), onto: "app"))
    }

    static func visible(_ ids: PresentableID...) -> [PresentableReport] {
        ids.map { PresentableReport(presentable: $0.rawValue, state: .visible) }
    }

    static func acks(_ actions: [PresenterSyncAction]) -> [UInt64] {
        actions.compactMap { if case .ack(let ack) = $0 { ack.seq } else { nil } }
    }

    static func syncs(_ actions: [PresenterSyncAction]) -> [UInt64] {
        actions.compactMap { if case .sync(let lastSeq, _) = $0 { lastSeq } else { nil } }
    }

    static func reports(_ actions: [PresenterSyncAction]) -> [PresenterReport] {
        actions.compactMap { if case .report(let report, _) = $0 { report } else { nil } }
    }

    static func changes(_ actions: [PresenterSyncAction]) -> [PresenterChange] {
        actions.compactMap { if case .publish(let change) = $0 { change } else { nil } }
    }

    static func failure(_ actions: [PresenterSyncAction]) -> (any Error)? {
        for case .fail(let error) in actions { return error }
        return nil
    }

    static func replay(through seq: Int) -> SyncAnswer { .ok(["seq": .int(seq), "mode": "replay"]) }
    static func snapshot(at seq: Int) -> SyncAnswer { .ok(["seq": .int(seq), "mode": "snapshot"]) }

    /// A machine welcomed by a daemon with 500 ms heartbeats, synced to ``ui`` at seq 3 by a snapshot, its report
    /// confirmed.
    func synced() -> PresenterSyncMachine {
        var machine = PresenterSyncMachine(session: "default", timing: Self.timing, logger: testLogger)
        _ = machine.connected(Self.welcome(), daemonChanged: false)
        _ = machine.syncAnswered(Self.snapshot(at: 3), at: start)
        for report in Self.reports(machine.received(SnapshotMessage(session: "default", seq: 3, ui: Self.ui))) {
            machine.confirmed(report)
        }
        return machine
    }

    @Test func aWelcomeSyncsAndTheAnnouncedSnapshotReplacesTheModelIsAcknowledgedAndReported() {
        var machine = PresenterSyncMachine(session: "default", timing: Self.timing, logger: testLogger)
        let connected = machine.connected(Self.welcome(heartbeatMs: 500), daemonChanged: false)
        // The liveness window (3 × 500 ms) is shorter than the request timeout: it bounds the wait.
        guard case .sync(0, let timeout) = connected.first, connected.count == 1 else {
            Issue.record("expected one SYNC after 0, got \(connected)")
            return
        }
        #expect(timeout == .milliseconds(1500))
        #expect(machine.syncAnswered(Self.snapshot(at: 3), at: start).isEmpty)
        #expect(machine.phase == .awaitingSnapshot(since: start))
        // Commands before the snapshot are covered by it.
        #expect(machine.received([Self.push(4, "early")]).isEmpty)
        let adopted = machine.received(SnapshotMessage(session: "default", seq: 3, ui: Self.ui))
        #expect(Self.acks(adopted) == [3])
        #expect(Self.reports(adopted).map(\.reports) == [Self.visible("app", "home")])
        #expect(Self.changes(adopted).map(\.cause) == [.snapshot(seq: 3)])
        #expect(machine.lastSeq == 3 && machine.phase == .idle)
        #expect(machine.model.visiblePresentables == ["app", "home"])
        // An older snapshot, or another session's, changes nothing.
        let empty = UISnapshot(PresentationModel())
        #expect(machine.received(SnapshotMessage(session: "default", seq: 2, ui: empty)).isEmpty)
        #expect(machine.received(SnapshotMessage(session: "other", seq: 9, ui: empty)).isEmpty)
        #expect(machine.lastSeq == 3)
    }

    @Test func commandsInOrderAreAppliedOnceAsOneBatchAcknowledgedAndReported() {
        var machine = synced()
        let batch = machine.received([Self.push(4, "detail"), Self.push(4, "detail"), Self.push(5, "more")])
        #expect(Self.acks(batch) == [5])
        #expect(Self.syncs(batch).isEmpty)
        #expect(Self.changes(batch).map(\.cause) == [.commands([Self.push(4, "detail"), Self.push(5, "more")])])
        #expect(Self.changes(batch).map(\.lastSeq) == [5])
        #expect(
            Self.reports(batch).map(\.reports) == [
                // The net change of the batch: `detail`, pushed and covered in it, is never reported visible.
                [PresentableReport(presentable: "home", state: .hidden)] + Self.visible("more")
            ])
        #expect(machine.model.children(of: "app") == ["home", "detail", "more"])
        // Duplicates, old ones and other sessions' commands: nothing applied; the duplicates acknowledged again.
        let old = machine.received([Self.push(5, "again"), Self.command(2, .setRoot(.stack("other")))])
        #expect(Self.acks(old) == [5] && Self.changes(old).isEmpty && Self.reports(old).isEmpty)
        #expect(machine.received([Self.command(6, .pop(stack: "app"), session: "other")]).isEmpty)
        #expect(machine.lastSeq == 5)
    }

    @Test func aGapSyncsAfterTheLastAppliedSeqAndTheReplayReReportsWhatIsVisible() {
        var machine = synced()
        let gap = machine.received([Self.push(5, "more")])
        #expect(Self.syncs(gap) == [3])
        #expect(Self.acks(gap).isEmpty && Self.changes(gap).isEmpty)
        // While the SYNC is in flight, a gap is no news.
        #expect(machine.received([Self.push(6, "later")]).isEmpty)
        let replay = machine.syncAnswered(Self.replay(through: 5), at: start)
        #expect(Self.reports(replay).map(\.reports) == [Self.visible("app", "home")])
        #expect(machine.phase == .replaying(through: 5, since: start))
        let filled = machine.received([Self.push(4, "detail"), Self.push(5, "more")])
        #expect(Self.acks(filled) == [5] && Self.syncs(filled).isEmpty)
        #expect(machine.phase == .idle)
        #expect(machine.model.children(of: "app") == ["home", "detail", "more"])
    }

    @Test func aHeartbeatAnnouncingAHigherSeqSyncsButNotWhileASyncOrItsAnswerIsOnItsWay() {
        var machine = synced()
        #expect(machine.received(Heartbeat(sessions: ["default": 3, "other": 9]), at: start).isEmpty)
        #expect(Self.syncs(machine.received(Heartbeat(sessions: ["default": 4]), at: start)) == [3])
        #expect(machine.received(Heartbeat(sessions: ["default": 4]), at: start).isEmpty)
        _ = machine.syncAnswered(Self.replay(through: 4), at: start)
        // The replay may still be on its way: no SYNC within the liveness window (1.5 s) of its announcement.
        #expect(machine.received(Heartbeat(sessions: ["default": 4]), at: start + .milliseconds(1499)).isEmpty)
        let overdue = machine.received(Heartbeat(sessions: ["default": 4]), at: start + .milliseconds(1500))
        #expect(Self.syncs(overdue) == [3])
    }

    @Test func aSnapshotThatNeverCameIsAskedForAgainAfterTheLivenessWindow() {
        var machine = PresenterSyncMachine(session: "default", timing: Self.timing, logger: testLogger)
        _ = machine.connected(Self.welcome(), daemonChanged: false)
        _ = machine.syncAnswered(Self.snapshot(at: 3), at: start)
        #expect(machine.received(Heartbeat(sessions: ["default": 3]), at: start + .seconds(1)).isEmpty)
        #expect(Self.syncs(machine.received(Heartbeat(), at: start + .seconds(2))) == [0])
    }

    @Test func aSyncWithoutAnAnswerIsSentAgainAndALateAnswerToItIsIgnored() {
        var machine = synced()
        _ = machine.received([Self.push(5, "more")])
        #expect(Self.syncs(machine.syncAnswered(.timedOut, at: start)) == [3])
        _ = machine.syncAnswered(Self.replay(through: 5), at: start)
        // Answered: a second answer has no SYNC to belong to.
        #expect(machine.syncAnswered(Self.snapshot(at: 5), at: start).isEmpty)
        #expect(machine.phase == .replaying(through: 5, since: start))
    }

    @Test func aSyncAnsweredBehindWhatWasAppliedStartsOverFromZero() {
        var machine = synced()
        _ = machine.received([Self.push(4, "detail")])
        _ = machine.received(Heartbeat(sessions: ["default": 6]), at: start)
        #expect(Self.syncs(machine.syncAnswered(Self.replay(through: 2), at: start)) == [0])
        #expect(machine.lastSeq == 0)
    }

    @Test func aSyncWithoutAConnectionWaitsForTheNextWelcome() {
        var machine = synced()
        _ = machine.received(Heartbeat(sessions: ["default": 4]), at: start)
        #expect(machine.syncAnswered(.unanswered(FlowClientError(.connectionLost, "gone")), at: start).isEmpty)
        #expect(machine.phase == .idle)
        machine.disconnected()
        #expect(Self.syncs(machine.connected(Self.welcome(), daemonChanged: false)) == [3])
    }

    @Test func aRefusedSyncOrAnAnswerWithoutSeqAndModeStopsThePresenter() {
        var machine = synced()
        _ = machine.received(Heartbeat(sessions: ["default": 4]), at: start)
        let refused = machine.syncAnswered(
            .refused(DaemonError(code: .sessionHosted, message: "hosted by 'tui'")), at: start)
        #expect((Self.failure(refused) as? DaemonError)?.code == .sessionHosted)
        _ = machine.received(Heartbeat(sessions: ["default": 4]), at: start)
        let malformed = machine.syncAnswered(.ok(["seq": 4]), at: start)
        #expect((Self.failure(malformed) as? FlowClientError)?.code == .badReply)
    }

    @Test func aNewDaemonRunSyncsFromZeroAndForgetsTheUnconfirmedDismissals() {
        var machine = synced()
        _ = machine.received([Self.push(4, "detail")])
        _ = try? machine.perform(.tapBack(stack: "app"))
        #expect(machine.unconfirmedDismissals == ["detail"])
        machine.disconnected()
        #expect(Self.syncs(machine.connected(Self.welcome(), daemonChanged: true)) == [0])
        #expect(machine.unconfirmedDismissals.isEmpty)
        let replay = machine.syncAnswered(Self.replay(through: 0), at: start)
        #expect(Self.reports(replay).map(\.reports) == [Self.visible("app", "home")])
    }

    @Test func aDismissalNotConfirmedIsReportedAgainAfterTheNextSyncAndAConfirmedOneIsNot() throws {
        var machine = synced()
        _ = machine.received([Self.push(4, "detail"), Self.push(5, "more")])
        // The person goes back twice; only the first report is answered before the connection is lost.
        let first = try machine.perform(.tapBack(stack: "app"))
        let second = try machine.perform(.tapBack(stack: "app"))
        #expect(Self.changes(second).map(\.cause) == [.userOperation(.tapBack(stack: "app"))])
        #expect(Self.reports(first).map(\.dismissed) == [["more"]])
        guard case .report(let report, let timeout) = first.first else {
            Issue.record("expected a REPORT first, got \(first)")
            return
        }
        #expect(timeout == .seconds(30))
        machine.confirmed(report)
        machine.disconnected()
        _ = machine.connected(Self.welcome(), daemonChanged: false)
        let replay = machine.syncAnswered(Self.replay(through: 5), at: start)
        #expect(
            Self.reports(replay).map(\.reports) == [
                [PresentableReport(presentable: "detail", state: .dismissed)] + Self.visible("app", "home")
            ])
    }

    @Test func anOperationTheUIDoesNotAllowChangesNothing() {
        var machine = synced()
        #expect(throws: PresentationError.nothingToGoBackTo("app")) { try machine.perform(.tapBack(stack: "app")) }
        #expect(machine.model.visiblePresentables == ["app", "home"])
        #expect(machine.unconfirmedDismissals.isEmpty)
    }

    /// A `SNAPSHOT` announced that does not come (the connection ends first, or the liveness window passes) is
    /// counted, in a row, and the first of a row logged as an error naming the client's largest message: one larger
    /// never comes (libzmq drops the connection on it), and flowctl used to say only that flowd did not answer.
    @Test func aSnapshotAnnouncedThatDoesNotComeIsCountedAndNamesTheLargestMessage() {
        let recorder = LogRecorder()
        var machine = PresenterSyncMachine(
            session: "default", timing: Self.timing, logger: recorder.logger(label: "presenter"))
        _ = machine.connected(Self.welcome(), daemonChanged: false)
        #expect(machine.syncAnswered(Self.snapshot(at: 3), at: start).isEmpty)
        machine.disconnected()
        #expect(machine.missedSnapshots == 1)
        _ = machine.connected(Self.welcome(), daemonChanged: false)
        _ = machine.syncAnswered(Self.snapshot(at: 3), at: start)
        // Within the liveness window (3 of 500 ms) it still waits; past it, it asks again.
        #expect(machine.received(Heartbeat(sessions: ["default": 3]), at: start + .milliseconds(1499)).isEmpty)
        let again = machine.received(Heartbeat(sessions: ["default": 3]), at: start + .milliseconds(1500))
        #expect(Self.syncs(again) == [0])
        #expect(machine.missedSnapshots == 2)

        let lines = recorder.lines.withLock { $0 }.filter { $0.message.hasPrefix("the SNAPSHOT flowd announced") }
        #expect(lines.map(\.level) == [.error, .warning])
        #expect(
            lines.first?.message
                == "the SNAPSHOT flowd announced did not come (the connection ended first): one larger than this "
                + "client's largest message (maxMessageSize: 134217728 bytes) never comes, as its connection drops it")
        #expect(lines.last?.message.contains("(not within 1.5 seconds)") == true, "\(lines)")

        // The SNAPSHOT that comes ends the row.
        _ = machine.syncAnswered(Self.snapshot(at: 3), at: start + .milliseconds(1500))
        _ = machine.received(SnapshotMessage(session: "default", seq: 3, ui: Self.ui))
        #expect(machine.missedSnapshots == 0)
    }

    @Test func afterSessionEndedTheNextSyncSaysLastSeqZero() {
        var machine = synced()
        _ = machine.received([Self.push(4, "detail")])
        // END_SESSION: the empty SNAPSHOT at the last seq, then the notice sessionEnded (docs/PROTOCOL.md §4).
        _ = machine.received(SnapshotMessage(session: "default", seq: 4, ui: UISnapshot(PresentationModel())))
        #expect(machine.lastSeq == 4)
        let ended = Self.changes(machine.sessionEnded())
        #expect(machine.lastSeq == 0)
        // The app is told (a scripted presenter ends on it), with the emptied UI.
        #expect(ended.map(\.cause) == [.sessionEnded])
        #expect(ended.map(\.model.visiblePresentables) == [[]])
        #expect(ended.map(\.lastSeq) == [0])
        // The ID created anew starts its seq again: a SYNC after 4 would take its first commands for applied ones.
        #expect(Self.syncs(machine.connected(Self.welcome(), daemonChanged: false)) == [0])
    }
}
