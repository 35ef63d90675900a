import FlowClient
import FlowClientTesting
import FlowCore
import FlowDaemon
import FlowWire
import FlowdTesting
import Foundation
import TestFlows
import Testing

/// `daemon.max_session_screens`, `daemon.max_session_ui_bytes` and `daemon.max_session_attachments`: a session at a
/// bound takes no steps (`sessionFull`), counted, until it shrinks (docs/LIMITS.md).
struct SessionBoundsTests {
    private func harness(
        screens: Int = 100, uiBytes: Int = 1 << 20, attachments: Int = 100, journaling: Bool = false
    ) -> DaemonHarness {
        var configuration = DaemonConfiguration()
        configuration.maxSessionScreens = screens
        configuration.maxSessionUIBytes = uiBytes
        configuration.maxSessionAttachments = attachments
        let h = DaemonHarness(configuration: configuration, journaling: journaling)
        h.hello(Peers.flowctl, .operator, name: "flowctl")
        return h
    }

    /// Opens `details` details in `h`'s default session, which brings it to a bound, and shows what the bound does: a
    /// deep link and home's stepper's step are refused (`sessionFull`, counted) and change nothing; a person's
    /// dismissal of the top detail brings it under, and the step is taken. `measure` reads what the bound counts: `full`
    /// at the bound, `under` after the dismissal.
    private func expectTheBound(
        _ h: DaemonHarness, details: Int, measure: (DaemonHarness) -> Int?, full: Int, under: Int
    ) {
        for movie in 1...details {
            #expect(h.deepLink(Peers.flowctl, Step("openDetail", payload: .int(movie)), req: UInt64(movie)).to(Peers.flowctl).first?.type == .ok)
        }
        #expect(measure(h) == full)
        let seq = h.core.seq(of: "default")
        let next = JSONValue.int(details + 1)
        #expect(
            h.deepLink(Peers.flowctl, Step("openDetail", payload: next), req: 100).sent
                == [Delivery(Peers.flowctl, refused(100, .sessionFull, .deepLink))]
        )
        #expect(h.core.counters.errors == ["sessionFull": 1])

        h.presenter(Peers.tui, name: "tui")
        h.report(Peers.tui, [("app", .visible), ("home", .visible)])
        h.hello(Peers.movies, .stepper, name: "movies", serves: ["home"])
        #expect(
            h.step(Peers.movies, Step("openDetail", payload: next), attachment: 2, req: 101).to(Peers.movies)
                == [ok(101, dropped("sessionFull"))]
        )
        #expect(h.core.counters.stepsDropped["sessionFull"] == 1)
        #expect(h.core.seq(of: "default") == seq)
        #expect(measure(h) == full)

        // A person goes back: the presenter's report is taken, and the session takes steps again.
        h.report(Peers.tui, [(Screens.detail(details).id, .dismissed), (Screens.detail(details - 1).id, .visible)], req: 102)
        #expect(measure(h) == under)
        #expect(h.step(Peers.movies, Step("openDetail", payload: next), attachment: 2, req: 103).to(Peers.movies) == [ok(103, accepted)])
        #expect(measure(h) == full)
    }

    @Test func atTheScreenBoundDeepLinksAndStepsAreRefusedUntilAPersonsDismissalShrinksIt() {
        // `app` and `home`, then three details: 5 screens.
        expectTheBound(harness(screens: 5), details: 3, measure: { $0.core.ui(of: "default")?.count }, full: 5, under: 4)
    }

    /// What the default session's UI counts (`estimatedBytes`), and the same summed by walking its screens.
    private func uiBytes(_ h: DaemonHarness) -> (kept: Int, walked: Int) {
        guard let ui = h.core.ui(of: "default") else { return (-1, -1) }
        return (ui.estimatedBytes, ui.presentables.reduce(0) { $0 + ui.screen($1)!.estimatedBytes })
    }

    @Test func atTheUIByteBoundDeepLinksAndStepsAreRefusedUntilAPersonsDismissalShrinksIt() {
        // `app` counts 48 and `home` 66; `detail.1` to `detail.9` 67 each, `detail.10` on 68: the step that reaches
        // 1024 is taken, whatever it brings the UI to, and the dismissal of `detail.14` takes 68 off.
        let h = harness(uiBytes: 1024)
        expectTheBound(h, details: 14, measure: { self.uiBytes($0).kept }, full: 1057, under: 989)
        #expect(uiBytes(h).walked == 1057)
    }

    @Test func theUIsByteCountComesBackTheSameFromASnapshotTheJournalAndAWakening() throws {
        let h = harness(uiBytes: 1024, journaling: true)
        for movie in 1...8 { h.deepLink(Peers.flowctl, Step("openDetail", payload: .int(movie)), req: UInt64(movie)) }
        h.core.compactJournal()
        // After the snapshot, the journal's records: more details, and a pop of one.
        for movie in 9...14 { h.deepLink(Peers.flowctl, Step("openDetail", payload: .int(movie)), req: UInt64(movie)) }
        h.deepLink(Peers.flowctl, Step("back"), req: 20)
        h.deepLink(Peers.flowctl, Step("openDetail", payload: 15), req: 21)
        let expected = uiBytes(h)
        #expect(expected == (1057, 1057))
        for restarted in [try h.restarted(), try h.restarted(lazily: true)] {
            #expect(uiBytes(restarted) == expected)
            restarted.hello(Peers.flowctl, .operator, name: "flowctl")
            #expect(
                restarted.deepLink(Peers.flowctl, Step("openDetail", payload: 16), req: 30).sent
                    == [Delivery(Peers.flowctl, refused(30, .sessionFull, .deepLink))], "still at the bound")
        }
        // Hibernated and made again by its next use.
        var configuration = DaemonConfiguration()
        configuration.maxSessionUIBytes = 1024
        configuration.hibernateAfterS = 30
        let sleeping = DaemonHarness(configuration: configuration, journaling: true)
        sleeping.hello(Peers.flowctl, .operator, name: "flowctl", at: 0)
        for movie in 1...14 {
            sleeping.deepLink(Peers.flowctl, Step("openDetail", payload: .int(movie)), req: UInt64(movie))
        }
        sleeping.receive(.heartbeat(Heartbeat()), from: Peers.flowctl, at: 31_499)
        sleeping.tick(at: 31_500)
        #expect(sleeping.core.hibernatedSessionCount == 1)
        #expect(
            sleeping.deepLink(Peers.flowctl, Step("openDetail", payload: 15), req: 20).sent
                == [Delivery(Peers.flowctl, refused(20, .sessionFull, .deepLink))], "woken, still at the bound")
        #expect(sleeping.core.hibernatedSessionCount == 0)
        #expect(uiBytes(sleeping) == (1057, 1057))
    }

    @Test func atTheAttachmentBoundStepsAreRefused() {
        // The root's stepper and `home`'s: 2 attachments; a detail adds one.
        let h = harness(attachments: 3)
        #expect(h.deepLink(Peers.flowctl, Step("openDetail", payload: 1), req: 1).to(Peers.flowctl).first?.type == .ok)
        #expect(
            h.deepLink(Peers.flowctl, Step("openDetail", payload: 2), req: 2).sent
                == [Delivery(Peers.flowctl, refused(2, .sessionFull, .deepLink))]
        )
        // Other sessions are not held back.
        h.receive(.createSession(SessionRequest(req: 3, session: "kiosk-1")), from: Peers.flowctl)
        #expect(
            h.deepLink(Peers.flowctl, Step("openDetail", payload: 1), session: "kiosk-1", req: 4).to(Peers.flowctl).first?.type == .ok
        )
    }

    @Test func theDefaultsHoldTheBenchmarksLargestUIAndTheConfigFileSetsThem() throws {
        let defaults = DaemonConfiguration()
        #expect(defaults.maxSessionScreens == 20_000)
        #expect(defaults.maxSessionAttachments == 20_000)
        #expect(defaults.maxSessionUIBytes == 64 << 20)
        let decoded = try JSONDecoder().decode(
            DaemonConfiguration.self,
            from: Data(#"{"max_session_screens": 64, "max_session_attachments": 32, "max_session_ui_bytes": 4096}"#.utf8)
        )
        #expect(decoded.maxSessionScreens == 64)
        #expect(decoded.maxSessionAttachments == 32)
        #expect(decoded.maxSessionUIBytes == 4096)
    }

    @Test func theUIByteBoundIsReadFromTheFlagWithinItsBounds() throws {
        let settings = try FlowdOptions.parse(["--no-journal", "--max-session-ui-bytes", "65536"]).settings(environment: [:])
        #expect(settings.server.daemon.maxSessionUIBytes == 65536)
        #expect(
            #expect(throws: (any Error).self) { try FlowdOptions.parse(["--max-session-ui-bytes", "1023"]) }
                .map(FlowdOptions.message(for:)) == "--max-session-ui-bytes must be at least 1024")
        var configuration = DaemonConfiguration()
        configuration.maxSessionUIBytes = 0
        #expect(configuration.outOfBounds()?.field == "daemon.max_session_ui_bytes")
    }

    /// The bound is logged as a step finds the session at it (warning, at the first step refused, not again for the
    /// next) and under it again (notice, at the first step taken): a session reaching the bound or shrinking under it
    /// logs nothing until a step comes (docs/LIMITS.md, *One session's size*).
    @Test func theBoundIsLoggedAtTheFirstStepRefusedAndAtTheFirstStepTakenAgain() throws {
        let recorder = LogRecorder()
        var configuration = DaemonConfiguration()
        configuration.maxSessionScreens = 4
        let daemon = EmbeddedDaemon(
            application: TestApplication(), configuration: configuration, logger: recorder.logger(label: "bounds"))
        let presenter = daemon.connectPresenter()
        let flowctl = daemon.connectOperator()
        let logged = {
            recorder.lines.withLock { $0 }.filter { $0.message.hasPrefix("session ") && $0.metadata["screens"] != nil }
                .map { "\($0.level) \($0.message)" }
        }
        let atTheBound = "warning session at its bounds: its steps are refused (sessionFull)"
        let underAgain = "notice session under its bounds again: its steps are taken"
        #expect(daemon.ui()?.count == 2, "app and home")
        for movie in 1...2 {
            guard case .applied = flowctl.deepLink(Step("openDetail", payload: .int(movie))) else {
                Issue.record("detail \(movie) not applied: \(flowctl.record.messages)")
                return
            }
        }
        #expect(daemon.ui()?.count == 4)
        #expect(logged().isEmpty)
        for movie in 3...4 {
            guard case .refused(let error) = flowctl.deepLink(Step("openDetail", payload: .int(movie))) else {
                Issue.record("detail \(movie) not refused")
                return
            }
            #expect(error.code == .sessionFull)
        }
        #expect(logged() == [atTheBound])

        try presenter.tapBack(in: "app")
        #expect(daemon.ui()?.count == 3)
        #expect(logged() == [atTheBound])
        guard case .applied = flowctl.deepLink(Step("openDetail", payload: 5)) else {
            Issue.record("detail 5 not applied: \(flowctl.record.messages)")
            return
        }
        #expect(logged() == [atTheBound, underAgain])
    }

    /// A session that reached its UI byte bound with text screens has a `SNAPSHOT` a `FlowClient` presenter takes
    /// with its default socket options. Its JSON is larger than the bound's count (each screen's entry adds some 150
    /// bytes of structure where the count adds 32): with both at 64 MiB, such a session's `SNAPSHOT` was 64.15 MiB
    /// (probed against flowd: 337 deep links of 200 000 characters), its presenter's libzmq dropped the connection at
    /// every `SYNC`, and `flowctl present` said flowd did not answer.
    @Test func aSessionAtItsUIByteBoundHasASnapshotAFlowClientPresenterTakes() {
        let bound = DaemonConfiguration().maxSessionUIBytes
        let text = JSONValue.string(String(repeating: "x", count: 200_000))
        var model = PresentationModel()
        _ = model.apply([.setRoot(.stack("pages"))])
        var pages = 0
        while model.estimatedBytes < bound {  // each step taken while the session is under its bound
            pages += 1
            _ = model.apply([.push(.view(PresentableID("page.\(pages)"), type: "Page", data: text), onto: "pages")])
        }
        let snapshot = SnapshotMessage(session: "default", seq: UInt64(pages + 1), ui: UISnapshot(model))
        // ZMQ_MAXMSGSIZE bounds each frame; the body is one.
        let largest = WireCodec().encode(.snapshot(snapshot)).map(\.count).max() ?? 0
        #expect(largest > bound)
        #expect(Int64(largest) <= FlowClientConfiguration.defaultMaxMessageSize, "a SNAPSHOT of \(largest) bytes")
    }
}
