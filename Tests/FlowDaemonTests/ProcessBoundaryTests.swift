import FlowCore
import FlowDaemon
import FlowWire
import FlowdTesting
import TestFlows
import Testing

private let homeAttach = attach(2, kind: "home", on: "home", context: ["greeting": "hi"])
private let homeResumed = DaemonMessage.attach(
    Attach(
        session: "default", attachment: 2, kind: "home", presentable: "home", role: "contributor",
        context: ["greeting": "hi"], resumed: true
    )
)

/// A daemon with the presenter `tui` showing `home`, and `a-movies` then `b-movies` serving `home`: `a-movies`
/// (first by name) holds attachment 2.
private func twoProcessesServingHome() -> DaemonHarness {
    let h = DaemonHarness()
    h.hello(Peers.movies, .stepper, name: "a-movies", serves: ["home", "detail"])
    h.hello(Peers.moviesB, .stepper, name: "b-movies", serves: ["home", "detail"])
    h.presenter(Peers.tui, name: "tui")
    h.report(Peers.tui, [("app", .visible), ("home", .visible)])
    return h
}

/// docs/PROTOCOL.md §3 and §5.1: what a client that reconnects or restarts keeps, and what a second process of the
/// same name is told.
struct ProcessBoundaryTests {
    @Test func aStepperThatReconnectsKeepsItsAttachmentsThoughAnotherProcessServesTheKind() {
        let h = twoProcessesServingHome()
        // a-movies lost its connection and says HELLO on a new one, same name and instance (run-a-movies).
        let again = h.hello(Peers.moviesRestarted, .stepper, name: "a-movies", serves: ["home", "detail"])
        #expect(
            again.sent == [
                Delivery(Peers.movies, refused(nil, .replaced, .hello)),
                Delivery(Peers.moviesRestarted, welcome(peer: "p4")), Delivery(Peers.moviesRestarted, homeAttach),
            ])
        #expect(again.to(Peers.moviesB).isEmpty)
        // Its step sent again after the reconnection (§5.5) is for its own attachment still.
        #expect(
            h.step(Peers.moviesRestarted, Step("openDetail", payload: 7), attachment: 2, req: 31).to(Peers.moviesRestarted)
                .last == ok(31, accepted))
        #expect(
            h.step(Peers.moviesB, Step("openDetail", payload: 8), attachment: 2, req: 32).to(Peers.moviesB)
                == [refused(32, .unknownAttachment, .step)])
    }

    @Test func aProcessOfTheSameNameServingOtherKindsHandsOnWhatItCannotServe() {
        let h = twoProcessesServingHome()
        let again = h.hello(Peers.moviesRestarted, .stepper, name: "a-movies", serves: ["detail"])
        #expect(again.to(Peers.moviesB) == [homeAttach])
        #expect(again.to(Peers.moviesRestarted) == [welcome(peer: "p4")])
    }

    @Test func anAttachIsResumedOnceAStepperProcessTookAStepForIt() throws {
        let h = DaemonHarness(journaling: true)
        #expect(h.hello(Peers.movies, .stepper, name: "movies", serves: ["home", "detail"]).to(Peers.movies).last == homeAttach)
        h.presenter(Peers.tui, name: "tui")
        h.report(Peers.tui, [("app", .visible), ("home", .visible)])
        // Attached, but the process dies before any step: a restarted one is attached afresh.
        let fresh = h.hello(Peers.moviesRestarted, .stepper, name: "movies", serves: ["home", "detail"])
        #expect(fresh.to(Peers.moviesRestarted) == [welcome(peer: "p3"), homeAttach])
        // Once a step of home's was carried out, its ATTACH says `resumed`; detail.7's (no step yet) does not.
        #expect(
            h.step(Peers.moviesRestarted, Step("openDetail", payload: 7), attachment: 2, req: 5).to(Peers.moviesRestarted)
                .last == ok(5, accepted))
        let detailAttach = attach(3, kind: "detail", on: "detail.7", context: ["movie": 7])
        let restart = h.hello(Peers.movies, .stepper, name: "movies", serves: ["home", "detail"])
        #expect(restart.to(Peers.movies) == [welcome(peer: "p4"), homeResumed, detailAttach])
        // A dropped step was carried out too (its verdict is remembered): it counts.
        h.report(Peers.tui, [("detail.7", .hidden)], req: 6)
        #expect(
            h.step(Peers.movies, Step("openDetail", payload: 8), attachment: 3, req: 7).to(Peers.movies)
                == [ok(7, dropped("notVisible"))])
        // The daemon restarts from its journal (keeping its ID): the same answers.
        let recovered = try h.restarted()
        #expect(
            recovered.hello(Peers.movies, .stepper, name: "movies", serves: ["home", "detail"]).to(Peers.movies) == [
                welcome(peer: "p1"), homeResumed,
                .attach(
                    Attach(
                        session: "default", attachment: 3, kind: "detail", presentable: "detail.7", role: "contributor",
                        context: ["movie": 7], resumed: true
                    )),
            ])
    }

    @Test func aPresenterReplacedByAnotherOfItsNameIsToldSoAndCannotTakeTheSessionBackByAccident() {
        let h = DaemonHarness()
        h.presenter(Peers.tui, name: "tui")
        // A second process named tui: the first is told `replaced` (no req: it asked nothing), once.
        let second = h.hello(Peers.tuiRestarted, .presenter, name: "tui")
        #expect(second.to(Peers.tui) == [refused(nil, .replaced, .hello)])
        h.receive(.sync(Sync(req: 2, session: "default", lastSeq: 0)), from: Peers.tuiRestarted)
        #expect(h.core.counters.errors == [:], "a notice, not a refusal")
        // Its later messages are not welcome; nothing else is sent to it.
        #expect(h.receive(.heartbeat(Heartbeat()), from: Peers.tui).to(Peers.tui) == [refused(nil, .notWelcome, .heartbeat)])
        #expect(h.tick(at: 1000).to(Peers.tui).isEmpty)
    }

    @Test func operatorsOfOneNameDoNotReplaceEachOther() {
        let h = DaemonHarness()
        h.hello(Peers.flowctl, .operator, name: "flowctl")
        #expect(h.hello(Peers.stranger, .operator, name: "flowctl").to(Peers.flowctl).isEmpty)
        #expect(h.core.peerCounts[.operator] == 2)
        #expect(
            h.receive(.health(PlainRequest(req: 4)), from: Peers.flowctl).to(Peers.flowctl).first.map {
                if case .ok = $0 { true } else { false }
            } == true)
    }

    @Test func aRefusalQuotesAtMost1024CharactersOfWhatWasRefused() {
        let h = DaemonHarness()
        h.presenter(Peers.tui, name: "tui")
        // 1000 presentables of 200 bytes outside the UI: the text that names them is cut (a foreign client in Go got
        // a 200 kB ERROR quoting its whole payload back).
        let ids = (0..<1000).map { "nowhere.\($0)." + String(repeating: "x", count: 190) }
        let report = Report(
            req: 9, session: "default", reports: ids.map { PresentableReport(presentable: $0, state: .visible) })
        let sent = h.daemon.receive(.report(report), from: Peers.tui).sent
        guard case .error(let error)? = sent.first?.message else {
            Issue.record("\(sent)")
            return
        }
        #expect(error.code == .unknownPresentable)
        #expect(error.message.count == DaemonCore.maxRefusalText)
        #expect(error.message.hasSuffix("…"))
        #expect(error.message.contains("nowhere.0."))
    }

    @Test func aReportNamingAPresentableOutsideTheUIIsRefusedUnknownPresentableAndTheRestApplied() {
        let h = DaemonHarness()
        h.hello(Peers.movies, .stepper, name: "movies", serves: ["home"])
        h.presenter(Peers.tui, name: "tui")
        let outcome = h.report(Peers.tui, [("nowhere", .visible), ("home", .visible), ("gone", .hidden)], req: 9)
        #expect(outcome.sent == [Delivery(Peers.tui, refused(9, .unknownPresentable, .report))])
        #expect(h.core.counters.reports == 1)
        // home's visibility was applied: its stepper is heard.
        #expect(
            h.step(Peers.movies, Step("openDetail", payload: 1), attachment: 2, req: 10).to(Peers.movies).last
                == ok(10, accepted))
        // A dismissal of what the UI no longer holds is no mistake.
        #expect(h.report(Peers.tui, [("detail.99", .dismissed)], req: 11).sent == [Delivery(Peers.tui, ok(11))])
    }

    @Test func aMalformedAckIsAnsweredAndAByeBeforeHelloIsNotWelcome() {
        let h = DaemonHarness()
        h.presenter(Peers.tui, name: "tui")
        let ack = { (body: String) in [Array("FLOWD1".utf8), Array("ACK".utf8), Array(body.utf8)] }
        #expect(
            h.receive(frames: ack(#"{"session": "default"}"#), from: Peers.tui).sent
                == [Delivery(Peers.tui, refused(nil, .malformedBody, .ack))])
        #expect(
            h.receive(frames: ack(#"{"session": "no/such", "seq": 1}"#), from: Peers.tui).sent
                == [Delivery(Peers.tui, refused(nil, .invalidName, .ack))])
        // A well-formed one is never answered, even for a session the presenter does not host.
        #expect(h.receive(.ack(Ack(session: "kiosk", seq: 1)), from: Peers.tui).sent.isEmpty)
        #expect(h.receive(.bye, from: Peers.stranger).sent == [Delivery(Peers.stranger, refused(nil, .notWelcome, .bye))])
    }

    @Test func describeGivesWhatTheApplicationDeclares() throws {
        let vocabulary = ApplicationVocabulary(
            steps: [.init("openDetail", payload: "<int: movie id>", summary: "shows a movie")],
            stepperKinds: [.init("home", steps: ["openDetail"], summary: "the home screen")],
            screenTypes: [
                .init("Home", data: "{\"greeting\": <string>}", actions: [.init("pick", payload: "<int>", summary: "picks")])
            ]
        )
        let h = DaemonHarness(application: TestApplication(vocabulary: vocabulary))
        h.hello(Peers.flowctl, .operator, name: "flowctl")
        let expected: JSONValue = [
            "steps": [["name": "openDetail", "payload": "<int: movie id>", "summary": "shows a movie"]],
            "stepper_kinds": [["kind": "home", "steps": ["openDetail"], "summary": "the home screen"]],
            "screen_types": [
                [
                    "type": "Home", "kind": "view", "data": "{\"greeting\": <string>}",
                    "actions": [["name": "pick", "payload": "<int>", "summary": "picks"]],
                ]
            ],
        ]
        #expect(h.receive(.describe(DescribeRequest(req: 3)), from: Peers.flowctl).sent == [Delivery(Peers.flowctl, ok(3, expected))])
        // Declaring nothing is the default; only operators ask.
        let plain = DaemonHarness()
        plain.hello(Peers.flowctl, .operator, name: "flowctl")
        plain.hello(Peers.movies, .stepper, name: "movies")
        #expect(
            plain.receive(.describe(DescribeRequest(req: 4)), from: Peers.flowctl).to(Peers.flowctl)
                == [ok(4, ["steps": [], "stepper_kinds": [], "screen_types": []])])
        #expect(
            plain.receive(.describe(DescribeRequest(req: 5)), from: Peers.movies).to(Peers.movies)
                == [refused(5, .forbidden, .describe)])
    }
}
