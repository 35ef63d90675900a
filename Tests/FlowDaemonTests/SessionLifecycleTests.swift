import FlowCore
import FlowDaemon
import FlowWire
import FlowdTesting
import Testing

/// §4: a session's end (`END_SESSION`), what its presenter and steppers are told, and that it stays ended.
struct SessionLifecycleTests {
    private let emptyUI = UISnapshot(root: nil, screens: [])

    /// `kiosk-3` hosted by `tui`, its `home` attachment held by the stepper `movies`.
    private func kioskWithPresenterAndStepper(journaling: Bool = false) -> DaemonHarness {
        let h = DaemonHarness(journaling: journaling)
        h.hello(Peers.flowctl, .operator, name: "flowctl")
        h.presenter(Peers.tui, name: "tui", session: "kiosk-3", create: true)
        h.hello(Peers.movies, .stepper, name: "movies", serves: ["home"])
        return h
    }

    @Test func endSessionTellsThePresenterDetachesTheSteppersAndForgetsTheSession() {
        let h = kioskWithPresenterAndStepper()
        let end = h.receive(.endSession(SessionRequest(req: 7, session: "kiosk-3")), from: Peers.flowctl)
        #expect(
            end.sent == [
                Delivery(Peers.tui, .snapshot(SnapshotMessage(session: "kiosk-3", seq: 2, ui: emptyUI))),
                Delivery(Peers.tui, refused(nil, .sessionEnded, .endSession)),
                Delivery(Peers.movies, detach(2, "sessionEnded", session: "kiosk-3")),
                Delivery(Peers.flowctl, ok(7, ["seq": 2, "presenter": "tui", "attachments": 2])),
            ]
        )
        #expect(end.local == ["detach kiosk-3 att#1"])
        #expect(h.core.sessionIDs == ["default"])
        #expect(h.core.tree(of: "kiosk-3") == nil)
        // A notice, not a refused message; the end is counted by reason.
        #expect(h.core.counters.errors.isEmpty)
        #expect(h.core.counters.sessionsEnded == ["operator": 1])
        // What the presenter and the stepper send about it afterwards is refused: it is gone.
        #expect(
            h.report(Peers.tui, [("home", .visible)], session: "kiosk-3", req: 4).sent
                == [Delivery(Peers.tui, refused(4, .unknownSession, .report))]
        )
        #expect(
            h.step(Peers.movies, Step("openDetail"), attachment: 2, session: "kiosk-3", req: 5).sent
                == [Delivery(Peers.movies, refused(5, .unknownSession, .step))]
        )
        // The presenter's heartbeat no longer names it.
        #expect(h.tick(at: 1000).to(Peers.tui) == [heartbeat()])
    }

    @Test func endingAnUnknownOrEndedSessionIsRefusedAndChangesNothing() {
        let h = kioskWithPresenterAndStepper()
        #expect(
            h.receive(.endSession(SessionRequest(req: 1, session: "kiosk-3")), from: Peers.flowctl).to(Peers.flowctl)
                == [ok(1, ["seq": 2, "presenter": "tui", "attachments": 2])]
        )
        let again = h.receive(.endSession(SessionRequest(req: 2, session: "kiosk-3")), from: Peers.flowctl)
        #expect(again.sent == [Delivery(Peers.flowctl, refused(2, .unknownSession, .endSession))])
        #expect(
            h.receive(.endSession(SessionRequest(req: 3, session: "nowhere")), from: Peers.flowctl).sent
                == [Delivery(Peers.flowctl, refused(3, .unknownSession, .endSession))]
        )
        #expect(h.core.sessionIDs == ["default"])
        #expect(h.core.counters.sessionsEnded == ["operator": 1])
    }

    @Test func onlyAnOperatorMayEndASession() {
        let h = kioskWithPresenterAndStepper()
        #expect(
            h.receive(.endSession(SessionRequest(req: 9, session: "kiosk-3")), from: Peers.tui).sent
                == [Delivery(Peers.tui, refused(9, .forbidden, .endSession))]
        )
        #expect(h.core.sessionIDs == ["default", "kiosk-3"])
    }

    @Test func anEndedSessionStaysEndedAfterARestartAndItsIDStartsANewSession() throws {
        let h = kioskWithPresenterAndStepper(journaling: true)
        h.report(Peers.tui, [("app", .visible), ("home", .visible)], session: "kiosk-3")
        h.step(Peers.movies, Step("openDetail", payload: 7), attachment: 2, session: "kiosk-3")
        #expect(h.core.seq(of: "kiosk-3") == 3)
        h.receive(.endSession(SessionRequest(req: 4, session: "kiosk-3")), from: Peers.flowctl)

        let restarted = try h.restarted()
        #expect(restarted.core.sessionIDs == ["default"])
        // Without `create`, the ID is unknown; with it, a new session starts, as fresh as any new one.
        restarted.hello(Peers.tui, .presenter, name: "tui")
        #expect(
            restarted.receive(.sync(Sync(req: 2, session: "kiosk-3", lastSeq: 3)), from: Peers.tui).sent
                == [Delivery(Peers.tui, refused(2, .unknownSession, .sync))]
        )
        restarted.receive(.sync(Sync(req: 3, session: "kiosk-3", lastSeq: 3, create: true)), from: Peers.tui)
        let fresh = DaemonHarness()
        fresh.hello(Peers.tui, .presenter, name: "tui")
        fresh.receive(.sync(Sync(req: 3, session: "kiosk-3", lastSeq: 0, create: true)), from: Peers.tui)
        #expect(restarted.state(of: "kiosk-3") == fresh.state(of: "kiosk-3"))
        // And that new session survives the next restart, while the ended one stays ended.
        let again = try restarted.restarted()
        #expect(again.core.sessionIDs == ["default", "kiosk-3"])
        #expect(again.state(of: "kiosk-3") == fresh.state(of: "kiosk-3"))
    }

    @Test func aPresenterSyncingAnEndedSessionsIDAgainGetsTheNewSessionsSnapshot() {
        let h = kioskWithPresenterAndStepper()
        h.receive(.endSession(SessionRequest(req: 7, session: "kiosk-3")), from: Peers.flowctl)
        // The new session's seq starts again: the old one's last seq (2) names none of its commands.
        let synced = h.receive(.sync(Sync(req: 8, session: "kiosk-3", lastSeq: 2, create: true)), from: Peers.tui)
        #expect(
            synced.to(Peers.tui) == [
                ok(8, ["seq": 2, "mode": "snapshot"]),
                .snapshot(SnapshotMessage(session: "kiosk-3", seq: 2, ui: UISnapshot(h.core.ui(of: "kiosk-3")!))),
            ]
        )
    }
}
