import FlowCore
@testable import FlowDaemon
import FlowWire
import FlowdTesting
import TestFlows
import Foundation
import Testing

/// Idle sessions hibernate (`daemon.hibernate_after_s`): kept as their `state` record, made again on their next use
/// (docs/RELIABILITY.md, "Hibernation"). Each test runs the same inputs on a daemon that never hibernates and on one
/// that does, and holds every reply, event and state to be the same.
struct HibernationTests {
    let tui = Peers.tui
    let movies = Peers.movies
    let moviesB = Peers.moviesB
    let ops = Peers.flowctl
    static let serves = ["home", "detail", "settings", "tab"]

    /// The same inputs to a daemon that never hibernates (`never`) and one that hibernates after 30 s.
    struct Pair {
        let never: DaemonHarness
        let sleeping: DaemonHarness

        init(application: TestApplication = TestApplication(), journaling: Bool = true, idleTimeoutS: Int = 0) {
            var configuration = DaemonConfiguration()
            configuration.idleSessionTimeoutS = idleTimeoutS
            configuration.hibernateAfterS = 0
            never = DaemonHarness(application: application, configuration: configuration, journaling: journaling)
            configuration.hibernateAfterS = 30
            sleeping = DaemonHarness(application: application, configuration: configuration, journaling: journaling)
        }

        /// Runs `input` on both; expects the same messages and events; returns the sleeping daemon's outcome.
        @discardableResult
        func both(
            _ name: String, sourceLocation: SourceLocation = #_sourceLocation, _ input: (DaemonHarness) -> DaemonOutcome
        ) -> DaemonOutcome {
            let expected = input(never)
            let outcome = input(sleeping)
            #expect(outcome.sent == expected.sent, "\(name)", sourceLocation: sourceLocation)
            #expect(outcome.events == expected.events, "\(name)", sourceLocation: sourceLocation)
            return outcome
        }

        func expectSameState(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(sleeping.core.sessionIDs == never.core.sessionIDs, "\(name)", sourceLocation: sourceLocation)
            for id in never.core.sessionIDs {
                #expect(sleeping.state(of: id) == never.state(of: id), "\(name): \(id)", sourceLocation: sourceLocation)
            }
            #expect(sleeping.core.holdingsMismatches.isEmpty, "\(name)", sourceLocation: sourceLocation)
        }
    }

    /// A presenter and a stepper served the default session, stepped it (then `more`); then the presenter left.
    func servedThenLeft(_ pair: Pair, more: ((DaemonHarness) -> DaemonOutcome)? = nil) {
        pair.both("presenter") { $0.presenter(tui, name: "tui") }
        pair.both("stepper") { $0.hello(movies, .stepper, name: "movies", serves: Self.serves) }
        pair.both("hello ops") { $0.hello(ops, .operator, name: "ops") }
        pair.both("report") { $0.report(tui, [("app", .visible), ("home", .visible)]) }
        for req in UInt64(10)..<UInt64(13) {
            pair.both("step \(req)") { $0.step(movies, Step("openDetail", payload: .int(Int(req))), attachment: 2, req: req) }
        }
        if let more { pair.both("more", more) }
        pair.both("presenter lost") { $0.handle(.peerUnreachable(tui), at: 1_000) }
    }

    /// Ticks both at `time` (the stepper kept alive by a heartbeat just before), expecting the same messages.
    func tick(_ pair: Pair, at time: UInt64) {
        pair.both("heartbeat before \(time)") { $0.receive(.heartbeat(Heartbeat()), from: movies, at: time - 1) }
        pair.both("tick \(time)") { $0.tick(at: time) }
    }

    @Test("A hibernated session answers as one never hibernated: steps, a STEP sent again, presenter replay")
    func stepsAndReplay() {
        let pair = Pair()
        servedThenLeft(pair)
        tick(pair, at: 31_500)
        #expect(pair.sleeping.core.hibernatedSessionCount == 1 && pair.never.core.hibernatedSessionCount == 0)
        #expect(pair.sleeping.core.counters.sessionsHibernated == 1)
        pair.both("a STEP sent again after hibernation: its first verdict") {
            $0.step(movies, Step("openDetail", payload: 11), attachment: 2, req: 11)
        }
        pair.both("a new STEP from a screen no longer visible") {
            $0.step(movies, Step("openDetail", payload: 13), attachment: 2, req: 13)
        }
        #expect(pair.sleeping.core.hibernatedSessionCount == 0, "the new STEP made it")
        #expect(pair.sleeping.core.counters.sessionsWoken == 1)
        pair.expectSameState("after the STEPs")
        tick(pair, at: 63_000)
        #expect(pair.sleeping.core.hibernatedSessionCount == 1, "idle again")
        pair.both("ops again") { $0.hello(ops, .operator, name: "ops", req: 4) }
        pair.both("a deep link") { $0.deepLink(ops, Step("openDetail", payload: 20), req: 20) }
        pair.both("another") { $0.deepLink(ops, Step("openSettings"), req: 21) }
        pair.expectSameState("after the deep links")
        tick(pair, at: 95_000)
        #expect(pair.sleeping.core.hibernatedSessionCount == 1)
        pair.both("presenter HELLO and SYNC with replay") { $0.presenter(tui, name: "tui", lastSeq: 2) }
        pair.both("report") { $0.report(tui, [("app", .visible), ("home", .visible)], req: 4) }
        pair.expectSameState("after the presenter came back")
        tick(pair, at: 200_000)
        #expect(pair.sleeping.core.hibernatedSessionCount == 0, "a hosted session does not hibernate")
    }

    @Test("The stepper holding a hibernated session's attachments keeps them: no ATTACH again; lost, they move as before")
    func stepperAttachments() {
        let pair = Pair()
        servedThenLeft(pair)
        pair.both("a second stepper") { $0.hello(moviesB, .stepper, name: "movies-b", serves: Self.serves) }
        tick(pair, at: 31_500)
        pair.both("heartbeat B") { $0.receive(.heartbeat(Heartbeat()), from: moviesB, at: 31_600) }
        #expect(pair.sleeping.core.hibernatedSessionCount == 1)
        #expect(pair.sleeping.core.holdingsMismatches.isEmpty)
        pair.both("the stepper that held them lost: its attachments go to the other one") {
            $0.handle(.peerUnreachable(movies), at: 32_000)
        }
        pair.expectSameState("after the stepper was lost")
        tick(pair, at: 70_000)
        pair.both("heartbeat B") { $0.receive(.heartbeat(Heartbeat()), from: moviesB, at: 70_100) }
        #expect(pair.sleeping.core.hibernatedSessionCount == 1)
        pair.both("the first stepper back: nothing waits") {
            $0.hello(movies, .stepper, name: "movies", serves: Self.serves, at: 70_200)
        }
        pair.both("a STEP from the stepper that holds the attachment now") {
            $0.step(moviesB, Step("openDetail", payload: 30), attachment: 2, req: 30)
        }
        pair.both("a STEP from the one that does not") {
            $0.step(movies, Step("openDetail", payload: 31), attachment: 2, req: 31)
        }
        pair.expectSameState("after the steps")
    }

    @Test("A session hibernated while its stepper was away: the stepper's HELLO gets the same ATTACHes")
    func attachesToALateStepper() {
        let pair = Pair()
        servedThenLeft(pair)
        pair.both("stepper lost") { $0.handle(.peerUnreachable(movies), at: 2_000) }
        pair.both("tick") { $0.tick(at: 40_000) }
        #expect(pair.sleeping.core.hibernatedSessionCount == 1)
        #expect(pair.sleeping.core.holdingsMismatches.isEmpty)
        pair.both("stepper back") { $0.hello(movies, .stepper, name: "movies", serves: Self.serves, at: 41_000) }
        pair.expectSameState("after the ATTACHes")
    }

    @Test("END_SESSION of a hibernated session: the same DETACHes and replies")
    func endSession() {
        let pair = Pair()
        servedThenLeft(pair)
        tick(pair, at: 31_500)
        #expect(pair.sleeping.core.hibernatedSessionCount == 1)
        pair.both("ops again") { $0.hello(ops, .operator, name: "ops", at: 31_600) }
        pair.both("END_SESSION") { $0.receive(.endSession(SessionRequest(req: 7, session: "default")), from: ops) }
        #expect(pair.sleeping.core.hibernatedSessionCount == 0 && pair.sleeping.core.sessionCount == 0)
        #expect(pair.sleeping.core.holdingsMismatches.isEmpty)
        pair.both("SYNC with create") { $0.presenter(tui, name: "tui", create: true) }
        pair.expectSameState("after it was created again")
    }

    @Test("A hibernated session idle past the idle timeout ends as a made one does; a changed one later")
    func idleExpiry() {
        let pair = Pair(idleTimeoutS: 60)
        servedThenLeft(pair)
        tick(pair, at: 31_500)
        pair.both("a step at 40 s moves the idle deadline") {
            $0.step(movies, Step("openDetail", payload: 40), attachment: 2, req: 40, at: 40_000)
        }
        tick(pair, at: 61_500)
        #expect(pair.sleeping.core.sessionCount == 1, "the step moved its deadline")
        tick(pair, at: 75_000)
        #expect(pair.sleeping.core.hibernatedSessionCount == 1, "hibernated again")
        tick(pair, at: 100_500)
        #expect(pair.never.core.sessionCount == 0 && pair.sleeping.core.sessionCount == 0)
        #expect(pair.sleeping.core.counters.sessionsEnded == pair.never.core.counters.sessionsEnded)
        #expect(pair.sleeping.core.hibernatedSessionCount == 0)
    }

    @Test("Compaction and restart with hibernated sessions: the same snapshot bytes and sessions", arguments: [true, false])
    func compactionAndRestart(compactFirst: Bool) throws {
        let pair = Pair()
        servedThenLeft(pair)
        pair.both("session b") { $0.receive(.createSession(SessionRequest(req: 8, session: "b")), from: ops) }
        tick(pair, at: 31_500)
        #expect(pair.sleeping.core.hibernatedSessionCount == 2)
        if compactFirst {
            pair.never.core.compactJournal()
            pair.sleeping.core.compactJournal()
            #expect(pair.sleeping.core.journalSnapshotPayload == pair.never.core.journalSnapshotPayload)
            #expect(pair.sleeping.core.hibernatedSessionCount == 2, "a compaction makes no hibernated session")
        }
        let never = try pair.never.restarted()
        let sleeping = try pair.sleeping.restarted()
        for id in never.core.sessionIDs { #expect(sleeping.state(of: id) == never.state(of: id), "session \(id)") }
        pair.never.core.compactJournal()
        pair.sleeping.core.compactJournal()
        #expect(pair.sleeping.core.journalSnapshotPayload == pair.never.core.journalSnapshotPayload)
    }

    @Test("Without a journal the pending session alone holds the state; it comes back the same")
    func withoutJournal() {
        let pair = Pair(journaling: false)
        servedThenLeft(pair)
        pair.both("session b, only created") { $0.receive(.createSession(SessionRequest(req: 8, session: "b")), from: ops) }
        pair.both("session c, created and changed") {
            $0.receive(.createSession(SessionRequest(req: 9, session: "c")), from: ops)
        }
        pair.both("c changed") { $0.deepLink(ops, Step("openDetail", payload: 4), session: "c", req: 10) }
        tick(pair, at: 31_500)
        #expect(pair.sleeping.core.hibernatedSessionCount == 3)
        pair.both("ops again") { $0.hello(ops, .operator, name: "ops", at: 31_600) }
        pair.both("TREE") { $0.receive(.tree(SessionRequest(req: 9, session: "default")), from: ops) }
        pair.both("SESSIONS") { $0.receive(.sessions(SessionsRequest(req: 10)), from: ops) }
        pair.expectSameState("made by TREE")
    }

    /// Sessions created by `ops` (already connected) and each stepped once by a deep link.
    func createdAndStepped(_ pair: Pair, _ sessions: [String]) {
        for (index, session) in sessions.enumerated() {
            pair.both("create \(session)") {
                $0.receive(.createSession(SessionRequest(req: UInt64(10 + index), session: session)), from: ops)
            }
            pair.both("step \(session)") {
                $0.deepLink(ops, Step("openDetail", payload: .int(index)), session: session, req: UInt64(1_000 + index))
            }
        }
    }

    @Test("Sessions due together hibernate a slice per tick, the next tick due at once: no tick saves them all")
    func aSlicePerTick() {
        let pair = Pair()
        pair.both("hello ops") { $0.hello(ops, .operator, name: "ops") }
        let count = DaemonCore.hibernatedPerTick + 8
        createdAndStepped(pair, (0..<count).map { "s\($0)" })
        pair.both("tick") { $0.tick(at: 31_000) }
        #expect(pair.sleeping.core.counters.sessionsHibernated == DaemonCore.hibernatedPerTick)
        #expect(pair.sleeping.core.nextDeadline(now: 31_000) == 31_000)
        pair.both("next tick") { $0.tick(at: 31_001) }
        #expect(pair.sleeping.core.counters.sessionsHibernated == count + 1)  // and the default session
        pair.expectSameState("after the slices")
    }

    @Test("A tick stops once the state records it encoded reach its byte budget; sessions kept as created cost none")
    func aSliceBoundedByBytes() {
        let pair = Pair()
        pair.sleeping.core.hibernatedBytesPerTick = 1  // stands for sessions bigger than the budget: one a tick
        pair.both("hello ops") { $0.hello(ops, .operator, name: "ops") }
        let stepped = 3
        createdAndStepped(pair, (0..<stepped).map { "b\($0)" })
        let created = DaemonCore.hibernatedPerTick + 4
        for index in 0..<created {
            pair.both("create c\(index)") {
                $0.receive(.createSession(SessionRequest(req: UInt64(100 + index), session: "c\(index)")), from: ops)
            }
        }
        // Due together, in ID order: each `b*` passes the budget; `c*` and the default session encode nothing.
        for (tick, total) in [1, 2, 3].enumerated() {
            pair.both("tick \(tick)") { $0.tick(at: 31_000 + UInt64(tick)) }
            #expect(pair.sleeping.core.counters.sessionsHibernated == total, "b\(tick) alone")
            #expect(pair.sleeping.core.nextDeadline(now: 31_000) == 31_000, "the rest stay due")
        }
        pair.both("tick 3") { $0.tick(at: 31_003) }
        #expect(
            pair.sleeping.core.counters.sessionsHibernated == stepped + DaemonCore.hibernatedPerTick,
            "created ones encode nothing: the count bounds them")
        pair.both("tick 4") { $0.tick(at: 31_004) }
        #expect(pair.sleeping.core.counters.sessionsHibernated == stepped + created + 1)
        pair.expectSameState("after the slices")
    }

    @Test("A session that cannot be saved as data stays made, counted")
    func notRestorableStaysMade() {
        let pair = Pair(application: TestApplication(restorable: false))
        servedThenLeft(pair)
        tick(pair, at: 31_500)
        #expect(pair.sleeping.core.hibernatedSessionCount == 0)
        #expect(pair.sleeping.core.counters.sessionsNotHibernated == ["notRestorable": 1])
        #expect(pair.sleeping.core.hibernationDeadlineCount == 1, "watched again")
        pair.expectSameState("kept made")
    }

    @Test("A session waiting for an adaptation stays made until it completes")
    func adaptPendingStaysMade() {
        let pair = Pair()
        servedThenLeft(pair) { $0.step(movies, Step("openDetailLater", payload: 5), attachment: 2, req: 50) }
        tick(pair, at: 31_900)
        #expect(pair.sleeping.core.hibernatedSessionCount == 0)
        #expect(pair.sleeping.core.counters.sessionsNotHibernated["adaptPending"] == 1)
        pair.expectSameState("kept made")
    }

    @Test("A stepped session with no presenter never hibernates while steps keep coming; no deadline per step")
    func busySessionStaysMade() {
        let pair = Pair()
        servedThenLeft(pair)
        for second in UInt64(2)..<UInt64(70) {
            pair.both("step at \(second) s") {
                $0.step(movies, Step(second % 2 == 0 ? "openDetail" : "back", payload: .int(Int(second))),
                    attachment: 2, req: 100 + second, at: second * 1_000)
            }
            pair.both("tick") { $0.tick(at: second * 1_000 + 500) }
        }
        #expect(pair.sleeping.core.counters.sessionsHibernated == 0)
        #expect(pair.sleeping.core.hibernationDeadlineCount <= 1)
        pair.expectSameState("stepped")
    }

    @Test("The flag and the config file's daemon.hibernate_after_s set the time; 60 s by default")
    func flagAndDefault() throws {
        let environment = ["FLOWD_RUNTIME_DIR": "/tmp/flowd-hibernate-settings"]
        func after(_ arguments: [String]) throws -> Int {
            try FlowdOptions.parse(arguments).settings(environment: environment).server.daemon.hibernateAfterS
        }
        #expect(try after([]) == 60)
        #expect(try after(["--hibernate-after-s", "0"]) == 0)
        #expect(throws: (any Error).self) { try FlowdOptions.parse(["--hibernate-after-s", "-1"]) }
        let decoded = try JSONDecoder().decode(DaemonConfiguration.self, from: Data(#"{"hibernate_after_s": 5}"#.utf8))
        #expect(decoded.hibernateAfterS == 5)
    }
}
