import FlowCore
import FlowDaemon
import FlowWire
import FlowdTesting
import TestFlows
import Testing

private func syncReply(_ req: UInt64 = 2, seq: Int, _ mode: String) -> DaemonMessage {
    ok(req, ["seq": .int(seq), "mode": .string(mode)])
}

/// §6: presenters, the snapshot and the sequenced command stream.
struct PresenterTests {
    @Test func aPresenterSyncingAFreshSessionGetsOKSnapshotThenTheSnapshot() {
        let h = DaemonHarness()
        #expect(h.hello(Peers.tui, .presenter, name: "tui").sent == [Delivery(Peers.tui, welcome(peer: "p1"))])
        let sync = h.receive(.sync(Sync(req: 2, session: "default", lastSeq: 0)), from: Peers.tui)
        #expect(
            sync.sent == [
                Delivery(Peers.tui, syncReply(seq: 2, "snapshot")),
                Delivery(Peers.tui, .snapshot(SnapshotMessage(session: "default", seq: 2, ui: homeSnapshot))),
            ]
        )
        #expect(sync.events.isEmpty)
        // The snapshot rebuilds the daemon's UI, and the presenter reports what it shows.
        #expect(homeSnapshot.makeModel().model == h.core.ui(of: "default"))
        #expect(
            homeSnapshot.makeModel().reports == [
                .visibilityChanged("app", visible: true), .visibilityChanged("home", visible: true),
            ]
        )
    }

    @Test func commandsFollowTheSnapshotWithConsecutiveSeqs() {
        let h = DaemonHarness()
        h.presenter(Peers.tui, name: "tui")
        h.hello(Peers.flowctl, .operator, name: "flowctl")
        #expect(
            h.deepLink(Peers.flowctl, Step("openDetail", payload: 5), req: 3).sent == [
                Delivery(Peers.tui, command(3, .push(Screens.detail(5), onto: "app"))),
                Delivery(Peers.flowctl, ok(3, ["navigations": 1])),
            ])
        #expect(h.deepLink(Peers.flowctl, Step("back"), req: 4).to(Peers.tui) == [command(4, .pop(stack: "app"))])
        #expect(
            h.deepLink(Peers.flowctl, Step("openDetail", payload: 6), req: 5).to(Peers.tui) == [
                command(5, .push(Screens.detail(6), onto: "app"))
            ])
        #expect(
            h.received[Peers.tui]?.compactMap { message -> UInt64? in
                if case .command(let body) = message { return body.seq }
                return nil
            } == [3, 4, 5]
        )
        #expect(h.core.counters.commandsSequenced == 5)
        #expect(h.core.counters.commandsSent == 3)
    }

    @Test func aSyncCanCreateASession() {
        let h = DaemonHarness()
        h.hello(Peers.kiosk, .presenter, name: "kiosk")
        #expect(
            h.receive(.sync(Sync(req: 2, session: "kiosk-3", lastSeq: 0)), from: Peers.kiosk).sent
                == [Delivery(Peers.kiosk, refused(2, .unknownSession, .sync))]
        )
        let create = h.receive(.sync(Sync(req: 3, session: "kiosk-3", lastSeq: 0, create: true)), from: Peers.kiosk)
        #expect(
            create.sent == [
                Delivery(Peers.kiosk, syncReply(3, seq: 2, "snapshot")),
                Delivery(Peers.kiosk, .snapshot(SnapshotMessage(session: "kiosk-3", seq: 2, ui: homeSnapshot))),
            ]
        )
        #expect(create.local == ["attach kiosk-3 att#1"])
        #expect(create.events.map(\.session) == ["kiosk-3", "kiosk-3"])
        #expect(h.core.sessionIDs == ["default", "kiosk-3"])
    }

    @Test func acksAreCumulativeAndEachCommandIsCountedOnce() {
        let h = DaemonHarness()
        h.presenter(Peers.tui, name: "tui")
        h.hello(Peers.flowctl, .operator, name: "flowctl")
        for movie in 1...3 { h.deepLink(Peers.flowctl, Step("openDetail", payload: .int(movie))) }
        #expect(h.core.counters.commandsSent == 3)  // 3, 4, 5; 1 and 2 came in the snapshot
        let acks: [(UInt64, Int)] = [(4, 2), (4, 2), (3, 2), (5, 3), (99, 3)]
        for (seq, total) in acks {
            #expect(
                h.receive(.ack(Ack(session: "default", seq: seq)), from: Peers.tui).sent.isEmpty, "ACK has no reply")
            #expect(h.core.counters.commandsAcked == total, "after ACK \(seq)")
        }
        // An ACK from a presenter that does not host the session changes nothing.
        h.hello(Peers.kiosk, .presenter, name: "kiosk")
        h.deepLink(Peers.flowctl, Step("openDetail", payload: 4))
        h.receive(.ack(Ack(session: "default", seq: 6)), from: Peers.kiosk)
        #expect(h.core.counters.commandsAcked == 3)
        h.receive(.ack(Ack(session: "default", seq: 6)), from: Peers.tui)
        #expect(h.core.counters.commandsAcked == 4)
    }

    @Test func aRestartedPresenterInReplayModeGetsExactlyTheCommandsItMissed() {
        let h = DaemonHarness()
        h.presenter(Peers.tui, name: "tui")
        h.hello(Peers.flowctl, .operator, name: "flowctl")
        h.deepLink(Peers.flowctl, Step("openDetail", payload: 1))
        h.deepLink(Peers.flowctl, Step("openDetail", payload: 2))
        h.deepLink(Peers.flowctl, Step("back"))
        let firstRun = h.received[Peers.tui] ?? []
        #expect(firstRun.count == 6)  // WELCOME, OK, SNAPSHOT, COMMAND 3, 4, 5
        h.receive(.ack(Ack(session: "default", seq: 3)), from: Peers.tui)
        // The presenter restarts (a new connection, the same name) having applied up to 3.
        // The old connection is told it was replaced (§3), in case its process still runs.
        #expect(
            h.hello(Peers.tuiRestarted, .presenter, name: "tui").sent == [
                Delivery(Peers.tui, refused(nil, .replaced, .hello)), Delivery(Peers.tuiRestarted, welcome(peer: "p3")),
            ])
        let sync = h.receive(.sync(Sync(req: 2, session: "default", lastSeq: 3)), from: Peers.tuiRestarted)
        #expect(
            sync.sent == [
                Delivery(Peers.tuiRestarted, syncReply(seq: 5, "replay")),
                Delivery(Peers.tuiRestarted, firstRun[4]),
                Delivery(Peers.tuiRestarted, firstRun[5]),
            ]
        )
        #expect(firstRun[4] == command(4, .push(Screens.detail(2), onto: "app")))
        #expect(firstRun[5] == command(5, .pop(stack: "app")))
        // The stream goes on from there, once, to the new connection only.
        let next = h.deepLink(Peers.flowctl, Step("openDetail", payload: 3))
        #expect(next.to(Peers.tuiRestarted) == [command(6, .push(Screens.detail(3), onto: "app"))])
        #expect(next.to(Peers.tui).isEmpty)
        #expect(h.received[Peers.tui]?.count == firstRun.count + 1)  // the `replaced` ERROR
        // The old connection is forgotten.
        #expect(
            h.receive(.ack(Ack(session: "default", seq: 5)), from: Peers.tui).sent
                == [Delivery(Peers.tui, refused(nil, .notWelcome, .ack))]
        )
    }

    @Test func aSyncAtTheCurrentSeqReplaysNothing() {
        let h = DaemonHarness()
        h.presenter(Peers.tui, name: "tui")
        #expect(
            h.receive(.sync(Sync(req: 4, session: "default", lastSeq: 2)), from: Peers.tui).sent == [
                Delivery(Peers.tui, syncReply(4, seq: 2, "replay"))
            ])
    }

    @Test func aPresenterMoreThanMaxReplayCommandsBehindGetsASnapshot() {
        var configuration = DaemonConfiguration()
        configuration.maxReplayCommands = 2
        let h = DaemonHarness(configuration: configuration)
        h.presenter(Peers.tui, name: "tui")
        h.hello(Peers.flowctl, .operator, name: "flowctl")
        for movie in 1...3 { h.deepLink(Peers.flowctl, Step("openDetail", payload: .int(movie))) }
        let ui = UISnapshot(h.core.ui(of: "default")!)
        // Three commands behind (3, 4, 5): more than 2, a snapshot although the outbox holds them all.
        #expect(
            h.receive(.sync(Sync(req: 5, session: "default", lastSeq: 2)), from: Peers.tui).sent == [
                Delivery(Peers.tui, syncReply(5, seq: 5, "snapshot")),
                Delivery(Peers.tui, .snapshot(SnapshotMessage(session: "default", seq: 5, ui: ui))),
            ]
        )
        // Two behind: replayed.
        #expect(
            h.receive(.sync(Sync(req: 6, session: "default", lastSeq: 3)), from: Peers.tui).sent == [
                Delivery(Peers.tui, syncReply(6, seq: 5, "replay")),
                Delivery(Peers.tui, command(4, .push(Screens.detail(2), onto: "app"))),
                Delivery(Peers.tui, command(5, .push(Screens.detail(3), onto: "app"))),
            ]
        )
    }

    @Test func aPresenterTooFarBehindGetsASnapshot() {
        var configuration = DaemonConfiguration()
        configuration.outboxLimit = 2
        let h = DaemonHarness(configuration: configuration)
        h.presenter(Peers.tui, name: "tui")
        h.hello(Peers.flowctl, .operator, name: "flowctl")
        for movie in 1...3 { h.deepLink(Peers.flowctl, Step("openDetail", payload: .int(movie))) }
        // The outbox holds 4 and 5 only: after 2, the presenter would miss 3.
        let ui = UISnapshot(h.core.ui(of: "default")!)
        #expect(ui.screens.map(\.screen.id) == ["app", "home", "detail.1", "detail.2", "detail.3"])
        #expect(
            h.receive(.sync(Sync(req: 5, session: "default", lastSeq: 2)), from: Peers.tui).sent == [
                Delivery(Peers.tui, syncReply(5, seq: 5, "snapshot")),
                Delivery(Peers.tui, .snapshot(SnapshotMessage(session: "default", seq: 5, ui: ui))),
            ]
        )
        // After 3, everything is still there.
        #expect(
            h.receive(.sync(Sync(req: 6, session: "default", lastSeq: 3)), from: Peers.tui).sent == [
                Delivery(Peers.tui, syncReply(6, seq: 5, "replay")),
                Delivery(Peers.tui, command(4, .push(Screens.detail(2), onto: "app"))),
                Delivery(Peers.tui, command(5, .push(Screens.detail(3), onto: "app"))),
            ]
        )
        // A seq from a previous daemon run (ahead of this one's) gets a snapshot.
        #expect(
            h.receive(.sync(Sync(req: 7, session: "default", lastSeq: 40)), from: Peers.tui).sent == [
                Delivery(Peers.tui, syncReply(7, seq: 5, "snapshot")),
                Delivery(Peers.tui, .snapshot(SnapshotMessage(session: "default", seq: 5, ui: ui))),
            ]
        )
    }

    @Test func aSecondLivePresenterIsRefusedSessionHosted() {
        let h = DaemonHarness()
        h.presenter(Peers.tui, name: "tui", at: 0)
        h.hello(Peers.flowctl, .operator, name: "flowctl", at: 0)
        #expect(
            h.presenter(Peers.kiosk, name: "kiosk").sent == [Delivery(Peers.kiosk, refused(2, .sessionHosted, .sync))])
        let next = h.deepLink(Peers.flowctl, Step("openDetail", payload: 1))
        #expect(next.to(Peers.tui) == [command(3, .push(Screens.detail(1), onto: "app"))])
        #expect(next.to(Peers.kiosk).isEmpty)
        // Once the host leaves, the other presenter may host the session.
        h.receive(.bye, from: Peers.tui)
        #expect(
            h.receive(.sync(Sync(req: 3, session: "default", lastSeq: 0)), from: Peers.kiosk).to(Peers.kiosk).first
                == syncReply(3, seq: 3, "snapshot")
        )
    }

    @Test func aRestartedPresenterWithTheSameNameTakesOverAtOnce() {
        let h = DaemonHarness()
        h.presenter(Peers.tui, name: "tui")
        h.hello(Peers.flowctl, .operator, name: "flowctl")
        let takeover = h.presenter(Peers.tuiRestarted, name: "tui")
        #expect(
            takeover.sent == [
                Delivery(Peers.tuiRestarted, syncReply(seq: 2, "snapshot")),
                Delivery(Peers.tuiRestarted, .snapshot(SnapshotMessage(session: "default", seq: 2, ui: homeSnapshot))),
            ]
        )
        #expect(h.deepLink(Peers.flowctl, Step("back")).to(Peers.tuiRestarted) == [command(3, .pop(stack: "app"))])
        #expect(h.core.peerCounts == [.presenter: 1, .operator: 1])
    }

    @Test func aSilentPresentersScreensAreNotVisibleUntilItSyncsAndReportsAgain() {
        let h = DaemonHarness()
        h.presenter(Peers.tui, name: "tui", at: 0)
        h.hello(Peers.movies, .stepper, name: "movies", serves: ["home"], at: 0)
        h.report(Peers.tui, [("home", .visible)], at: 0)
        #expect(
            h.step(Peers.movies, Step("openDetail", payload: 1), attachment: 2, req: 4, at: 100).to(Peers.movies) == [
                ok(4, accepted)
            ])
        h.report(Peers.tui, [("home", .hidden), ("detail.1", .visible)], at: 200)
        h.report(Peers.tui, [("detail.1", .dismissed), ("home", .visible)], at: 300)
        // The stepper stays alive; the presenter, last heard at 300, is dead after 3300.
        h.receive(.heartbeat(Heartbeat()), from: Peers.movies, at: 2900)
        #expect(
            h.tick(at: 3300).sent == [
                Delivery(Peers.tui, heartbeat(["default": 3])), Delivery(Peers.movies, heartbeat()),
            ])
        let tick = h.tick(at: 3301)
        #expect(tick.sent.isEmpty)
        #expect(h.core.counters.peersLost == 1)
        #expect(h.core.tree(of: "default")?.root?.steppers.last?.presentable.isVisible == false)
        // Its screens count as not visible (not dismissed): the stepper's step is dropped, the attachment stays.
        let lost = h.step(Peers.movies, Step("openDetail", payload: 2), attachment: 2, req: 5, at: 3400)
        #expect(lost.sent == [Delivery(Peers.movies, ok(5, dropped("notVisible")))])
        #expect(lost.events == [drop(Step("openDetail", payload: 2), "notVisible", flow: "AppFlow", coordinator: 1)])
        // The presenter comes back: it must say HELLO first, then SYNC, then report.
        #expect(
            h.receive(.sync(Sync(req: 2, session: "default", lastSeq: 3)), from: Peers.tui, at: 3500).sent
                == [Delivery(Peers.tui, refused(2, .notWelcome, .sync))]
        )
        h.hello(Peers.tui, .presenter, name: "tui", at: 3500)
        #expect(
            h.receive(.sync(Sync(req: 2, session: "default", lastSeq: 3)), from: Peers.tui).sent == [
                Delivery(Peers.tui, syncReply(seq: 3, "replay"))
            ])
        #expect(
            h.step(Peers.movies, Step("openDetail", payload: 2), attachment: 2, req: 6).to(Peers.movies) == [
                ok(6, dropped("notVisible"))
            ])
        #expect(h.report(Peers.tui, [("home", .visible)], req: 7).sent == [Delivery(Peers.tui, ok(7))])
        let recovered = h.step(Peers.movies, Step("openDetail", payload: 2), attachment: 2, req: 8)
        #expect(recovered.to(Peers.movies) == [ok(8, accepted)])
        #expect(recovered.to(Peers.tui) == [command(4, .push(Screens.detail(2), onto: "app"))])
    }

    @Test func anUnreachablePresenterIsForgottenAndItsScreensAreNotVisible() {
        let h = DaemonHarness()
        h.presenter(Peers.tui, name: "tui")
        h.hello(Peers.movies, .stepper, name: "movies", serves: ["home"])
        h.report(Peers.tui, [("home", .visible)])
        #expect(h.handle(.peerUnreachable(Peers.tui)).sent.isEmpty)
        #expect(h.core.peerCounts == [.stepper: 1])
        #expect(
            h.step(Peers.movies, Step("openDetail", payload: 1), attachment: 2, req: 4).to(Peers.movies) == [
                ok(4, dropped("notVisible"))
            ])
        // The session is free for another presenter.
        #expect(h.presenter(Peers.kiosk, name: "kiosk").to(Peers.kiosk).first == syncReply(seq: 2, "snapshot"))
    }

    @Test func aReportOrActionInASessionThePresenterDoesNotHostIsRefusedNotHost() {
        let h = DaemonHarness()
        h.presenter(Peers.kiosk, name: "kiosk", session: "kiosk", create: true)
        #expect(
            h.report(Peers.kiosk, [("home", .visible)], req: 9).sent == [
                Delivery(Peers.kiosk, refused(9, .notHost, .report))
            ])
        #expect(
            h.receive(
                .userAction(UserAction(req: 10, session: "default", presentable: "home", action: Step("tap"))),
                from: Peers.kiosk
            ).sent
                == [Delivery(Peers.kiosk, refused(10, .notHost, .userAction))]
        )
        #expect(
            h.report(Peers.kiosk, [("home", .visible)], session: "nope", req: 11).sent == [
                Delivery(Peers.kiosk, refused(11, .unknownSession, .report))
            ])
        #expect(h.core.counters.reports == 0)
    }

    @Test("A command that does not fit the UI is sent in its place with its seq; the daemon's UI ignores it (§6.3)")
    func aCommandThatDoesNotFitTheUIIsSentAndIgnored() {
        let h = DaemonHarness()
        h.presenter(Peers.tui, name: "tui")
        h.hello(Peers.flowctl, .operator, name: "flowctl")
        h.deepLink(Peers.flowctl, Step("openDetail", payload: 5), req: 3)
        let ui = h.core.ui(of: "default")
        #expect(
            h.deepLink(Peers.flowctl, Step("openDetail", payload: 5), req: 4).to(Peers.tui) == [
                command(4, .push(Screens.detail(5), onto: "app"))
            ])
        #expect(h.core.ui(of: "default") == ui, "detail.5 is shown already: the second push changes nothing")
        #expect(h.core.seq(of: "default") == 4)
        #expect(h.deepLink(Peers.flowctl, Step("back"), req: 5).to(Peers.tui) == [command(5, .pop(stack: "app"))])
        #expect(h.core.ui(of: "default")?.presentables == ["app", "home"])
    }

    @Test func aScreenThePresenterDismissedOnItsOwnIsNotInTheNextSnapshot() {
        // A person went back: the presenter popped `home` itself and reported it dismissed.
        let h = DaemonHarness()
        h.presenter(Peers.tui, name: "tui")
        h.report(Peers.tui, [("home", .visible)])
        h.report(Peers.tui, [("home", .dismissed)])
        #expect(h.core.ui(of: "default")?.presentables == ["app"])
        #expect(
            h.receive(.sync(Sync(req: 5, session: "default", lastSeq: 0)), from: Peers.tui).to(Peers.tui).last
                == .snapshot(
                    SnapshotMessage(
                        session: "default", seq: 2,
                        ui: UISnapshot(
                            root: "app", screens: [UISnapshot.Entry(screen: Screens.app, placement: .window)])
                    )
                )
        )
    }
}
