import FlowCore
import FlowDaemon
import FlowWire
import FlowdTesting
import Foundation
import Testing

/// `daemon.max_session_screens` and `daemon.max_session_attachments`: a session at a bound takes no steps
/// (`sessionFull`), counted, until it shrinks (docs/LIMITS.md).
struct SessionBoundsTests {
    private func harness(screens: Int = 100, attachments: Int = 100) -> DaemonHarness {
        var configuration = DaemonConfiguration()
        configuration.maxSessionScreens = screens
        configuration.maxSessionAttachments = attachments
        let h = DaemonHarness(configuration: configuration)
        h.hello(Peers.flowctl, .operator, name: "flowctl")
        return h
    }

    @Test func atTheScreenBoundDeepLinksAndStepsAreRefusedUntilAPersonsDismissalShrinksIt() {
        // `app` and `home`, then three details: 5 screens.
        let h = harness(screens: 5)
        for movie in 1...3 {
            #expect(h.deepLink(Peers.flowctl, Step("openDetail", payload: .int(movie)), req: UInt64(movie)).sent.count == 1)
        }
        #expect(h.core.ui(of: "default")?.count == 5)
        let seq = h.core.seq(of: "default")
        #expect(
            h.deepLink(Peers.flowctl, Step("openDetail", payload: 4), req: 10).sent
                == [Delivery(Peers.flowctl, refused(10, .sessionFull, .deepLink))]
        )
        #expect(h.core.counters.errors == ["sessionFull": 1])

        h.presenter(Peers.tui, name: "tui")
        h.report(Peers.tui, [("app", .visible), ("home", .visible)])
        h.hello(Peers.movies, .stepper, name: "movies", serves: ["home"])
        #expect(
            h.step(Peers.movies, Step("openDetail", payload: 5), attachment: 2, req: 11).to(Peers.movies)
                == [ok(11, dropped("sessionFull"))]
        )
        #expect(h.core.counters.stepsDropped["sessionFull"] == 1)
        #expect(h.core.seq(of: "default") == seq)
        #expect(h.core.ui(of: "default")?.count == 5)

        // A person goes back: the presenter's report is taken, and the session takes steps again.
        h.report(Peers.tui, [("detail.3", .dismissed), ("detail.2", .visible)], req: 12)
        #expect(h.core.ui(of: "default")?.count == 4)
        #expect(h.step(Peers.movies, Step("openDetail", payload: 5), attachment: 2, req: 13).to(Peers.movies) == [ok(13, accepted)])
        #expect(h.core.ui(of: "default")?.count == 5)
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
        let decoded = try JSONDecoder().decode(
            DaemonConfiguration.self, from: Data(#"{"max_session_screens": 64, "max_session_attachments": 32}"#.utf8)
        )
        #expect(decoded.maxSessionScreens == 64)
        #expect(decoded.maxSessionAttachments == 32)
    }
}
