import FlowCore
import FlowDaemon
import FlowWire
import FlowdTesting
import TestFlows
import Testing

private let homeAttach = attach(2, kind: "home", on: "home", context: ["greeting": "hi"])

/// A daemon with the stepper process `movies` (serving `home` and `detail`) and the presenter `tui` hosting the
/// default session and showing `home`.
private func homeShown(serves: [String] = ["home", "detail"], stepNames: Set<String>? = nil) -> DaemonHarness {
    let h = DaemonHarness(application: TestApplication(stepNames: stepNames))
    h.hello(Peers.movies, .stepper, name: "movies", serves: serves)
    h.presenter(Peers.tui, name: "tui")
    h.report(Peers.tui, [("app", .visible), ("home", .visible)])
    return h
}

/// The test application, whose `openDetail` takes an int payload only.
private struct IntDetailApplication: FlowApplication {
    let base = TestApplication()
    func makeRoot(session: String) -> FlowRoot { base.makeRoot(session: session) }
    func payloadRefusal(for step: Step) -> String? {
        step.name == "openDetail" && step.payload.intValue == nil ? "openDetail takes an int" : nil
    }
}

/// §5: stepper processes.
struct StepperTests {
    @Test func aStepperGetsAttachForAttachmentsOfItsKindsCreatedBeforeItConnected() {
        let h = DaemonHarness()
        #expect(
            h.hello(Peers.movies, .stepper, name: "movies", serves: ["home", "detail"]).sent == [
                Delivery(Peers.movies, welcome(peer: "p1")), Delivery(Peers.movies, homeAttach),
            ]
        )
        // A stepper serving other kinds gets none.
        #expect(
            h.hello(Peers.moviesB, .stepper, name: "other", serves: ["detail"]).sent == [
                Delivery(Peers.moviesB, welcome(peer: "p2"))
            ])
        // Nor does a presenter or an operator.
        #expect(
            h.hello(Peers.tui, .presenter, name: "tui", serves: ["home"]).sent == [
                Delivery(Peers.tui, welcome(peer: "p3"))
            ])
    }

    @Test func anAcceptedStepIsHandledBeforeItsOK() {
        let h = homeShown()
        let outcome = h.step(Peers.movies, Step("openDetail", payload: 7), attachment: 2, req: 31)
        #expect(
            outcome.sent == [
                Delivery(Peers.tui, command(3, .push(Screens.detail(7), onto: "app"))),
                Delivery(Peers.movies, attach(3, kind: "detail", on: "detail.7", context: ["movie": 7])),
                Delivery(Peers.movies, ok(31, accepted)),
            ]
        )
        #expect(
            outcome.events == [
                navigation("will", "AppFlow", coordinator: 1, Step("openDetail", payload: 7)),
                navigation("did", "AppFlow", coordinator: 1, Step("openDetail", payload: 7)),
            ]
        )
        #expect(h.core.counters.stepsAccepted == 1)
        #expect(h.core.counters.stepsDropped == [:])
    }

    @Test func stepsAreGatedByTheVisibilityThePresenterReports() {
        let h = DaemonHarness()
        h.hello(Peers.movies, .stepper, name: "movies", serves: ["home"])
        // No presenter: home was never reported visible.
        let first = h.step(Peers.movies, Step("openDetail", payload: 7), attachment: 2, req: 3)
        #expect(first.sent == [Delivery(Peers.movies, ok(3, dropped("notVisible")))])
        #expect(first.events == [drop(Step("openDetail", payload: 7), "notVisible", flow: "AppFlow", coordinator: 1)])
        #expect(h.core.seq(of: "default") == 2)
        // Reported visible: accepted.
        h.presenter(Peers.tui, name: "tui")
        h.report(Peers.tui, [("home", .visible)])
        let second = h.step(Peers.movies, Step("openDetail", payload: 7), attachment: 2, req: 4)
        #expect(second.to(Peers.movies) == [ok(4, accepted)])
        #expect(second.to(Peers.tui) == [command(3, .push(Screens.detail(7), onto: "app"))])
        // Reported hidden (covered by detail.7): dropped again.
        #expect(
            h.report(Peers.tui, [("home", .hidden), ("detail.7", .visible)], req: 5).sent == [
                Delivery(Peers.tui, ok(5))
            ])
        let third = h.step(Peers.movies, Step("openDetail", payload: 8), attachment: 2, req: 6)
        #expect(third.sent == [Delivery(Peers.movies, ok(6, dropped("notVisible")))])
        #expect(h.core.counters.stepsAccepted == 1)
        #expect(h.core.counters.stepsDropped == ["notVisible": 2])
        #expect(h.core.counters.reports == 3)
    }

    @Test func aStepForAnAttachmentThatIsNotTheSteppersIsRefusedUnknownAttachment() {
        let h = homeShown()
        h.hello(Peers.moviesB, .stepper, name: "zz-movies", serves: ["home"])
        let cases: [(PeerAddress, Int, String)] = [
            (Peers.movies, 99, "never existed"),
            (Peers.movies, 1, "the root flow's own stepper, inside the daemon"),
            (Peers.moviesB, 2, "assigned to another stepper process"),
        ]
        for (peer, attachment, why) in cases {
            #expect(
                h.step(peer, Step("openDetail", payload: 1), attachment: attachment, req: 7).sent
                    == [Delivery(peer, refused(7, .unknownAttachment, .step))],
                "\(why)"
            )
        }
        #expect(h.core.seq(of: "default") == 2)
        #expect(h.core.counters.errors == ["unknownAttachment": 3])
    }

    @Test func aStepForASessionThatDoesNotExistIsRefusedUnknownSession() {
        let h = homeShown()
        #expect(
            h.step(Peers.movies, Step("openDetail"), attachment: 2, session: "kiosk", req: 8).sent
                == [Delivery(Peers.movies, refused(8, .unknownSession, .step))]
        )
    }

    @Test func aStepTheApplicationDoesNotKnowIsRefusedUnknownStep() {
        let h = homeShown(stepNames: testStepNames)
        #expect(
            h.step(Peers.movies, Step("openDetial", payload: 7), attachment: 2, req: 9).sent
                == [Delivery(Peers.movies, refused(9, .unknownStep, .step))]
        )
        #expect(h.core.seq(of: "default") == 2)
        #expect(
            h.step(Peers.movies, Step("openDetail", payload: 7), attachment: 2, req: 10).to(Peers.movies).last
                == ok(10, accepted))
    }

    @Test func aStepWhosePayloadTheApplicationRefusesIsRefusedInvalidPayload() {
        let h = DaemonHarness(application: IntDetailApplication())
        h.hello(Peers.movies, .stepper, name: "movies", serves: ["home", "detail"])
        h.presenter(Peers.tui, name: "tui")
        h.report(Peers.tui, [("app", .visible), ("home", .visible)])
        h.hello(Peers.flowctl, .operator, name: "flowctl")
        #expect(
            h.step(Peers.movies, Step("openDetail", payload: "seven"), attachment: 2, req: 9).sent
                == [Delivery(Peers.movies, refused(9, .invalidPayload, .step))]
        )
        #expect(
            h.deepLink(Peers.flowctl, Step("openDetail"), req: 10).sent
                == [Delivery(Peers.flowctl, refused(10, .invalidPayload, .deepLink))]
        )
        #expect(h.core.seq(of: "default") == 2, "nothing applied")
        #expect(
            h.step(Peers.movies, Step("openDetail", payload: "seven"), attachment: 2, req: 9).to(Peers.movies)
                == [refused(9, .invalidPayload, .step)], "judged again: a refusal is not remembered"
        )
        #expect(
            h.step(Peers.movies, Step("openDetail", payload: 7), attachment: 2, req: 11).to(Peers.movies).last
                == ok(11, accepted))
    }

    @Test func aDismissedScreenDetachesItsStepperAndLaterStepsAreRefused() {
        let h = homeShown()
        h.step(Peers.movies, Step("openDetail", payload: 7), attachment: 2)
        h.report(Peers.tui, [("home", .hidden), ("detail.7", .visible)])
        // A person goes back: the presenter pops detail.7 on its own and says so.
        let back = h.report(Peers.tui, [("detail.7", .dismissed), ("home", .visible)], req: 11)
        #expect(back.sent == [Delivery(Peers.movies, detach(3, "presentableDismissed")), Delivery(Peers.tui, ok(11))])
        // The daemon's UI forgets it, so a snapshot would not bring it back.
        #expect(h.core.ui(of: "default")?.presentables == ["app", "home"])
        #expect(
            h.step(Peers.movies, Step("openDetail", payload: 8), attachment: 3, req: 12).sent
                == [Delivery(Peers.movies, refused(12, .unknownAttachment, .step))]
        )
        // Home's stepper still works.
        #expect(
            h.step(Peers.movies, Step("openDetail", payload: 8), attachment: 2, req: 13).to(Peers.movies).last
                == ok(13, accepted))
    }

    @Test func aChildFlowGetsItsRemoteFlowStepperWhichIsNotGatedByVisibility() {
        let h = homeShown(serves: ["home", "settings"])
        let open = h.step(Peers.movies, Step("openSettings"), attachment: 2, req: 20)
        #expect(
            open.sent == [
                Delivery(Peers.tui, command(3, .present(Screens.settings, over: "app"))),
                Delivery(
                    Peers.movies,
                    attach(3, kind: "settings", on: "settings", role: "flow", context: ["section": "general"])),
                Delivery(Peers.tui, command(4, .push(Screens.settingsList, onto: "settings"))),
                Delivery(Peers.movies, ok(20, accepted)),
            ]
        )
        #expect(
            open.events == [
                navigation("will", "AppFlow", coordinator: 1, Step("openSettings")),
                navigation("did", "AppFlow", coordinator: 1, Step("openSettings")),
                navigation("will", "SettingsFlow", coordinator: 2, Step("settingsStart")),
                navigation("did", "SettingsFlow", coordinator: 2, Step("settingsStart")),
            ]
        )
        // Nothing of the settings flow was reported visible; its own stepper is heard all the same (R14).
        let done = h.step(Peers.movies, Step("settingsDone"), attachment: 3, req: 21)
        #expect(
            done.sent == [
                Delivery(Peers.movies, detach(3, "flowEnded")),
                Delivery(Peers.tui, command(5, .dismiss(presentedOver: "app"))),
                Delivery(Peers.movies, ok(21, accepted)),
            ]
        )
        #expect(
            done.events == [
                navigation("will", "SettingsFlow", coordinator: 2, Step("settingsDone")),
                navigation("did", "SettingsFlow", coordinator: 2, Step("settingsDone")),
                navigation("will", "AppFlow", coordinator: 1, Step("settingsClosed")),
                navigation("did", "AppFlow", coordinator: 1, Step("settingsClosed")),
            ]
        )
        #expect(h.core.ui(of: "default")?.presentables == ["app", "home"])
        #expect(h.core.tree(of: "default")?.allNodes.map(\.flow) == ["AppFlow"])
        #expect(
            h.step(Peers.movies, Step("settingsDone"), attachment: 3, req: 22).sent
                == [Delivery(Peers.movies, refused(22, .unknownAttachment, .step))]
        )
    }

    @Test func aSilentStepperLosesItsAttachmentsToTheNextProcessServingTheKind() {
        let h = DaemonHarness()
        h.hello(Peers.movies, .stepper, name: "a-movies", serves: ["home"], at: 0)
        #expect(
            h.hello(Peers.moviesB, .stepper, name: "b-movies", serves: ["home"], at: 2000).sent == [
                Delivery(Peers.moviesB, welcome(peer: "p2"))
            ])
        // a-movies says nothing after 0: at 3001 it is dead; b-movies (heard at 2000) gets home, then its heartbeat.
        let tick = h.tick(at: 3001)
        #expect(tick.sent == [Delivery(Peers.moviesB, homeAttach), Delivery(Peers.moviesB, heartbeat())])
        #expect(h.core.counters.peersLost == 1)
        #expect(
            h.step(Peers.movies, Step("openDetail"), attachment: 2, req: 4, at: 3002).sent
                == [Delivery(Peers.movies, refused(4, .notWelcome, .step))]
        )
        #expect(
            h.step(Peers.moviesB, Step("openDetail"), attachment: 2, req: 5).to(Peers.moviesB) == [
                ok(5, dropped("notVisible"))
            ])
    }

    @Test func anAttachmentWithNoLiveStepperWaitsForANewProcessOfItsKind() {
        let h = DaemonHarness()
        h.hello(Peers.movies, .stepper, name: "movies", serves: ["home"], at: 0)
        #expect(h.tick(at: 3001).sent.isEmpty)
        #expect(h.core.peerCounts == [:])
        // The attachment waits, unassigned, in the tree.
        #expect(
            h.core.tree(of: "default")?.root?.steppers.map(\.stepper) == ["OneStepper(start)", "RemoteStepper(home)"])
        // The stepper process restarts, on a new connection.
        #expect(
            h.hello(Peers.moviesRestarted, .stepper, name: "movies", serves: ["home"], at: 5000).sent
                == [Delivery(Peers.moviesRestarted, welcome(peer: "p2")), Delivery(Peers.moviesRestarted, homeAttach)]
        )
    }

    @Test func aRestartedStepperProcessTakesOverItsAttachmentsAtOnce() {
        let h = DaemonHarness()
        h.hello(Peers.movies, .stepper, name: "movies", serves: ["home"])
        let restart = h.hello(Peers.moviesRestarted, .stepper, name: "movies", serves: ["home"])
        #expect(
            restart.sent == [
                Delivery(Peers.movies, refused(nil, .replaced, .hello)),
                Delivery(Peers.moviesRestarted, welcome(peer: "p2")), Delivery(Peers.moviesRestarted, homeAttach),
            ])
        #expect(h.core.peerCounts == [.stepper: 1])
        #expect(
            h.step(Peers.movies, Step("openDetail"), attachment: 2, req: 3).sent
                == [Delivery(Peers.movies, refused(3, .notWelcome, .step))]
        )
    }

    @Test func aStepperSayingHelloAgainOnItsConnectionGetsItsAttachmentsAgain() {
        // §5.1: a reconnected stepper process receives ATTACH again for every attachment of its kinds still alive
        // (a client with a fixed routing ID comes back on the same address).
        let h = DaemonHarness()
        h.hello(Peers.movies, .stepper, name: "movies", serves: ["home"])
        #expect(
            h.hello(Peers.movies, .stepper, name: "movies", serves: ["home"], req: 2).sent
                == [Delivery(Peers.movies, welcome(req: 2, peer: "p1")), Delivery(Peers.movies, homeAttach)]
        )
    }

    @Test func byeHandsTheAttachmentsToAnotherProcessAtOnce() {
        let h = DaemonHarness()
        h.hello(Peers.movies, .stepper, name: "a-movies", serves: ["home"])
        h.hello(Peers.moviesB, .stepper, name: "b-movies", serves: ["home"])
        #expect(h.receive(.bye, from: Peers.movies).sent == [Delivery(Peers.moviesB, homeAttach)])
    }

    @Test func severalProcessesServingAKindGetItByName() {
        let h = DaemonHarness()
        h.hello(Peers.moviesB, .stepper, name: "b-movies", serves: ["detail"])
        h.hello(Peers.movies, .stepper, name: "a-movies", serves: ["detail"])
        h.presenter(Peers.tui, name: "tui")
        h.hello(Peers.flowctl, .operator, name: "flowctl")
        let outcome = h.deepLink(Peers.flowctl, Step("openDetail", payload: 4))
        #expect(outcome.to(Peers.movies) == [attach(3, kind: "detail", on: "detail.4", context: ["movie": 4])])
        #expect(outcome.to(Peers.moviesB).isEmpty)
    }

    @Test func aStepperInsideTheDaemonIsFedBackAsALocalStep() {
        let h = homeShown()
        // The root flow's OneStepper is attachment 1, listened to by the transport (`attachLocal`).
        let local = h.handle(
            .localStep(session: "default", attachment: AttachmentID(1), step: Step("openDetail", payload: 3)))
        #expect(
            local.sent == [
                Delivery(Peers.tui, command(3, .push(Screens.detail(3), onto: "app"))),
                Delivery(Peers.movies, attach(3, kind: "detail", on: "detail.3", context: ["movie": 3])),
            ]
        )
        // A remote attachment is not fed this way, nor an unknown session.
        #expect(h.handle(.localStep(session: "default", attachment: AttachmentID(2), step: Step("back"))).sent.isEmpty)
        #expect(h.handle(.localStep(session: "kiosk", attachment: AttachmentID(1), step: Step("back"))).sent.isEmpty)
        #expect(h.core.seq(of: "default") == 3)
    }

    @Test func aUserActionReachesTheStepperBehindTheScreen() {
        let h = homeShown()
        let action = h.receive(
            .userAction(
                UserAction(req: 30, session: "default", presentable: "home", action: Step("pickMovie", payload: 7))),
            from: Peers.tui
        )
        #expect(
            action.sent == [
                Delivery(
                    Peers.movies,
                    .action(
                        ActionMessage(
                            session: "default", attachment: 2, presentable: "home",
                            action: Step("pickMovie", payload: 7)))
                ),
                Delivery(Peers.tui, ok(30, ["delivered": 1])),
            ]
        )
        #expect(action.events.isEmpty)
        #expect(h.core.seq(of: "default") == 2)  // an action is not a step
        // The stepper decides it means a step.
        #expect(
            h.step(Peers.movies, Step("openDetail", payload: 7), attachment: 2, req: 31).to(Peers.tui) == [
                command(3, .push(Screens.detail(7), onto: "app"))
            ])
        #expect(h.core.counters.userActions == 1)
    }

    @Test func aUserActionOnAScreenWithNoRemoteStepperIsDeliveredToNoOne() {
        let h = homeShown(serves: ["detail"])  // nobody serves home
        #expect(
            h.receive(
                .userAction(UserAction(req: 32, session: "default", presentable: "home", action: Step("tap"))),
                from: Peers.tui
            ).sent
                == [Delivery(Peers.tui, ok(32, ["delivered": 0]))]
        )
        // The root flow's own stepper (on app, inside the daemon) takes no actions.
        #expect(
            h.receive(
                .userAction(UserAction(req: 33, session: "default", presentable: "app", action: Step("tap"))),
                from: Peers.tui
            ).sent
                == [Delivery(Peers.tui, ok(33, ["delivered": 0]))]
        )
    }

    @Test func aUserActionOnAScreenThatIsNotInTheUIIsRefusedUnknownPresentable() {
        let h = homeShown()
        #expect(
            h.receive(
                .userAction(UserAction(req: 34, session: "default", presentable: "detail.1", action: Step("tap"))),
                from: Peers.tui
            ).sent
                == [Delivery(Peers.tui, refused(34, .unknownPresentable, .userAction))]
        )
    }
}
