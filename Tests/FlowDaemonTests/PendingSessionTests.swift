import FlowCore
@testable import FlowDaemon
import FlowWire
import FlowdTesting
import TestFlows
import Testing

/// A restart keeps the sessions whose records only created them pending, made on first use or in the background
/// (``PendingSession``): the daemon behaves as if it had made them at once, but for when.
struct PendingSessionTests {
    let flowctl = Peers.flowctl
    let movies = Peers.movies
    static let created = ["a", "b", "c"]

    /// A journaling daemon with the default session and three more created by an operator, nothing else recorded.
    func createdSessions(configuration: DaemonConfiguration = DaemonConfiguration()) -> DaemonHarness {
        let harness = DaemonHarness(configuration: configuration, journaling: true)
        harness.hello(flowctl, .operator, name: "flowctl")
        for (index, id) in Self.created.enumerated() {
            harness.receive(.createSession(SessionRequest(req: UInt64(10 + index), session: id)), from: flowctl)
        }
        return harness
    }

    /// The same daemon restarted twice: every session made at start, and left pending.
    func restarts(
        configuration: DaemonConfiguration = DaemonConfiguration()
    ) throws -> (eager: DaemonHarness, lazy: DaemonHarness) {
        let original = createdSessions(configuration: configuration)
        return (try original.restarted(), try original.restarted(lazily: true))
    }

    @Test("Sessions only created are pending after a restart: counted and listed, written back as they were")
    func createdSessionsArePending() throws {
        let (eager, lazy) = try restarts()
        #expect(eager.core.pendingSessionCount == 0)
        #expect(lazy.core.pendingSessionCount == 4)
        #expect(lazy.core.sessionCount == eager.core.sessionCount)
        #expect(lazy.core.sessionIDs == eager.core.sessionIDs)
        #expect(lazy.started.local.isEmpty && lazy.started.sent.isEmpty)

        eager.core.compactJournal()
        lazy.core.compactJournal()
        #expect(lazy.core.pendingSessionCount == 4, "a compaction makes no pending session")
        #expect(lazy.core.journalSnapshotPayload == eager.core.journalSnapshotPayload, "the same snapshot bytes")

        lazy.hello(flowctl, .operator, name: "flowctl")
        let health = lazy.receive(.health(PlainRequest(req: 2)), from: flowctl)
        guard case .ok(let reply)? = health.to(flowctl).first, case .object(let fields) = reply.result else {
            Issue.record("no HEALTH reply: \(health.sent)")
            return
        }
        #expect(fields["sessions"] == 4 && fields["sessions_pending"] == 4)
    }

    @Test("Made in the background, pending sessions end as if made at start: the same state, SESSIONS and ATTACHes")
    func madeInTheBackgroundTheyEndTheSame() throws {
        let (eager, lazy) = try restarts()
        #expect(lazy.core.pendingSessionCount == 4)
        let turns = DaemonHarness.expectSameAttachesMadeInTheBackground(
            eager: eager, lazy: lazy, stepper: movies, serves: ["home", "detail", "settings", "tab"])
        #expect(turns == 4)
        eager.hello(flowctl, .operator, name: "flowctl")
        lazy.hello(flowctl, .operator, name: "flowctl")
        #expect(
            lazy.receive(.sessions(SessionsRequest(req: 3)), from: flowctl).sent
                == eager.receive(.sessions(SessionsRequest(req: 3)), from: flowctl).sent)
        eager.core.compactJournal()
        lazy.core.compactJournal()
        #expect(lazy.core.journalSnapshotPayload == eager.core.journalSnapshotPayload)
    }

    /// Requests that read or change a session, each sent first to a pending one.
    static let firstUses = DaemonHarness.firstUses(of: "b") + [
        ("SESSIONS with a prefix", .sessions(SessionsRequest(req: 5, limit: 2, prefix: "b"))),
        ("CREATE_SESSION of a pending one", .createSession(SessionRequest(req: 5, session: "b"))),
    ]

    @Test("A first use of a pending session makes it: the same replies and state as a session made at start",
        arguments: 0..<firstUses.count)
    func aFirstUseMakesItAsAtStart(use: Int) throws {
        let (name, message) = Self.firstUses[use]
        let (eager, lazy) = try restarts()
        eager.hello(flowctl, .operator, name: "flowctl")
        lazy.hello(flowctl, .operator, name: "flowctl")
        DaemonHarness.expectSameOutcome(of: message, from: flowctl, eager: eager, lazy: lazy, name)
        // CREATE_SESSION of a session that exists only answers that it does: nothing to make.
        #expect((lazy.core.pendingSessionCount < 4) == !name.hasPrefix("CREATE"), "\(name) made the session it reads")
        DaemonHarness.expectSameSessionsOnceMade(eager: eager, lazy: lazy, name)
    }

    @Test("A presenter's SYNC and a stepper's STEP for a pending session: the same SNAPSHOT, ATTACH and COMMAND")
    func syncAndStepMakeIt() throws {
        let (eager, lazy) = try restarts()
        let synced = [eager, lazy].map { $0.presenter(Peers.tui, name: "tui", session: "c").sent }
        #expect(synced[0] == synced[1])
        #expect(lazy.core.pendingSessionCount == 3)
        let serves = ["home", "detail", "settings", "tab"]
        let hellos = [eager, lazy].map { $0.hello(movies, .stepper, name: "movies", serves: serves).sent }
        #expect(hellos[0].filter { $0.message.isAttach(in: "c") } == hellos[1].filter { $0.message.isAttach(in: "c") })
        let reports = [eager, lazy].map { $0.report(Peers.tui, [("app", .visible), ("home", .visible)], session: "c").sent }
        #expect(reports[0] == reports[1])
        let steps = [eager, lazy].map { $0.step(movies, Step("openDetail", payload: 7), attachment: 2, session: "c").sent }
        #expect(steps[0] == steps[1])
        #expect(steps[0].contains { if case .command = $0.message { true } else { false } })
        #expect(eager.state(of: "c") == lazy.state(of: "c"))
    }

    @Test("A pending session idle past the timeout ends without being made, as a made one does")
    func idlePendingSessionsEnd() throws {
        var configuration = DaemonConfiguration()
        configuration.idleSessionTimeoutS = 60
        let (eager, lazy) = try restarts(configuration: configuration)
        eager.tick(at: 61_000)
        lazy.tick(at: 61_000)
        #expect(eager.core.sessionCount == 0 && lazy.core.sessionCount == 0)
        #expect(lazy.core.pendingSessionCount == 0)
        #expect(lazy.core.counters.sessionsEnded == eager.core.counters.sessionsEnded)
        #expect(lazy.core.journalSnapshotPayload == eager.core.journalSnapshotPayload)
    }
}

extension DaemonMessage {
    fileprivate func isAttach(in session: String) -> Bool {
        if case .attach(let attach) = self { attach.session == session } else { false }
    }
}
