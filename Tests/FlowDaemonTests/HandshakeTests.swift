import FlowCore
import FlowDaemon
import FlowWire
import FlowdTesting
import TestFlows
import Testing

/// §3: HELLO / WELCOME, roles, heartbeats and liveness.
struct HandshakeTests {
    @Test func startingCreatesTheDefaultSessionAndCoordinatesItsRootFlow() {
        let h = DaemonHarness()
        #expect(h.core.sessionIDs == ["default"])
        #expect(h.started.sent.isEmpty)
        #expect(h.started.local == ["attach default att#1"])
        #expect(
            h.started.events == [
                navigation("will", "AppFlow", coordinator: 1, Step("start")),
                navigation("did", "AppFlow", coordinator: 1, Step("start")),
            ]
        )
        // setRoot(app) and push(home) are sequenced, with no presenter to send them to yet.
        #expect(h.core.seq(of: "default") == 2)
        #expect(h.core.ui(of: "default")?.presentables == ["app", "home"])
        #expect(h.core.counters.commandsSequenced == 2)
        #expect(h.core.counters.commandsSent == 0)
    }

    @Test func helloGetsWelcomeWithThePeersNameTheDaemonRunAndTheDaemonsInterval() {
        var configuration = DaemonConfiguration()
        configuration.heartbeatMs = 500
        let h = DaemonHarness(configuration: configuration)
        #expect(
            h.hello(Peers.tui, .presenter, name: "tui", req: 7).sent == [
                Delivery(Peers.tui, welcome(req: 7, peer: "p1", heartbeatMs: 500))
            ])
        #expect(
            h.hello(Peers.flowctl, .operator, name: "flowctl", heartbeatMs: 60_000).sent
                == [Delivery(Peers.flowctl, welcome(peer: "p2", heartbeatMs: 500))]
        )
        #expect(h.core.peerCounts == [.presenter: 1, .operator: 1])
        #expect(h.events.count == 2)  // the start's only
    }

    @Test func helloAgainOnTheSameConnectionKeepsThePeersName() {
        let h = DaemonHarness()
        h.hello(Peers.flowctl, .operator, name: "flowctl")
        #expect(
            h.hello(Peers.flowctl, .operator, name: "flowctl", req: 5).sent == [
                Delivery(Peers.flowctl, welcome(req: 5, peer: "p1"))
            ])
        #expect(h.core.peerCounts == [.operator: 1])
    }

    @Test func messagesBeforeHelloAreRefusedNotWelcome() {
        let h = DaemonHarness()
        let stranger = Peers.stranger
        #expect(
            h.step(stranger, Step("openDetail", payload: 1), attachment: 2, req: 5).sent
                == [Delivery(stranger, refused(5, .notWelcome, .step))]
        )
        #expect(
            h.receive(.sync(Sync(req: 6, session: "default", lastSeq: 0)), from: stranger).sent
                == [Delivery(stranger, refused(6, .notWelcome, .sync))]
        )
        #expect(
            h.receive(.heartbeat(Heartbeat()), from: stranger).sent == [
                Delivery(stranger, refused(nil, .notWelcome, .heartbeat))
            ])
        #expect(
            h.receive(.health(PlainRequest(req: 8)), from: stranger).sent == [
                Delivery(stranger, refused(8, .notWelcome, .health))
            ])
        #expect(h.core.counters.errors == ["notWelcome": 4])
        #expect(h.core.seq(of: "default") == 2)
        // Once it said HELLO, the same request is served.
        h.hello(stranger, .operator, name: "flowctl")
        #expect(h.receive(.sessions(SessionsRequest(req: 9)), from: stranger).to(stranger).first?.req == 9)
        #expect(h.core.counters.errors == ["notWelcome": 4])
    }

    @Test func eachRoleMaySendOnlyItsOwnMessages() {
        let h = DaemonHarness()
        h.hello(Peers.movies, .stepper, name: "movies", serves: ["home"])
        h.hello(Peers.tui, .presenter, name: "tui")
        h.hello(Peers.flowctl, .operator, name: "flowctl")
        let cases: [(PeerAddress, WireMessage, MessageType, UInt64?)] = [
            // A stepper reporting visibility.
            (
                Peers.movies,
                .client(.report(
                    Report(
                        req: 3, session: "default",
                        reports: [PresentableReport(presentable: "home", state: .visible)]
                    )
                )),
                .report, 3
            ),
            (Peers.movies, .client(.sync(Sync(req: 4, session: "default", lastSeq: 0))), .sync, 4),
            // A presenter deep-linking or stepping.
            (
                Peers.tui, .client(.deepLink(DeepLinkRequest(req: 5, session: "default", step: Step("openDetail", payload: 1)))),
                .deepLink, 5
            ),
            (
                Peers.tui, .client(.step(StepMessage(req: 6, session: "default", attachment: 2, step: Step("openDetail")))),
                .step, 6
            ),
            (Peers.tui, .client(.health(PlainRequest(req: 7))), .health, 7),
            // An operator acting as a presenter or a stepper.
            (Peers.flowctl, .client(.sync(Sync(req: 8, session: "default", lastSeq: 0))), .sync, 8),
            (
                Peers.flowctl, .client(.step(StepMessage(req: 9, session: "default", attachment: 2, step: Step("openDetail")))),
                .step, 9
            ),
            // Anyone sending what only the daemon sends.
            (
                Peers.movies,
                .daemon(.attach(
                    Attach(
                        session: "default", attachment: 2, kind: "home", presentable: "home", role: "contributor",
                        context: nil))), .attach, nil
            ),
            (Peers.tui, .daemon(.ok(OKReply(req: 10))), .ok, 10),
            (
                Peers.flowctl, .daemon(.command(CommandMessage(session: "default", seq: 3, command: .pop(stack: "app")))),
                .command, nil
            ),
        ]
        for (peer, message, type, req) in cases {
            #expect(
                h.receive(frames: WireCodec().encode(message), from: peer).sent == [Delivery(peer, refused(req, .forbidden, type))], "\(message)")
        }
        #expect(h.core.counters.errors == ["forbidden": cases.count])
        // Nothing happened: no navigation, no command, nothing visible.
        #expect(h.core.seq(of: "default") == 2)
        #expect(h.core.counters.navigations == 1)
        #expect(h.core.counters.reports == 0)
    }

    @Test func aTypeOnlyTheDaemonSendsIsRefusedByItsDirectionWhateverItsBody() {
        let h = DaemonHarness()
        h.hello(Peers.flowctl, .operator, name: "flowctl")
        // Bodies that do not read as the type's (a foreign client's probe): the direction decides, not the body.
        let daemonTypes: [MessageType] = [
            .welcome, .ok, .error, .attach, .detach, .action, .adapt, .snapshot, .command, .event,
        ]
        for type in daemonTypes {
            let frames = [Array("FLOWD1".utf8), Array(type.rawValue.utf8), Array(#"{"req": 7}"#.utf8)]
            #expect(h.receive(frames: frames, from: Peers.flowctl).to(Peers.flowctl) == [refused(7, .forbidden, type)])
            #expect(
                h.receive(frames: frames, from: Peers.stranger).to(Peers.stranger) == [refused(7, .notWelcome, type)])
        }
        #expect(h.core.counters.errors == ["forbidden": daemonTypes.count, "notWelcome": daemonTypes.count])
        // One text for one refusal, whether the body reads as the type's or not (a foreign client in Go was told
        // "the role operator may not send OK" for a body that read as an OK).
        for body in [#"{"req": 9}"#, #"{"req": 9, "result": {}}"#] {
            let frames = [Array("FLOWD1".utf8), Array("OK".utf8), Array(body.utf8)]
            let sent = h.daemon.receive(frames: frames, from: Peers.flowctl).sent
            guard case .error(let error)? = sent.first?.message else {
                Issue.record("\(sent)")
                continue
            }
            #expect(error.message == "only the daemon sends OK", "\(body)")
        }
        // A client's type with a bad body stays malformedBody.
        let step = [Array("FLOWD1".utf8), Array("STEP".utf8), Array(#"{"req": 8}"#.utf8)]
        #expect(h.receive(frames: step, from: Peers.flowctl).to(Peers.flowctl) == [refused(8, .malformedBody, .step)])
    }

    @Test func aPeerSilentForThreeOfItsIntervalsIsForgotten() {
        let h = DaemonHarness()
        h.hello(Peers.flowctl, .operator, name: "flowctl", heartbeatMs: 1000, at: 0)
        // At exactly 3 intervals the peer is still alive (a heartbeat is due and sent).
        #expect(h.tick(at: 3000).sent == [Delivery(Peers.flowctl, heartbeat())])
        #expect(h.core.peerCounts == [.operator: 1])
        #expect(h.tick(at: 3001).sent.isEmpty)
        #expect(h.core.peerCounts == [:])
        #expect(h.core.counters.peersLost == 1)
        #expect(
            h.receive(.health(PlainRequest(req: 4)), from: Peers.flowctl).sent
                == [Delivery(Peers.flowctl, refused(4, .notWelcome, .health))]
        )
    }

    @Test func aDaemonBusyLongerThanTheWindowJudgesSilenceOnlyUpToWhatItHasRead() {
        let h = DaemonHarness()
        h.hello(Peers.tui, .presenter, name: "tui", heartbeatMs: 1000, at: 0)
        h.hello(Peers.flowctl, .operator, name: "flowctl", heartbeatMs: 1000, at: 0)
        // The transport last found its inbox empty at 1000, then spent until 5000 on one turn (a large SNAPSHOT on a
        // loaded machine): what the peers sent meanwhile waits unread, so neither counts as silent yet.
        h.core.inboxReadAt = 1000
        h.tick(at: 5000)
        #expect(h.core.peerCounts == [.presenter: 1, .operator: 1])
        #expect(h.core.counters.peersLost == 0)
        // The inbox read: the presenter's heartbeats were waiting, the operator had sent nothing since 0.
        h.receive(.heartbeat(Heartbeat()), from: Peers.tui, at: 5000)
        h.core.inboxReadAt = 5000
        h.tick(at: 5000)
        #expect(h.core.peerCounts == [.presenter: 1])
        #expect(h.core.counters.peersLost == 1)
        // Silence is still judged by the clock once the inbox keeps being read.
        h.core.inboxReadAt = 8001
        h.tick(at: 8001)
        #expect(h.core.peerCounts == [:])
    }

    @Test func livenessUsesThePeersOwnInterval() {
        let h = DaemonHarness()
        h.hello(Peers.flowctl, .operator, name: "flowctl", heartbeatMs: 100, at: 0)
        h.hello(Peers.tui, .presenter, name: "tui", heartbeatMs: 5000, at: 0)
        h.tick(at: 301)
        #expect(h.core.peerCounts == [.presenter: 1])
        h.tick(at: 15_000)
        #expect(h.core.peerCounts == [.presenter: 1])
        h.tick(at: 15_001)
        #expect(h.core.peerCounts == [:])
        #expect(h.core.counters.peersLost == 2)
    }

    @Test func anyMessageCountsAsASignOfLifeEvenARefusedOne() {
        let h = DaemonHarness()
        h.hello(Peers.tui, .presenter, name: "tui", at: 0)
        h.hello(Peers.flowctl, .operator, name: "flowctl", at: 0)
        // Heard at 2500: a heartbeat from the operator, a malformed body and a forbidden message from the presenter.
        h.receive(.heartbeat(Heartbeat()), from: Peers.flowctl, at: 2500)
        #expect(
            h.receive(frames: [Array("FLOWD1".utf8), Array("HEALTH".utf8), Array("{".utf8)], from: Peers.tui).sent.count
                == 1)
        h.tick(at: 5500)
        #expect(h.core.peerCounts == [.presenter: 1, .operator: 1])
        let forbidden = h.receive(
            .deepLink(DeepLinkRequest(req: 4, session: "default", step: Step("x"))), from: Peers.tui)
        #expect(forbidden.sent == [Delivery(Peers.tui, refused(4, .forbidden, .deepLink))])
        h.tick(at: 5501)
        #expect(h.core.peerCounts == [.presenter: 1])
        h.tick(at: 8500)
        #expect(h.core.peerCounts == [.presenter: 1])
        h.tick(at: 8501)
        #expect(h.core.peerCounts == [:])
    }

    @Test func byeMakesThePeerDeadAtOnceWithNoReply() {
        let h = DaemonHarness()
        h.hello(Peers.flowctl, .operator, name: "flowctl")
        #expect(h.receive(.bye, from: Peers.flowctl).sent.isEmpty)
        #expect(h.core.peerCounts == [:])
        #expect(h.receive(.bye, from: Peers.flowctl).sent == [Delivery(Peers.flowctl, refused(nil, .notWelcome, .bye))])
    }

    @Test func heartbeatsAreSentWhenDueAndCarryThePresentersSessionSeq() {
        let h = DaemonHarness()
        h.presenter(Peers.tui, name: "tui", at: 0)
        h.hello(Peers.movies, .stepper, name: "movies", serves: ["home"], at: 500)
        #expect(h.core.nextDeadline(now: 500) == 1000)
        #expect(h.tick(at: 999).sent.isEmpty)
        #expect(h.tick(at: 1000).sent == [Delivery(Peers.tui, heartbeat(["default": 2]))])
        #expect(h.core.nextDeadline(now: 1000) == 1500)
        // A client's heartbeat has no reply.
        #expect(h.receive(.heartbeat(Heartbeat()), from: Peers.tui, at: 1200).sent.isEmpty)
        #expect(h.tick(at: 1500).sent == [Delivery(Peers.movies, heartbeat())])
        // A command raises the seq the next heartbeat announces.
        h.report(Peers.tui, [("home", .visible)], at: 1600)
        #expect(
            h.step(Peers.movies, Step("openDetail", payload: 7), attachment: 2, at: 1700).to(Peers.tui) == [
                command(3, .push(Screens.detail(7), onto: "app"))
            ])
        #expect(h.tick(at: 1999).sent.isEmpty)
        #expect(h.tick(at: 2000).sent == [Delivery(Peers.tui, heartbeat(["default": 3]))])
        // One heartbeat per due time, however late the tick.
        #expect(h.tick(at: 2900).sent == [Delivery(Peers.movies, heartbeat())])
        #expect(h.core.nextDeadline(now: 2900) == 3000)
    }

    @Test func everyRefusedMessageIsCountedByCode() {
        var configuration = DaemonConfiguration()
        configuration.maxBodyBytes = 1024
        configuration.maxSessions = 2
        let h = DaemonHarness(application: TestApplication(stepNames: testStepNames), configuration: configuration)
        h.presenter(Peers.tui, name: "tui")
        h.hello(Peers.kiosk, .presenter, name: "kiosk")
        h.hello(Peers.movies, .stepper, name: "movies", serves: ["home"])
        h.hello(Peers.flowctl, .operator, name: "flowctl")
        let flowd1 = Array("FLOWD1".utf8)
        let inputs: [(PeerAddress, [[UInt8]], DaemonMessage)] = [
            (Peers.flowctl, [flowd1, Array("HEALTH".utf8)], refused(nil, .malformedFrame, nil)),
            (
                Peers.flowctl, [Array("FLOWD2".utf8), Array("HEALTH".utf8), Array(#"{"req": 3}"#.utf8)],
                refused(3, .unsupportedVersion, nil)
            ),
            (Peers.flowctl, [flowd1, Array("STATUS".utf8), Array(#"{"req": 4}"#.utf8)], refused(4, .unknownType, nil)),
            (
                Peers.flowctl, [flowd1, Array("TREE".utf8), Array(#"{"req": 5}"#.utf8)],
                refused(5, .malformedBody, .tree)
            ),
            (
                Peers.flowctl,
                [
                    flowd1, Array("HEALTH".utf8),
                    Array(#"{"req": 6, "pad": "\#(String(repeating: "x", count: 1024))"}"#.utf8),
                ],
                refused(6, .messageTooLarge, .health)
            ),
            (
                Peers.flowctl, WireCodec().encode(.createSession(SessionRequest(req: 7, session: "a b"))),
                refused(7, .invalidName, .createSession)
            ),
            (Peers.stranger, WireCodec().encode(.health(PlainRequest(req: 8))), refused(8, .notWelcome, .health)),
            (Peers.tui, WireCodec().encode(.health(PlainRequest(req: 9))), refused(9, .forbidden, .health)),
            (
                Peers.flowctl, WireCodec().encode(.tree(SessionRequest(req: 10, session: "nope"))),
                refused(10, .unknownSession, .tree)
            ),
            (
                Peers.movies,
                WireCodec().encode(.step(StepMessage(req: 11, session: "default", attachment: 2, step: Step("fly")))),
                refused(11, .unknownStep, .step)
            ),
            (
                Peers.movies,
                WireCodec().encode(.step(StepMessage(req: 12, session: "default", attachment: 1, step: Step("start")))),
                refused(12, .unknownAttachment, .step)
            ),
            (
                Peers.kiosk,
                WireCodec().encode(
                    .userAction(UserAction(req: 13, session: "default", presentable: "home", action: Step("tap")))),
                refused(13, .notHost, .userAction)
            ),
            (
                Peers.tui,
                WireCodec().encode(
                    .userAction(UserAction(req: 14, session: "default", presentable: "nowhere", action: Step("tap")))),
                refused(14, .unknownPresentable, .userAction)
            ),
            (
                Peers.kiosk, WireCodec().encode(.sync(Sync(req: 15, session: "default", lastSeq: 0))),
                refused(15, .sessionHosted, .sync)
            ),
            (
                Peers.flowctl, WireCodec().encode(.createSession(SessionRequest(req: 16, session: "one"))),
                ok(16, ["created": true])
            ),
            (
                Peers.kiosk, WireCodec().encode(.sync(Sync(req: 17, session: "two", lastSeq: 0, create: true))),
                refused(17, .sessionLimit, .sync)
            ),
        ]
        for (peer, frames, reply) in inputs {
            #expect(h.receive(frames: frames, from: peer).to(peer) == [reply])
        }
        let expected = [
            "malformedFrame": 1, "unsupportedVersion": 1, "unknownType": 1, "malformedBody": 1, "messageTooLarge": 1,
            "invalidName": 1, "notWelcome": 1, "forbidden": 1, "unknownSession": 1, "unknownStep": 1,
            "unknownAttachment": 1, "notHost": 1, "unknownPresentable": 1, "sessionHosted": 1, "sessionLimit": 1,
        ]
        #expect(h.core.counters.errors == expected)
        // flowctl health shows them.
        let health = h.receive(.health(PlainRequest(req: 20)), from: Peers.flowctl).to(Peers.flowctl)
        guard case .ok(let reply)? = health.first, case .object(let result) = reply.result,
            case .object(let counters)? = result["counters"]
        else {
            Issue.record("no HEALTH result: \(health)")
            return
        }
        #expect(counters["errors"] == .object(expected.mapValues { .int($0) }))
        // The daemon kept serving everyone: the presenter still hosts the default session.
        #expect(h.core.counters.messagesIn == 5 + inputs.count + 1)
    }
}
