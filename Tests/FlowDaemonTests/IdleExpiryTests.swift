import FlowCore
import FlowDaemon
import FlowWire
import FlowdTesting
import Foundation
import Testing

/// `daemon.idle_session_timeout_s`: a session with no presenter and no journaled change for that long ends as
/// `END_SESSION` ends it (reason `idle`), on the daemon's clock; ticks look at due deadlines only.
struct IdleExpiryTests {
    private func harness(timeoutS: Int = 60, maxSessions: Int = 64, journaling: Bool = false) -> DaemonHarness {
        var configuration = DaemonConfiguration()
        configuration.idleSessionTimeoutS = timeoutS
        configuration.maxSessions = maxSessions
        return DaemonHarness(configuration: configuration, journaling: journaling)
    }

    private func create(_ session: String, in h: DaemonHarness, req: UInt64 = 10) {
        h.receive(.createSession(SessionRequest(req: req, session: session)), from: Peers.flowctl)
    }

    @Test func aSessionWithoutPresenterOrChangeEndsAfterTheTimeoutAsEndSessionEndsIt() throws {
        let h = harness(journaling: true)
        h.hello(Peers.flowctl, .operator, name: "flowctl", heartbeatMs: 60_000)
        h.hello(Peers.movies, .stepper, name: "movies", serves: ["home"], heartbeatMs: 60_000)
        create("kiosk-1", in: h)
        // A change to the default session at 30 s moves its deadline to 90 s.
        h.tick(at: 30_000)
        let seq = h.core.seq(of: "default")!
        h.deepLink(Peers.flowctl, Step("openDetail", payload: 4), req: 11)
        #expect(h.core.seq(of: "default")! > seq)

        #expect(h.tick(at: 59_999).to(Peers.movies).filter(\.isDetach) == [])
        #expect(h.core.sessionIDs == ["default", "kiosk-1"])
        let expiry = h.tick(at: 60_000)
        #expect(expiry.to(Peers.movies).filter(\.isDetach) == [detach(2, "sessionEnded", session: "kiosk-1")])
        #expect(h.core.sessionIDs == ["default"])
        #expect(h.core.counters.sessionsEnded == ["idle": 1])

        #expect(h.tick(at: 89_999).to(Peers.movies).filter(\.isDetach) == [])
        #expect(h.tick(at: 90_000).to(Peers.movies).filter(\.isDetach) == [detach(2, "sessionEnded")])
        #expect(h.core.sessionIDs == [])
        #expect(h.core.counters.sessionsEnded == ["idle": 2])
        #expect(h.core.counters.errors.isEmpty)
        // Journaled: the ends survive a restart.
        #expect(try h.restarted().core.sessionIDs == [])
    }

    @Test func aHostedSessionStaysAndIdlenessCountsFromWhenItsPresenterLeft() {
        let h = harness()
        h.hello(Peers.tui, .presenter, name: "tui", heartbeatMs: 60_000)
        h.receive(.sync(Sync(req: 2, session: "default", lastSeq: 0)), from: Peers.tui)
        h.tick(at: 100_000)
        #expect(h.core.sessionIDs == ["default"])
        h.receive(.bye, from: Peers.tui, at: 120_000)
        h.tick(at: 179_999)
        #expect(h.core.sessionIDs == ["default"])
        h.tick(at: 180_000)
        #expect(h.core.sessionIDs == [])
        #expect(h.core.counters.sessionsEnded == ["idle": 1])
    }

    @Test func offByDefault() {
        let h = DaemonHarness()
        h.tick(at: 1_000_000_000)
        #expect(h.core.sessionIDs == ["default"])
        #expect(h.core.idleDeadlineCount == 0)
        #expect(h.core.counters.sessionsEnded == [:])
    }

    @Test func notWhileTheJournalCannotBeWrittenButOnceItCan() {
        let h = harness(journaling: true)
        h.core.journalAvailable = false
        h.tick(at: 60_000)
        #expect(h.core.sessionIDs == ["default"])
        h.core.journalAvailable = true
        h.tick(at: 60_001)
        #expect(h.core.sessionIDs == [])
    }

    /// 1 000 sessions: a tick with nothing due looks at no session; the tick that ends them looks at each once or
    /// twice; one kept busy is watched again, the others leave no deadline behind.
    @Test func ticksLookAtDueDeadlinesOnly() {
        let h = harness(maxSessions: 2000)
        h.hello(Peers.flowctl, .operator, name: "flowctl", heartbeatMs: 60_000)
        for index in 0..<1000 { create("kiosk-\(index)", in: h, req: UInt64(100 + index)) }
        #expect(h.core.idleDeadlineCount == 1001)
        let before = h.core.sessionVisits
        h.tick(at: 30_000)
        #expect(h.core.sessionVisits.lookups == before.lookups)
        #expect(h.core.sessionVisits.walks == before.walks)

        h.tick(at: 50_000)
        h.deepLink(Peers.flowctl, Step("openDetail", payload: 1), session: "kiosk-7", req: 5000)
        let beforeExpiry = h.core.sessionVisits
        h.tick(at: 60_000)
        #expect(h.core.sessionVisits.walks == beforeExpiry.walks)
        #expect(h.core.sessionVisits.lookups - beforeExpiry.lookups <= 4 * 1001)
        #expect(h.core.sessionIDs == ["kiosk-7"])
        #expect(h.core.idleDeadlineCount == 1)
        h.tick(at: 110_000)
        #expect(h.core.sessionIDs == [])
        #expect(h.core.idleDeadlineCount == 0)
    }

    @Test func theFlagAndTheConfigFileSetTheTimeout() throws {
        let environment = ["FLOWD_RUNTIME_DIR": "/tmp/flowd-idle-settings"]
        func timeout(_ arguments: [String]) throws -> Int {
            try FlowdOptions.parse(arguments).settings(environment: environment).server.daemon.idleSessionTimeoutS
        }
        #expect(try timeout([]) == 0)
        #expect(try timeout(["--idle-session-timeout-s", "300"]) == 300)
        #expect(throws: (any Error).self) { try FlowdOptions.parse(["--idle-session-timeout-s", "-1"]) }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("flowd-idle-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        _ = FileManager.default.createFile(atPath: path, contents: Data(#"{"daemon": {"idle_session_timeout_s": 900}}"#.utf8))
        #expect(try timeout(["--config", path]) == 900)
        #expect(try timeout(["--config", path, "--idle-session-timeout-s", "0"]) == 0)
    }
}

extension DaemonMessage {
    fileprivate var isDetach: Bool {
        if case .detach = self { return true }
        return false
    }
}
