import FlowCore
@testable import FlowDaemon
import FlowWire
import FlowdTesting
import TestFlows
import Testing

/// Compaction saves each session's live state as data (a `state` record) in place of its history, and recovery makes
/// the session again from it (docs/RELIABILITY.md, "State snapshots"); a session that cannot be saved keeps its
/// history, counted.
struct StateSnapshotTests {
    let tui = Peers.tui
    let movies = Peers.movies
    let ops = Peers.flowctl

    /// A daemon with the presenter showing `home` and the stepper process serving every kind.
    func served(_ application: TestApplication = TestApplication()) -> DaemonHarness {
        let harness = DaemonHarness(application: application, journaling: true)
        harness.presenter(tui, name: "tui")
        harness.hello(movies, .stepper, name: "movies", serves: ["home", "detail", "settings", "tab"])
        harness.hello(ops, .operator, name: "ops")
        harness.report(tui, [("app", .visible), ("home", .visible)])
        return harness
    }

    /// The kinds of the records a history holds, in order.
    func kinds(_ history: [[UInt8]]) throws -> [String] {
        try history.map { bytes in
            switch try JournalRecord(decoding: bytes).kind {
            case .daemon: "daemon"
            case .sessionCreated: "session"
            case .sessionEnded: "ended"
            case .input: "input"
            case .report: "report"
            case .snapshotAdopted: "adopted"
            case .state: "state"
            case .stepWindows: "steps"
            case .compositeLeaves: "leaves"
            }
        }
    }

    @Test("A session saved as data is one record however long its history, and comes back the same")
    func aSavedSessionIsOneRecordAndComesBackTheSame() throws {
        let harness = served()
        for req in UInt64(10)..<UInt64(60) {
            harness.step(movies, Step("openDetail", payload: .int(Int(req))), attachment: 2, req: req)
            harness.step(movies, Step("back"), attachment: 2, req: req + 1000)
        }
        harness.deepLink(ops, Step("openSettings"), req: 3)
        let before = harness.core.journalRecordCount
        #expect(before > 100)

        let compaction = harness.core.compactJournal()
        #expect(compaction.saved == 1 && compaction.keptAsHistory.isEmpty)
        #expect(harness.core.journalRecordCount == 2)
        #expect(try kinds(harness.core.journalHistory) == ["daemon", "state", "steps"])

        let restarted = try harness.restarted()
        harness.handle(.peerUnreachable(tui))
        #expect(restarted.state() == harness.state())
        #expect(restarted.core.journalRecordCount == 3, "daemon, state, and the `lost` input of the restart")
    }

    @Test("After a restart from a state snapshot the daemon serves as before: ATTACH again, replay, STEP verdicts")
    func aRestoredSessionServesAsBefore() throws {
        let harness = served()
        harness.step(movies, Step("openDetail", payload: 7), attachment: 2, req: 10)
        let seqRead = harness.core.seq(of: "default")
        let seq = try #require(seqRead)
        harness.core.compactJournal()

        let restarted = try harness.restarted()
        let welcomed = restarted.hello(movies, .stepper, name: "movies", serves: ["home", "detail"])
        let attachments = welcomed.to(movies).compactMap { message -> Int? in
            if case .attach(let attach) = message { return attach.attachment }
            return nil
        }
        #expect(attachments == [2, 3], "the same attachments, assigned again")
        let synced = restarted.presenter(tui, name: "tui", lastSeq: seq - 1)
        #expect(synced.to(tui).first == ok(2, ["seq": .int(Int(seq)), "mode": "replay"]))
        #expect(synced.to(tui).dropFirst().first == command(seq, .push(Screens.detail(7), onto: "app")))
        restarted.report(tui, [("app", .visible), ("home", .visible)])
        let again = restarted.step(movies, Step("openDetail", payload: 7), attachment: 2, req: 10)
        #expect(again.to(movies) == [ok(10, ["accepted": true, "duplicate": true])], "the windows were saved")
        #expect(restarted.core.seq(of: "default") == seq, "not applied again")
    }

    @Test("A session waiting for an adaptation keeps its history, and is saved once the adaptation completed")
    func aSessionNotAtRestKeepsItsHistory() throws {
        let harness = served()
        harness.step(movies, Step("openDetailLater", payload: 5), attachment: 2, req: 10)
        let waiting = harness.core.compactJournal()
        #expect(waiting.keptAsHistory == ["notAtRest": 1])
        #expect(harness.core.counters.sessionsKeptAsHistory == ["notAtRest": 1])
        guard case .object(let counters) = harness.core.counters.json(hibernatedNow: 0) else { Issue.record("counters"); return }
        #expect(counters["sessions_kept_as_history"] == ["notAtRest": 1])
        #expect(try kinds(harness.core.journalHistory).contains("state") == false)

        // Restarted while it waits: the adaptation runs again from the replayed history.
        let restarted = try harness.restarted()
        #expect(restarted.started.local.filter { $0.hasPrefix("adapt ") } == ["adapt default \(AdaptRequestID(1))"])

        harness.handle(.adaptCompleted(session: "default", request: AdaptRequestID(1), step: Step("openDetail", payload: 5)))
        #expect(harness.core.ui(of: "default")?.contains("detail.5") == true)
        let rested = harness.core.compactJournal()
        #expect(rested.saved == 1 && rested.keptAsHistory.isEmpty)
        #expect(try kinds(harness.core.journalHistory) == ["daemon", "state", "steps"])
    }

    @Test("An application that restores no flows keeps every session's history; a saved state it cannot restore refuses the start")
    func withoutRestorationSessionsStayHistory() throws {
        let harness = served(TestApplication(restorable: false))
        harness.step(movies, Step("openDetail", payload: 7), attachment: 2, req: 10)
        let compaction = harness.core.compactJournal()
        #expect(compaction.keptAsHistory == ["notRestorable": 1])
        let history = harness.core.journalHistory
        #expect(try kinds(history).filter { $0 == "state" }.isEmpty)
        let restarted = try harness.restarted()
        harness.handle(.peerUnreachable(tui))
        #expect(restarted.state() == harness.state())

        // The same state saved by a restorable build, read by one that restores nothing: refused by name.
        let saving = served()
        saving.step(movies, Step("openDetail", payload: 7), attachment: 2, req: 10)
        saving.core.compactJournal()
        let error = #expect(throws: RecoveryError.self) {
            try harness.restarted(journal: saving.core.journalHistory)
        }
        #expect(error?.code == .unrestorable)
        #expect(error?.message.contains("session 'default' cannot be restored") == true)
    }

    @Test("A session whose root flow ended (its root dismissed) is saved, restored and served after a restart")
    func aSessionWhoseRootFlowEndedComesBack() throws {
        let harness = served()
        harness.step(movies, Step("openDetail", payload: 7), attachment: 2, req: 10)
        harness.report(tui, [("app", .dismissed)], req: 4)
        #expect(harness.state().contains("(no flow)"), "the root flow ended with its root")
        let seqRead = harness.core.seq(of: "default")
        let seq = try #require(seqRead)

        let compaction = harness.core.compactJournal()
        #expect(compaction.saved == 1 && compaction.keptAsHistory.isEmpty)
        let restarted = try harness.restarted()
        harness.handle(.peerUnreachable(tui))
        #expect(restarted.state() == harness.state())
        let synced = restarted.presenter(tui, name: "tui", lastSeq: seq)
        #expect(synced.to(tui).first == ok(2, ["seq": .int(Int(seq)), "mode": "replay"]), "served, not unrestorable")
    }

    @Test("An ended session leaves nothing in a snapshot")
    func anEndedSessionLeavesNothing() throws {
        let harness = served()
        harness.receive(.createSession(SessionRequest(req: 5, session: "kiosk")), from: ops)
        harness.deepLink(ops, Step("openDetail", payload: 3), session: "kiosk", req: 6)
        harness.receive(.endSession(SessionRequest(req: 7, session: "kiosk")), from: ops)
        harness.core.compactJournal()
        let sessions = try harness.core.journalHistory.map { try JournalRecord(decoding: $0).session }
        #expect(Set(sessions) == ["", "default"], "nothing of 'kiosk'")
        let restarted = try harness.restarted()
        #expect(restarted.core.sessionIDs == ["default"])
    }

    @Test("A compaction visits the sessions changed since the last one, and the snapshot keeps sessions in ID order")
    func aCompactionVisitsWhatChanged() throws {
        let harness = served()
        for (index, name) in ["k3", "k1", "k2", "a9"].enumerated() {
            harness.receive(.createSession(SessionRequest(req: UInt64(5 + index), session: name)), from: ops)
        }
        harness.deepLink(ops, Step("openDetail", payload: 3), session: "k1", req: 20)
        let before = harness.core.sessionVisits
        let compaction = harness.core.compactJournal()
        let after = harness.core.sessionVisits
        #expect(compaction.saved == 2 && compaction.unchanged == 3, "default and k1 saved; a9, k2, k3 one record each")
        #expect(after.walks == before.walks && after.lookups - before.lookups == 2, "no walk: only what changed")
        let again = harness.core.compactJournal()
        #expect(again.saved == 0 && again.unchanged == 5)

        let sessions = try harness.core.journalHistory.map { try JournalRecord(decoding: $0).session }
        #expect(sessions.first == "", "the daemon's record first")
        #expect(sessions.dropFirst().filter { !$0.isEmpty } == ["a9", "default", "k1", "k2", "k3"], "then by ID")
        let restarted = try harness.restarted()
        #expect(restarted.core.sessionIDs == ["a9", "default", "k1", "k2", "k3"])
        #expect(restarted.state(of: "k1") == harness.state(of: "k1"))
    }

    @Test("A snapshot's payload is in ID order whatever order it is given")
    func aPayloadIsInIDOrder() {
        var log = JournalLog(enabled: true)
        for session in ["b", "a", "c"] { log.append(JournalRecord(session: session, kind: .sessionCreated(app: nil))) }
        log.append(JournalRecord(session: "a", kind: .snapshotAdopted))
        let sorted = log.payload(sortedIDs: ["a", "b", "c"], trailer: nil)
        #expect(log.changedSessions == ["a"])
        for order in [["b", "a", "c"], ["a", "b"], ["a", "b", "c", "d"], [], ["a", "a", "b", "c"]] {
            #expect(log.payload(sortedIDs: order, trailer: nil) == sorted, "given \(order)")
        }
        let sessions = (try? JournalSnapshot.records(in: sorted))?.compactMap { try? JournalRecord(decoding: $0).session }
        #expect(sessions == ["a", "a", "b", "c"])
    }

    @Test("A state record is read back as written")
    func aStateRecordRoundTrips() throws {
        let harness = served()
        harness.step(movies, Step("openDetail", payload: ["id": 7, "title": "Up"]), attachment: 2, req: 10)
        harness.deepLink(ops, Step("openTabs"), req: 3)
        harness.core.compactJournal()
        for bytes in harness.core.journalHistory {
            let record = try JournalRecord(decoding: bytes)
            #expect(record.encoded == bytes)
            if case .state(let state, _, _, _) = record.kind {
                #expect(state.seq == harness.core.seq(of: "default"))
                #expect(state.ui == harness.core.ui(of: "default"))
                #expect(state.tree.attachments.map(\.stepper.type).contains("ActionStepper"))
            }
        }
    }
}
