import FlowCore
import FlowDaemon
import FlowWire
import FlowdTesting
import TestFlows
import Testing

/// A daemon that journals its changes and is restarted from the journal (``DaemonHarness/restarted(journal:)``)
/// comes back with every session exactly as it was: tree, UI, command sequence numbers and outbox, its daemon ID,
/// and the verdicts of the STEPs it answered.
struct RecoveryTests {
    let tui = Peers.tui
    let movies = Peers.movies
    let ops = Peers.flowctl

    /// One operation of the journey, on a harness.
    typealias Operation = (DaemonHarness) -> Void

    /// A journey through every kind of change: presenter sync and reports (visible, hidden, dismissed by a person),
    /// remote steps (accepted, dropped), deep links, a child flow ended, a second session, a presenter lost.
    var journey: [Operation] {
        [
            { $0.presenter(tui, name: "tui") },
            { $0.hello(movies, .stepper, name: "movies", serves: ["home", "detail", "settings"]) },
            { $0.hello(ops, .operator, name: "ops") },
            { $0.report(tui, [("app", .visible), ("home", .visible)]) },
            { $0.step(movies, Step("openDetail", payload: 7), attachment: 2, req: 10) },
            { $0.step(movies, Step("openDetail", payload: 8), attachment: 2, req: 11) },  // home hidden? not yet
            { $0.report(tui, [("home", .hidden), ("detail.7", .visible)], req: 4) },
            { $0.step(movies, Step("openDetail", payload: 9), attachment: 2, req: 12) },  // dropped: home not visible
            { $0.deepLink(ops, Step("openSettings"), req: 3) },
            { $0.report(tui, [("settings", .visible), ("settings.list", .visible)], req: 5) },
            { $0.deepLink(ops, Step("settingsDone"), req: 4) },
            { $0.report(tui, [("detail.7", .dismissed)], req: 6) },  // a person went back
            { $0.receive(.createSession(SessionRequest(req: 5, session: "kiosk")), from: ops) },
            { $0.deepLink(ops, Step("openDetail", payload: 3), session: "kiosk", req: 6) },
            { $0.receive(.bye, from: tui) },
            { $0.presenter(Peers.tuiRestarted, name: "tui", lastSeq: 2) },
            { $0.report(Peers.tuiRestarted, [("app", .visible), ("home", .visible)], req: 7) },
        ]
    }

    @Test("Restarted after any operation of a journey, the daemon has the same sessions, trees, UI and seq")
    func restartAnywhereRebuildsTheSameState() throws {
        let operations = journey
        for cut in 0...operations.count {
            let harness = DaemonHarness(journaling: true)
            for operation in operations.prefix(cut) { operation(harness) }
            let restarted = try harness.restarted()
            // A restarted daemon has no presenter yet: nothing counts as visible, as when the presenters go away.
            harness.handle(.peerUnreachable(tui))
            harness.handle(.peerUnreachable(Peers.tuiRestarted))
            #expect(restarted.core.sessionIDs == harness.core.sessionIDs, "after \(cut) operations")
            for session in harness.core.sessionIDs {
                #expect(restarted.state(of: session) == harness.state(of: session), "session \(session) after \(cut)")
            }
            #expect(restarted.core.daemonID == "test-daemon", "the state keeps its daemon ID")
        }
    }

    @Test("Nothing is sent or published while replaying, and counters start again")
    func replayIsSilent() throws {
        let harness = DaemonHarness(journaling: true)
        for operation in journey { operation(harness) }
        let restarted = try harness.restarted()
        #expect(restarted.started.sent.isEmpty)
        #expect(restarted.events.isEmpty)
        #expect(restarted.core.counters.navigations == 0)
        #expect(restarted.core.counters.stepsAccepted == 0)
    }

    @Test("A restarted daemon serves the recovered state: same WELCOME daemon, ATTACH again, replay by lastSeq")
    func clientsReconnectToTheRecoveredState() throws {
        let harness = DaemonHarness(journaling: true)
        harness.presenter(tui, name: "tui")
        harness.hello(movies, .stepper, name: "movies", serves: ["home", "detail"])
        harness.report(tui, [("app", .visible), ("home", .visible)])
        harness.step(movies, Step("openDetail", payload: 7), attachment: 2, req: 10)
        let seqRead = harness.core.seq(of: "default")
        let seq = try #require(seqRead)
        #expect(seq == 3)

        let restarted = try harness.restarted()
        let welcomed = restarted.hello(movies, .stepper, name: "movies", serves: ["home", "detail"])
        #expect(welcomed.to(movies).first == welcome(peer: "p1"))
        let attachments = welcomed.to(movies).compactMap { message -> Int? in
            if case .attach(let attach) = message { return attach.attachment }
            return nil
        }
        #expect(attachments == [2, 3], "the same attachments, assigned again")

        // The presenter had applied seq 2: the daemon replays seq 3 from the rebuilt outbox.
        let synced = restarted.presenter(tui, name: "tui", lastSeq: 2)
        #expect(synced.to(tui).first == ok(2, ["seq": 3, "mode": "replay"]))
        #expect(synced.to(tui).dropFirst().first == command(3, .push(Screens.detail(7), onto: "app")))

        // After the restart nothing counts as visible until the presenter reports: a step on home is dropped.
        let beforeReport = restarted.step(movies, Step("openDetail", payload: 8), attachment: 2, req: 11)
        #expect(beforeReport.to(movies) == [ok(11, dropped("notVisible"))])
    }

    @Test("A STEP sent again after a restart is answered with its first verdict and not applied twice")
    func stepSentAgainIsDeduplicated() throws {
        let harness = DaemonHarness(journaling: true)
        harness.presenter(tui, name: "tui")
        harness.hello(movies, .stepper, name: "movies", serves: ["home", "detail"])
        harness.report(tui, [("app", .visible), ("home", .visible)])
        harness.step(movies, Step("openDetail", payload: 7), attachment: 2, req: 10)
        let seq = harness.core.seq(of: "default")

        let restarted = try harness.restarted()
        restarted.hello(movies, .stepper, name: "movies", serves: ["home", "detail"])
        restarted.presenter(tui, name: "tui", lastSeq: seq ?? 0)
        restarted.report(tui, [("app", .visible), ("home", .visible)])
        let again = restarted.step(movies, Step("openDetail", payload: 7), attachment: 2, req: 10)
        #expect(again.to(movies) == [ok(10, ["accepted": true, "duplicate": true])])
        #expect(restarted.core.seq(of: "default") == seq, "not applied again")
        #expect(restarted.core.counters.stepsDuplicate == 1)

        // A new req from the same instance is a new step.
        let next = restarted.step(movies, Step("openDetail", payload: 8), attachment: 2, req: 11)
        #expect(next.to(movies).contains(ok(11, accepted)))
        #expect(restarted.core.seq(of: "default") == (seq ?? 0) + 1)
    }

    @Test("The same STEP sent twice to a running daemon is applied once")
    func duplicateOnTheSameDaemon() {
        let harness = DaemonHarness()
        harness.presenter(tui, name: "tui")
        harness.hello(movies, .stepper, name: "movies", serves: ["home", "detail"])
        harness.report(tui, [("app", .visible), ("home", .visible)])
        harness.step(movies, Step("openDetail", payload: 7), attachment: 2, req: 10)
        let seq = harness.core.seq(of: "default")
        let again = harness.step(movies, Step("openDetail", payload: 7), attachment: 2, req: 10)
        #expect(again.to(movies) == [ok(10, ["accepted": true, "duplicate": true])])
        #expect(harness.core.seq(of: "default") == seq)
    }

    /// PROTOCOL.md §5.5: the window is looked up before what the STEP names (found by a foreign client in C).
    @Test("A STEP sent again gets its first verdict whatever it names now, even in a session ended since")
    func sentAgainIsAnsweredBeforeWhatItNames() {
        let harness = DaemonHarness()
        harness.presenter(tui, name: "tui")
        harness.hello(movies, .stepper, name: "movies", serves: ["home", "detail"])
        harness.hello(ops, .operator, name: "flowctl")
        harness.report(tui, [("app", .visible), ("home", .visible)])
        harness.step(movies, Step("openDetail", payload: 7), attachment: 2, req: 10)
        let another = harness.step(movies, Step("noSuchStep"), attachment: 99, req: 10)
        #expect(another.to(movies) == [ok(10, ["accepted": true, "duplicate": true])])
        harness.receive(.endSession(SessionRequest(req: 5, session: "default")), from: ops)
        let afterTheEnd = harness.step(movies, Step("openDetail", payload: 7), attachment: 2, req: 10)
        #expect(afterTheEnd.to(movies) == [ok(10, ["accepted": true, "duplicate": true])])
        let newReq = harness.step(movies, Step("openDetail", payload: 7), attachment: 2, req: 11)
        #expect(newReq.to(movies) == [refused(11, .unknownSession, .step)])
    }

    @Test("A STEP dropped before any flow saw it is journaled for its verdict; a refused one is not")
    func droppedStepsAreJournaledRefusedOnesAreNot() {
        let harness = DaemonHarness(journaling: true)
        harness.presenter(tui, name: "tui")
        harness.hello(movies, .stepper, name: "movies", serves: ["home", "detail"])
        let before = harness.core.journalHistory.count
        harness.step(movies, Step("openDetail", payload: 7), attachment: 2, req: 10)  // home not visible yet
        #expect(harness.core.journalHistory.count == before + 1)
        harness.step(movies, Step("openDetail", payload: 7), attachment: 99, req: 11)  // unknownAttachment
        #expect(harness.core.journalHistory.count == before + 1)
    }

    @Test("A record that cannot be read stops the recovery with a clear error")
    func unreadableRecordIsRefused() {
        let harness = DaemonHarness(journaling: true)
        harness.presenter(tui, name: "tui")
        var journal = harness.core.journalHistory
        journal.append(Array("{\"kind\":\"input\",\"input\":\"teleport\"}".utf8))
        #expect(throws: RecoveryError.self) { _ = try harness.restarted(journal: journal) }
    }

    @Test("In-daemon steppers are listened to again without a second readyToEmitSteps (docs/SEMANTICS.md D15)")
    func inDaemonSteppersAreResumedNotReadiedAgain() throws {
        let harness = DaemonHarness(journaling: true)
        #expect(harness.started.local == ["attach default att#1"])
        harness.presenter(tui, name: "tui")
        let restarted = try harness.restarted()
        #expect(restarted.started.local == ["resume default att#1"])
    }

    @Test("An adaptation pending at the restart runs again; its completion then navigates once")
    func pendingAdaptationRunsAgain() throws {
        let harness = DaemonHarness(journaling: true)
        harness.presenter(tui, name: "tui")
        harness.hello(movies, .stepper, name: "movies", serves: ["home", "detail"])
        harness.report(tui, [("app", .visible), ("home", .visible)])
        let emitted = harness.step(movies, Step("openDetailLater", payload: 4), attachment: 2, req: 10)
        #expect(emitted.local == ["adapt default adapt#1"])
        let seqRead = harness.core.seq(of: "default")
        let seq = try #require(seqRead)

        let restarted = try harness.restarted()
        #expect(restarted.started.local == ["resume default att#1", "adapt default adapt#1"])
        #expect(restarted.core.seq(of: "default") == seq)
        restarted.handle(.adaptCompleted(session: "default", request: AdaptRequestID(1), step: Step("openDetail", payload: 4)))
        #expect(restarted.core.seq(of: "default") == seq + 1)
        #expect(restarted.core.ui(of: "default")?.contains("detail.4") == true)

        // Completed before the restart: nothing to run again, and the restart has the navigation.
        harness.handle(.adaptCompleted(session: "default", request: AdaptRequestID(1), step: Step("openDetail", payload: 4)))
        let later = try harness.restarted()
        #expect(later.started.local == ["resume default att#1"])
        #expect(later.core.seq(of: "default") == seq + 1)
    }

    @Test("HEALTH tells the journal's records and how many the start recovered")
    func healthShowsTheJournal() throws {
        let harness = DaemonHarness(journaling: true)
        harness.presenter(tui, name: "tui")
        let records = harness.core.journalHistory.count
        let restarted = try harness.restarted()
        restarted.hello(ops, .operator, name: "ops")
        let health = restarted.receive(.health(PlainRequest(req: 9)), from: ops)
        guard case .ok(let reply)? = health.to(ops).first, case .object(let fields) = reply.result else {
            Issue.record("no OK to HEALTH: \(health.sent)")
            return
        }
        #expect(
            fields["journal"] == ["records": .int(records), "recovered_records": .int(records), "available": true])
    }

    @Test("Without journaling nothing is recorded")
    func noJournalWithoutJournaling() {
        let harness = DaemonHarness()
        harness.presenter(tui, name: "tui")
        #expect(harness.core.journalHistory.isEmpty)
    }
}
