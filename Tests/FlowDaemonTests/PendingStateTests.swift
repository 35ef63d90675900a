import FlowCore
@testable import FlowDaemon
import FlowWire
import FlowdTesting
import TestFlows
import Testing

/// A restart keeps the sessions saved as data (a `state` record, nothing after it) pending too: only the record's
/// header is read before the daemon serves, the state when the session is made (docs/RELIABILITY.md, "Pending
/// sessions"). Made on first use or in the background, such a session is what eager recovery made.
struct PendingStateTests {
    let tui = Peers.tui
    let movies = Peers.movies
    let ops = Peers.flowctl
    static let serves = ["home", "detail", "settings", "tab"]

    /// A daemon whose default session was stepped, deep-linked and saved as data, beside a session `b` only created.
    func savedSession(configuration: DaemonConfiguration = DaemonConfiguration()) -> DaemonHarness {
        let harness = DaemonHarness(application: TestApplication(), configuration: configuration, journaling: true)
        harness.presenter(tui, name: "tui")
        harness.hello(movies, .stepper, name: "movies", serves: Self.serves)
        harness.hello(ops, .operator, name: "ops")
        harness.report(tui, [("app", .visible), ("home", .visible)])
        for req in UInt64(10)..<UInt64(20) {
            harness.step(movies, Step("openDetail", payload: .int(Int(req))), attachment: 2, req: req)
        }
        harness.deepLink(ops, Step("openSettings"), req: 3)
        harness.receive(.createSession(SessionRequest(req: 4, session: "b")), from: ops)
        #expect(harness.core.compactJournal().saved == 1)
        return harness
    }

    /// The saved daemon restarted twice: every session made at start, and left pending.
    func restarts(
        _ original: DaemonHarness, journal: [[UInt8]]? = nil
    ) throws -> (eager: DaemonHarness, lazy: DaemonHarness) {
        (try original.restarted(journal: journal), try original.restarted(journal: journal, lazily: true))
    }

    /// The history with the default session's `state` record passed through `damage`.
    func damaged(_ history: [[UInt8]], _ damage: (String) -> String) throws -> [[UInt8]] {
        history.map { bytes in
            guard StateRecordHeader(bytes)?.session == "default" else { return bytes }
            let damaged = Array(damage(String(decoding: bytes, as: UTF8.self)).utf8)
            #expect(damaged != bytes && StateRecordHeader(damaged) != nil, "the damage leaves the header as it was")
            return damaged
        }
    }

    @Test("A turn stops making pending sessions once their saved states reach its bytes; created ones cost none")
    func aTurnBoundedByBytes() throws {
        let original = savedSession()
        original.receive(.createSession(SessionRequest(req: 5, session: "a")), from: ops)
        original.deepLink(ops, Step("openDetail", payload: 7), session: "a", req: 6)
        original.receive(.createSession(SessionRequest(req: 7, session: "c")), from: ops)
        #expect(original.core.compactJournal().saved == 1, "a; default's record is kept")
        let (eager, lazy) = try restarts(original)
        let ids = eager.core.sessionIDs
        let saved = { ids.filter { lazy.core.sessions[pending: $0]?.savedState != nil } }
        #expect(saved() == ["a", "default"])
        #expect(lazy.core.pendingSessionCount == 4)
        var turns = 0
        while lazy.core.pendingSessionCount > 0, turns < 4 {
            let before = saved().count
            _ = lazy.core.makePendingSessions(limit: .max, bytes: 1, now: 0)
            turns += 1
            #expect(saved().count == before - 1 || (before == 0 && lazy.core.pendingSessionCount == 0), "turn \(turns)")
        }
        #expect(turns == 2 || turns == 3, "one saved state a turn, the created ones between them")
        for id in ids { #expect(lazy.state(of: id) == eager.state(of: id), "session \(id)") }
    }

    @Test("A state record's header: its session and version read, any other spelling left to the full reader")
    func headers() {
        let header = { (text: String) in StateRecordHeader(Array(text.utf8)) }
        #expect(header(#"{"app":"v1","kind":"state","session":"s1","state":{"x":1},"v":4}"#)?.app == "v1")
        #expect(header(#"{"kind":"state","session":"s1","state":{},"v":3}"#) == StateRecordHeader(Array(#"{"kind":"state","session":"s1","state":{},"v":3}"#.utf8)))
        #expect(header(#"{"kind":"state","session":"s1","state":{},"v":3}"#)?.session == "s1")
        #expect(header(#"{"kind":"state","session":"s\u00e91","state":{},"v":3}"#) == nil, "an escape")
        #expect(header(#"{"kind":"state","session":"s1","state":{},"v":9}"#) == nil, "a newer version")
        #expect(header(#"{"kind":"state","session":"s1","state":{},"v":2}"#) == nil, "a version without state")
        #expect(header(#"{"kind":"state", "session":"s1","state":{},"v":3}"#) == nil, "a space")
        #expect(header(#"{"kind":"session","session":"s1","v":4}"#) == nil, "another kind")
        #expect(header(#"{"kind":"state","session":"s1","state":{}}"#) == nil, "no version")
        #expect(header(#"{"kind":"state","session":"s1"#) == nil, "cut short")
        #expect(header(#"{"kind":"state","session":"s1","state":{},"v":13}"#) == nil, "a newer version of two digits")
        #expect(header(#"{"kind":"state","session":"s1","state":{},"v":04}"#) == nil, "a leading zero")
        #expect(header(#"{"kind":"state","session":"s1","state":{},"v":}"#) == nil, "no digits")
        let later = { (text: String) in StateRecordHeader(Array(text.utf8), versions: 3...12) }
        #expect(later(#"{"kind":"state","session":"s1","state":{},"v":10}"#)?.session == "s1", "two digits")
        #expect(later(#"{"kind":"state","session":"s1","state":{},"v":4}"#)?.session == "s1")
        #expect(later(#"{"kind":"state","session":"s1","state":{},"v":13}"#) == nil)
        #expect(later(#"{"kind":"state","session":"s1","state":{"v":10}"#) == nil, "the version key must follow the state")
    }

    @Test("Saved sessions are pending after a restart and end as eager recovery made them: state, snapshot, SESSIONS")
    func savedSessionsArePendingAndEndTheSame() throws {
        let original = savedSession()
        let (eager, lazy) = try restarts(original)
        #expect(eager.core.pendingSessionCount == 0)
        #expect(lazy.core.pendingSessionCount == 2, "the saved session and the created one")
        #expect(lazy.core.sessionIDs == eager.core.sessionIDs)
        #expect(lazy.started.local.isEmpty && lazy.started.sent.isEmpty)

        lazy.core.compactJournal()
        #expect(lazy.core.pendingSessionCount == 2, "a compaction makes no pending session")
        let saved = try #require(original.core.journalHistory.first { StateRecordHeader($0) != nil })
        #expect(lazy.core.journalHistory.contains(saved), "its record as it was read")

        let turns = DaemonHarness.expectSameAttachesMadeInTheBackground(
            eager: eager, lazy: lazy, stepper: movies, serves: Self.serves)
        #expect(turns == 2)
        eager.core.compactJournal()
        lazy.core.compactJournal()
        #expect(lazy.core.journalSnapshotPayload == eager.core.journalSnapshotPayload, "the same snapshot bytes next")
    }

    static let firstUses = DaemonHarness.firstUses(of: "default")

    @Test("A first use of a saved pending session makes it: the same replies, state and snapshot as eager recovery",
        arguments: 0..<firstUses.count)
    func aFirstUseMakesIt(use: Int) throws {
        let (name, message) = Self.firstUses[use]
        let (eager, lazy) = try restarts(savedSession())
        eager.hello(ops, .operator, name: "ops")
        lazy.hello(ops, .operator, name: "ops")
        DaemonHarness.expectSameOutcome(of: message, from: ops, eager: eager, lazy: lazy, name)
        #expect(lazy.core.pendingSessionCount < 2, "\(name) made the session it reads")
        DaemonHarness.expectSameSessionsOnceMade(eager: eager, lazy: lazy, name)
    }

    @Test("A presenter's SYNC, its REPORT and a STEP to a saved pending session: the same SNAPSHOT, verdict, COMMANDs")
    func syncAndStepMakeIt() throws {
        let (eager, lazy) = try restarts(savedSession())
        let synced = [eager, lazy].map { $0.presenter(tui, name: "tui").sent }
        #expect(synced[0] == synced[1])
        #expect(lazy.core.pendingSessionCount == 1)
        let hellos = [eager, lazy].map {
            $0.hello(movies, .stepper, name: "movies", serves: Self.serves).sent.filter {
                if case .attach(let attach) = $0.message { attach.session == "default" } else { true }
            }
        }
        #expect(hellos[0] == hellos[1], "the same ATTACHes for the made session (`b` is still pending)")
        let reports = [eager, lazy].map { $0.report(tui, [("app", .visible), ("home", .visible)]).sent }
        #expect(reports[0] == reports[1])
        let steps = [eager, lazy].map { $0.step(movies, Step("back"), attachment: 2, req: 90).sent }
        #expect(steps[0] == steps[1])
        #expect(steps[0].contains { if case .command = $0.message { true } else { false } })
        let again = [eager, lazy].map { $0.step(movies, Step("openDetail", payload: 11), attachment: 2, req: 11).sent }
        #expect(again[0] == again[1], "a STEP sent again before the restart: the remembered verdict")
        #expect(eager.state() == lazy.state())
    }

    @Test("A saved pending session idle past the timeout ends without being made, as a made one does")
    func idleSavedSessionsEnd() throws {
        var configuration = DaemonConfiguration()
        configuration.idleSessionTimeoutS = 60
        let (eager, lazy) = try restarts(savedSession(configuration: configuration))
        eager.tick(at: 61_000)
        lazy.tick(at: 61_000)
        #expect(eager.core.sessionCount == 0 && lazy.core.sessionCount == 0)
        #expect(lazy.core.counters.sessionsEnded == eager.core.counters.sessionsEnded)
        #expect(lazy.core.journalSnapshotPayload == eager.core.journalSnapshotPayload)
    }

    @Test("A journal record after the snapshot that changes a saved session makes it while replaying, as before")
    func laterRecordsMakeItAtReplay() throws {
        let original = savedSession()
        original.step(movies, Step("back"), attachment: 2, req: 40)
        let (eager, lazy) = try restarts(original)
        #expect(lazy.core.pendingSessionCount == 1, "only the created session is pending")
        #expect(lazy.state() == eager.state())
    }

    @Test("A restart of a compaction made while sessions were pending: the same sessions")
    func compactionWhilePending() throws {
        let (eager, lazy) = try restarts(savedSession())
        lazy.core.compactJournal()
        let again = try lazy.restarted()
        for id in eager.core.sessionIDs { #expect(again.state(of: id) == eager.state(of: id), "session \(id)") }
    }

    @Test("A saved state that does not read when made: refused with sessionUnrestorable, counted, kept until ended")
    func anUnreadableSavedStateIsUnrestorable() throws {
        let original = savedSession()
        let history = try damaged(original.core.journalHistory) {
            $0.replacingOccurrences(of: #""awaitedReports":["#, with: #""awaitedReports":{"x":["#)
                .replacingOccurrences(of: #"],"outbox""#, with: #"]},"outbox""#)
        }
        let eager = try original.restarted(journal: history)
        #expect(eager.core.unrestorableSessionCount == 1, "made in the background, as flowd's I/O loop does")
        #expect(eager.core.pendingSessionCount == 0 && eager.core.sessionCount == 2)
        let lazy = try original.restarted(journal: history, lazily: true)
        #expect(lazy.core.pendingSessionCount == 2, "only its header was read before serving")
        lazy.hello(ops, .operator, name: "ops")
        let tree = lazy.receive(.tree(SessionRequest(req: 5, session: "default")), from: ops)
        #expect(tree.to(ops) == [.error(ErrorReply(req: 5, code: .sessionUnrestorable, message: "", type: "TREE"))])
        #expect(lazy.core.unrestorableReason("default") != nil)
        #expect(lazy.core.pendingSessionCount == 1 && lazy.core.unrestorableSessionCount == 1)
        #expect(lazy.core.sessionCount == 2, "kept: its ID is taken")

        let sync = lazy.presenter(tui, name: "tui", create: true)
        #expect(sync.to(tui).last == .error(ErrorReply(req: 2, code: .sessionUnrestorable, message: "", type: "SYNC")))
        let other = lazy.receive(.tree(SessionRequest(req: 6, session: "b")), from: ops)
        #expect(other.to(ops).count == 1 && { if case .ok = other.to(ops)[0] { true } else { false } }())

        let health = lazy.receive(.health(PlainRequest(req: 7)), from: ops)
        guard case .ok(let reply)? = health.to(ops).first, case .object(let fields) = reply.result,
            case .object(let counters)? = fields["counters"], case .object(let errors)? = counters["errors"]
        else {
            Issue.record("no HEALTH reply: \(health.sent)")
            return
        }
        #expect(fields["sessions_unrestorable"] == 1 && fields["sessions_pending"] == 0)
        #expect(errors["sessionUnrestorable"] == 2)
        // The text tells an operator what happened and what to do (docs/RELIABILITY.md, "Pending sessions").
        let text = lazy.daemon.receive(.tree(SessionRequest(req: 8, session: "default")), from: ops).to(ops)
        guard case .error(let refusal)? = text.first else {
            Issue.record("TREE not refused: \(text)")
            return
        }
        #expect(refusal.message.hasPrefix("session 'default' is kept but not served: its saved state does not restore"))
        #expect(
            refusal.message.hasSuffix(
                "END_SESSION (flowctl end-session default) drops it, and its ID can then be created anew"))

        let listed = lazy.receive(.sessions(SessionsRequest(req: 9)), from: ops)
        guard case .ok(let page)? = listed.to(ops).first, case .object(let list) = page.result,
            case .array(let summaries)? = list["sessions"]
        else {
            Issue.record("no SESSIONS reply: \(listed.sent)")
            return
        }
        let unrestorable: JSONValue = [
            "id": "default", "flows": 0, "presenter": nil, "seq": 0, "steppers": 0, "unrestorable": true,
        ]
        #expect(summaries.count == 2 && summaries.contains(unrestorable), "listed, so that an operator can end it")
        #expect(summaries.contains {
            guard case .object(let summary) = $0 else { return false }
            return summary["id"] == "b" && summary["unrestorable"] == nil && summary["flows"] != 0
        })

        lazy.core.compactJournal()
        let record = try #require(history.first { StateRecordHeader($0) != nil })
        #expect(lazy.core.journalHistory.contains(record), "its record kept as it was")

        let ended = lazy.receive(.endSession(SessionRequest(req: 8, session: "default")), from: ops)
        #expect(ended.to(ops) == [ok(8, ["seq": 0, "presenter": .null, "attachments": 0])])
        #expect(lazy.core.unrestorableSessionCount == 0 && lazy.core.sessionCount == 1)
        #expect(!lazy.core.journalHistory.contains { StateRecordHeader($0) != nil }, "dropped by the operator")
    }

    @Test("A saved state that does not read, changed by a journal record after the snapshot: the start is refused")
    func anUnreadableSavedStateChangedLaterRefusesTheStart() throws {
        let original = savedSession()
        original.step(movies, Step("back"), attachment: 2, req: 40)
        let history = try damaged(original.core.journalHistory) {
            $0.replacingOccurrences(of: #""awaitedReports":["#, with: #""awaitedReports":{"x":["#)
                .replacingOccurrences(of: #"],"outbox""#, with: #"]},"outbox""#)
        }
        #expect {
            _ = try original.restarted(journal: history, lazily: true)
        } throws: { error in
            (error as? RecoveryError)?.code == .unreadableRecord
        }
    }
}
