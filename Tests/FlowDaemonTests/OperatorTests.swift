import FlowCore
import FlowDaemon
import FlowWire
import FlowdTesting
import Foundation
import TestFlows
import Testing

/// The result of the one `OK` in `outcome` for `peer`.
private func result(_ outcome: DaemonOutcome, _ peer: PeerAddress) -> JSONValue? {
    guard case .ok(let reply)? = outcome.to(peer).first, outcome.to(peer).count == 1 else { return nil }
    return reply.result
}

/// §7: operators; §4: sessions side by side; §9: events.
struct OperatorTests {
    @Test func sessionsListsEverySessionWithItsPresenterSeqAndSteppers() {
        let h = DaemonHarness()
        h.hello(Peers.flowctl, .operator, name: "flowctl")
        #expect(
            result(h.receive(.sessions(SessionsRequest(req: 1)), from: Peers.flowctl), Peers.flowctl)
                == [
                    "sessions": [
                        [
                            "id": "default", "flows": 1, "presenter": nil, "seq": 2, "steppers": 2, "screens": 2,
                            "ui_bytes": 114, "attachments": 2, "outbox_commands": 2, "outbox_bytes": 242,
                        ]
                    ]
                ]
        )
        h.presenter(Peers.tui, name: "tui")
        h.receive(.createSession(SessionRequest(req: 2, session: "kiosk-3")), from: Peers.flowctl)
        h.report(Peers.tui, [("home", .visible)])
        h.hello(Peers.movies, .stepper, name: "movies", serves: ["home", "settings"])
        h.step(Peers.movies, Step("openSettings"), attachment: 2)
        let sessions = result(h.receive(.sessions(SessionsRequest(req: 3)), from: Peers.flowctl), Peers.flowctl)
        #expect(
            sessions == [
                "sessions": [
                    [
                        "id": "default", "flows": 2, "presenter": "tui", "seq": 4, "steppers": 3, "screens": 4,
                        "ui_bytes": 232, "attachments": 3, "outbox_commands": 4, "outbox_bytes": 488,
                    ],
                    [
                        "id": "kiosk-3", "flows": 1, "presenter": nil, "seq": 2, "steppers": 2, "screens": 2,
                        "ui_bytes": 114, "attachments": 2, "outbox_commands": 2, "outbox_bytes": 242,
                    ],
                ]
            ]
        )
        // The fields are the document's (§ 7).
        let documented: JSONValue = [
            "id": "default", "flows": 9, "presenter": "tui", "seq": 57, "steppers": 4, "screens": 12, "ui_bytes": 804,
            "attachments": 4, "outbox_commands": 57, "outbox_bytes": 9120,
        ]
        if case .object(let members)? = sessions, case .array(let list)? = members["sessions"],
            case .object(let first)? = list.first,
            case .object(let doc) = documented
        {
            #expect(Set(first.keys) == Set(doc.keys))
        } else {
            Issue.record("no sessions: \(String(describing: sessions))")
        }
    }

    @Test func treeGivesTheFlowTreeAsJSONAndAsText() throws {
        let h = DaemonHarness()
        h.hello(Peers.flowctl, .operator, name: "flowctl")
        h.presenter(Peers.tui, name: "tui")
        h.report(Peers.tui, [("app", .visible), ("home", .visible)])
        let treeRead = h.core.tree(of: "default")
        let tree = try #require(treeRead)
        #expect(
            tree.description == """
                AppFlow flow#1 root=app [visible] ready
                  - OneStepper(start) att#1 (flow)
                  - RemoteStepper(home) att#2 on home [visible]

                """
        )
        // The schema of §7.1: snake_case, identifiers as bare integers, a presentable's state as one word.
        let documented = try JSONDecoder().decode(
            JSONValue.self,
            from: Data(
                #"""
                {"root": {"coordinator": 1, "flow": "AppFlow", "root": {"id": "app", "state": "visible"}, "ready": true,
                 "allow_step_when_dismissed": false, "children": [], "steppers": [
                  {"attachment": 1, "stepper": "OneStepper(start)", "role": "flow",
                   "presentable": {"id": "app", "state": "visible"}, "allow_step_when_not_presented": true,
                   "allow_step_when_dismissed": false, "pending_initial_step": null},
                  {"attachment": 2, "stepper": "RemoteStepper(home)", "role": "contributor",
                   "presentable": {"id": "home", "state": "visible"}, "allow_step_when_not_presented": false,
                   "allow_step_when_dismissed": false, "pending_initial_step": null}]}}
                """#.utf8)
        )
        #expect(
            result(h.receive(.tree(SessionRequest(req: 4, session: "default")), from: Peers.flowctl), Peers.flowctl)
                == ["tree": documented, "text": .string(tree.description)]
        )
        #expect(
            h.receive(.tree(SessionRequest(req: 5, session: "kiosk")), from: Peers.flowctl).sent
                == [Delivery(Peers.flowctl, refused(5, .unknownSession, .tree))]
        )
    }

    @Test func deepLinkReachesTheWholeTreeAndCountsTheNavigations() {
        let h = DaemonHarness(application: TestApplication(stepNames: testStepNames))
        h.hello(Peers.flowctl, .operator, name: "flowctl")
        h.presenter(Peers.tui, name: "tui")
        let detail = h.deepLink(Peers.flowctl, Step("openDetail", payload: 23452), req: 3)
        #expect(
            detail.sent == [
                Delivery(Peers.tui, command(3, .push(Screens.detail(23452), onto: "app"))),
                Delivery(Peers.flowctl, ok(3, ["navigations": 1])),
            ]
        )
        #expect(
            detail.events == [
                navigation("will", "AppFlow", coordinator: 1, Step("openDetail", payload: 23452)),
                navigation("did", "AppFlow", coordinator: 1, Step("openDetail", payload: 23452)),
            ]
        )
        // Opening the settings navigates the root flow, then the child flow it starts.
        #expect(result(h.deepLink(Peers.flowctl, Step("openSettings"), req: 4), Peers.flowctl) == ["navigations": 2])
        // A deep link goes to every flow alive, parent first: both navigate to it.
        let both = h.deepLink(Peers.flowctl, Step("back"), req: 5)
        #expect(both.to(Peers.flowctl) == [ok(5, ["navigations": 2])])
        #expect(both.events.map(\.flow) == ["AppFlow", "AppFlow", "SettingsFlow", "SettingsFlow"])
        #expect(h.core.counters.navigations == 1 + 1 + 2 + 2)
        #expect(
            h.deepLink(Peers.flowctl, Step("fly"), req: 6).sent == [
                Delivery(Peers.flowctl, refused(6, .unknownStep, .deepLink))
            ]
        )
        #expect(
            h.deepLink(Peers.flowctl, Step("back"), session: "kiosk", req: 7).sent
                == [Delivery(Peers.flowctl, refused(7, .unknownSession, .deepLink))]
        )
    }

    @Test func createSessionCreatesOnceAndRespectsTheLimit() {
        var configuration = DaemonConfiguration()
        configuration.maxSessions = 2
        let h = DaemonHarness(configuration: configuration)
        h.hello(Peers.flowctl, .operator, name: "flowctl")
        let create = h.receive(.createSession(SessionRequest(req: 1, session: "kiosk-3")), from: Peers.flowctl)
        #expect(create.sent == [Delivery(Peers.flowctl, ok(1, ["created": true]))])
        #expect(create.local == ["attach kiosk-3 att#1"])
        #expect(
            create.events == [
                navigation("will", "AppFlow", coordinator: 1, Step("start"), session: "kiosk-3"),
                navigation("did", "AppFlow", coordinator: 1, Step("start"), session: "kiosk-3"),
            ]
        )
        #expect(h.core.seq(of: "kiosk-3") == 2)
        #expect(
            h.receive(.createSession(SessionRequest(req: 2, session: "kiosk-3")), from: Peers.flowctl).sent
                == [Delivery(Peers.flowctl, ok(2, ["created": false]))]
        )
        #expect(
            h.receive(.createSession(SessionRequest(req: 3, session: "default")), from: Peers.flowctl).sent
                == [Delivery(Peers.flowctl, ok(3, ["created": false]))]
        )
        #expect(
            h.receive(.createSession(SessionRequest(req: 4, session: "kiosk-4")), from: Peers.flowctl).sent
                == [Delivery(Peers.flowctl, refused(4, .sessionLimit, .createSession))]
        )
        guard case .error(let refusal)? = h.daemon.received[Peers.flowctl]?.last else {
            Issue.record("no ERROR for the session over the limit")
            return
        }
        #expect(refusal.message.contains("holds 2 sessions, its limit (daemon.max_sessions)"), "\(refusal.message)")
        #expect(DaemonConfiguration().maxSessions == 10_000)
        #expect(h.core.sessionIDs == ["default", "kiosk-3"])
    }

    @Test func healthReportsTheDaemonItsPeersAndItsCounters() {
        let h = DaemonHarness(now: 1000)
        h.hello(Peers.flowctl, .operator, name: "flowctl", at: 1000)
        h.presenter(Peers.tui, name: "tui")
        h.hello(Peers.movies, .stepper, name: "movies", serves: ["home"])
        h.report(Peers.tui, [("home", .visible)])
        h.step(Peers.movies, Step("openDetail", payload: 1), attachment: 2)
        h.receive(.ack(Ack(session: "default", seq: 3)), from: Peers.tui)
        h.receive(
            .userAction(UserAction(req: 4, session: "default", presentable: "detail.1", action: Step("tap"))),
            from: Peers.tui)
        h.report(Peers.tui, [("home", .hidden), ("detail.1", .visible)])
        h.step(Peers.movies, Step("openDetail", payload: 2), attachment: 2, req: 3)
        h.receive(frames: [Array("FLOWD1".utf8)], from: Peers.movies)
        let health = h.receive(.health(PlainRequest(req: 9)), from: Peers.flowctl, at: 13_500)
        #expect(
            result(health, Peers.flowctl) == [
                "status": "ok", "daemon": "test-daemon", "uptime_s": 12.5, "sessions": 1, "sessions_pending": 0,
                "sessions_unrestorable": 0,
                "peers": ["stepper": 1, "presenter": 1, "operator": 1],
                "counters": [
                    "messages_in": 12, "messages_out": 13, "errors": ["malformedFrame": 1], "steps_accepted": 1,
                    "steps_dropped": ["notVisible": 1], "navigations": 2, "commands_sequenced": 3, "commands_sent": 1,
                    "commands_acked": 1, "reports": 3, "user_actions": 1, "peers_lost": 0, "sends_dropped": [:],
                    "steps_duplicate": 0, "sessions_ended": [:],
                ],
                "session_bounds": [
                    "screens": 20000, "ui_bytes": 67_108_864, "attachments": 20000, "outbox_commands": 1024,
                    "outbox_bytes": 1_048_576,
                ],
                // `app`, `home`, `detail.1`: the one session's figures.
                "session_usage_max": [
                    "screens": 3, "ui_bytes": 181, "attachments": 3, "outbox_commands": 3, "outbox_bytes": 373,
                ],
            ]
        )
    }

    @Test func twoSessionsSideBySideDoNotSeeEachOthersCommandsOrEvents() {
        let h = DaemonHarness()
        h.hello(Peers.movies, .stepper, name: "movies", serves: ["home"], at: 0)
        h.hello(Peers.flowctl, .operator, name: "flowctl", at: 0)
        let create = h.receive(.createSession(SessionRequest(req: 1, session: "kiosk")), from: Peers.flowctl)
        // The stepper serving home gets the new session's home too: same attachment number, other session.
        #expect(
            create.sent == [
                Delivery(
                    Peers.movies, attach(2, kind: "home", on: "home", context: ["greeting": "hi"], session: "kiosk")),
                Delivery(Peers.flowctl, ok(1, ["created": true])),
            ]
        )
        h.presenter(Peers.tui, name: "tui")
        h.presenter(Peers.kiosk, name: "kiosk", session: "kiosk")
        h.report(Peers.tui, [("home", .visible)])
        h.report(Peers.kiosk, [("home", .visible)], session: "kiosk")
        // A step in kiosk: kiosk's presenter and kiosk's events only.
        let kioskStep = h.step(Peers.movies, Step("openDetail", payload: 9), attachment: 2, session: "kiosk", req: 5)
        #expect(
            kioskStep.sent == [
                Delivery(Peers.kiosk, command(3, .push(Screens.detail(9), onto: "app"), session: "kiosk")),
                Delivery(Peers.movies, ok(5, accepted)),
            ]
        )
        #expect(Set(kioskStep.events.map(\.session)) == ["kiosk"])
        #expect(h.core.seq(of: "default") == 2)
        // A step in default: the other way round.
        let defaultStep = h.step(Peers.movies, Step("openDetail", payload: 7), attachment: 2, req: 6)
        #expect(
            defaultStep.sent == [
                Delivery(Peers.tui, command(3, .push(Screens.detail(7), onto: "app"))),
                Delivery(Peers.movies, ok(6, accepted)),
            ]
        )
        #expect(Set(defaultStep.events.map(\.session)) == ["default"])
        // Visibility is per session: home hidden in kiosk does not gate default.
        h.report(Peers.kiosk, [("home", .hidden)], session: "kiosk")
        #expect(
            h.step(Peers.movies, Step("back"), attachment: 2, session: "kiosk", req: 7).to(Peers.movies) == [
                ok(7, dropped("notVisible"))
            ])
        #expect(h.step(Peers.movies, Step("back"), attachment: 2, req: 8).to(Peers.movies) == [ok(8, accepted)])
        // Actions go to the right session's attachment.
        #expect(
            h.receive(
                .userAction(UserAction(req: 9, session: "kiosk", presentable: "home", action: Step("tap"))),
                from: Peers.kiosk
            )
            .to(Peers.movies) == [
                .action(ActionMessage(session: "kiosk", attachment: 2, presentable: "home", action: Step("tap")))
            ]
        )
        // Heartbeats carry each presenter's own session.
        let tick = h.tick(at: 1000)
        #expect(tick.to(Peers.tui) == [heartbeat(["default": 4])])
        #expect(tick.to(Peers.kiosk) == [heartbeat(["kiosk": 3])])
        // And each presenter received only its own session's commands.
        for (peer, session) in [(Peers.tui, "default"), (Peers.kiosk, "kiosk")] {
            for message in h.received[peer] ?? [] {
                switch message {
                case .command(let body): #expect(body.session == session)
                case .snapshot(let body): #expect(body.session == session)
                default: break
                }
            }
        }
    }

    @Test func eventsAreWillAndDidAroundEachNavigationAndDropForEachDroppedStep() {
        let h = DaemonHarness()
        h.hello(Peers.movies, .stepper, name: "movies", serves: ["home"])
        h.step(Peers.movies, Step("openDetail", payload: 1), attachment: 2)
        h.presenter(Peers.tui, name: "tui")
        h.report(Peers.tui, [("home", .visible)])
        h.step(Peers.movies, Step("openDetail", payload: 2), attachment: 2, req: 3)
        #expect(
            h.events == [
                navigation("will", "AppFlow", coordinator: 1, Step("start")),
                navigation("did", "AppFlow", coordinator: 1, Step("start")),
                drop(Step("openDetail", payload: 1), "notVisible", flow: "AppFlow", coordinator: 1),
                navigation("will", "AppFlow", coordinator: 1, Step("openDetail", payload: 2)),
                navigation("did", "AppFlow", coordinator: 1, Step("openDetail", payload: 2)),
            ]
        )
        #expect(h.events[4].text == "did navigate flow=AppFlow step=openDetail(2)")
        #expect(h.core.counters.stepsDropped == ["notVisible": 1])
    }
}
