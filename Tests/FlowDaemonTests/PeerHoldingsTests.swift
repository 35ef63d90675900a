import FlowCore
import FlowDaemon
import FlowWire
import FlowdTesting
import Testing

/// The index of what each peer holds (hosted sessions, assigned and waiting attachments), which heartbeats, a
/// stepper's `HELLO` and a lost peer read instead of walking every session: it always equals the sessions' own state,
/// and those inputs cost what the peer holds, not the number of sessions.
struct PeerHoldingsTests {
    @Test func theIndexFollowsHostsAttachmentsLossesAndEnds() {
        let h = DaemonHarness()
        func check(_ what: String) { #expect(h.core.holdingsMismatches == [], "\(what)") }
        h.hello(Peers.flowctl, .operator, name: "flowctl")
        check("start: one attachment of kind home waiting")
        for index in 0..<50 {
            h.receive(
                .createSession(SessionRequest(req: UInt64(10 + index), session: "kiosk-\(index)")), from: Peers.flowctl)
        }
        check("51 sessions, 51 attachments waiting")
        h.presenter(Peers.tui, name: "tui", session: "kiosk-7")
        h.report(Peers.tui, [("app", .visible), ("home", .visible)], session: "kiosk-7")
        check("a presenter hosts kiosk-7")
        h.hello(Peers.movies, .stepper, name: "movies", serves: ["home", "detail"])
        check("the stepper took every waiting home attachment")
        h.step(Peers.movies, Step("openDetail", payload: 3), attachment: 2, session: "kiosk-7")
        check("a detail attachment assigned at once")
        h.hello(Peers.moviesB, .stepper, name: "movies-b", serves: ["home"])
        h.receive(.bye, from: Peers.movies)
        check("the lost stepper's home attachments moved to movies-b; its detail attachment waits")
        #expect(h.tick(at: 1000).to(Peers.tui) == [heartbeat(["kiosk-7": 3])])
        h.receive(.endSession(SessionRequest(req: 99, session: "kiosk-7")), from: Peers.flowctl)
        check("the ended session holds nothing")
        #expect(h.tick(at: 2000).to(Peers.tui) == [heartbeat()])
        h.presenter(Peers.kiosk, name: "kiosk", session: "kiosk-8")
        h.receive(.bye, from: Peers.kiosk)
        check("a lost presenter hosts nothing")
    }

    /// Random traffic from two presenters, three steppers and an operator, peers silent long enough to count dead
    /// among it: after every input the index is what a walk over every session finds.
    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func theIndexEqualsAWalkOverTheSessionsAfterRandomTraffic(seed: UInt64) {
        let h = DaemonHarness()
        var random = Xorshift(seed: seed)
        var time: UInt64 = 0
        var req: UInt64 = 100
        let presenters = [(Peers.tui, "tui"), (Peers.kiosk, "kiosk")]
        let steppers = [
            (Peers.movies, "movies", ["home", "detail"]), (Peers.moviesB, "movies-b", ["home"]),
            (Peers.moviesRestarted, "movies-c", ["detail", "settings"]),
        ]
        let steps = [Step("openDetail", payload: 1), Step("openDetail", payload: 2), Step("back"),
            Step("openSettings"), Step("settingsClosed"), Step("home"), Step("openTabs")]
        h.hello(Peers.flowctl, .operator, name: "flowctl", heartbeatMs: 60_000)
        for _ in 0..<600 {
            req += 1
            let session = "s\(random.below(12))"
            switch random.below(10) {
            case 0:
                h.receive(.createSession(SessionRequest(req: req, session: session)), from: Peers.flowctl, at: time)
            case 1:
                h.receive(.endSession(SessionRequest(req: req, session: session)), from: Peers.flowctl, at: time)
            case 2, 3:
                h.deepLink(Peers.flowctl, steps[random.below(steps.count)], session: session, req: req)
            case 4:
                let (peer, name) = presenters[random.below(presenters.count)]
                h.presenter(peer, name: name, session: session, create: random.below(2) == 0, at: time)
            case 5:
                let (peer, _) = presenters[random.below(presenters.count)]
                h.report(peer, [("app", .visible), ("home", .visible)], session: session, req: req, at: time)
            case 6:
                let (peer, name, serves) = steppers[random.below(steppers.count)]
                h.hello(peer, .stepper, name: name, serves: serves, at: time)
            case 7:
                let all = presenters.map(\.0) + steppers.map(\.0)
                h.receive(.bye, from: all[random.below(all.count)], at: time)
            case 8:
                let (peer, _, _) = steppers[random.below(steppers.count)]
                h.step(peer, steps[random.below(steps.count)], attachment: random.below(8), session: session, req: req)
            default:
                time += UInt64(random.below(1500))
                h.tick(at: time)
            }
            #expect(h.core.holdingsMismatches == [], "seed \(seed), request \(req)")
        }
    }

    /// 1 000 sessions; a presenter hosts 3, a stepper serves the 2 detail attachments: a heartbeat, that stepper's
    /// `HELLO` and each peer's loss look up a few sessions per session it holds and walk none.
    @Test func heartbeatsHelloAndLostPeersTouchOnlyTheSessionsThePeerHolds() {
        var configuration = DaemonConfiguration()
        configuration.maxSessions = 2000
        let h = DaemonHarness(configuration: configuration)
        h.hello(Peers.flowctl, .operator, name: "flowctl")
        for index in 0..<1000 {
            h.receive(.createSession(SessionRequest(req: UInt64(index + 10), session: "kiosk-\(index)")), from: Peers.flowctl)
        }
        let hosted = ["kiosk-1", "kiosk-500", "kiosk-999"]
        for (index, session) in hosted.enumerated() {
            let peer = [Peers.tui, Peers.kiosk, Peers.tuiRestarted][index]
            h.presenter(peer, name: "tui-\(index)", session: session)
        }
        h.deepLink(Peers.flowctl, Step("openDetail", payload: 1), session: "kiosk-3", req: 2000)
        h.deepLink(Peers.flowctl, Step("openDetail", payload: 2), session: "kiosk-700", req: 2001)

        func visits(_ input: () -> Void) -> (lookups: Int, walks: Int) {
            let before = h.core.sessionVisits
            input()
            let after = h.core.sessionVisits
            return (after.lookups - before.lookups, after.walks - before.walks)
        }
        let hello = visits { h.hello(Peers.movies, .stepper, name: "movies", serves: ["detail"]) }
        #expect(hello.walks == 0)
        #expect(hello.lookups <= 2 * 2, "two waiting detail attachments, in two sessions")
        #expect(h.received[Peers.movies]?.count == 3, "WELCOME and two ATTACHes")

        // Each presenter hosts one session; the operator and the stepper none.
        let heartbeats = visits { h.tick(at: 1000) }
        #expect(heartbeats.walks == 0)
        #expect(heartbeats.lookups <= 3)
        #expect(h.received[Peers.kiosk]?.last == heartbeat(["kiosk-500": h.core.seq(of: "kiosk-500")!]))

        let presenterLost = visits { h.receive(.bye, from: Peers.kiosk) }
        #expect(presenterLost.walks == 0)
        #expect(presenterLost.lookups <= 4, "one hosted session")
        let stepperLost = visits { h.receive(.bye, from: Peers.movies) }
        #expect(stepperLost.walks == 0)
        #expect(stepperLost.lookups <= 2 * 2, "two assigned attachments")
        #expect(h.core.holdingsMismatches == [])
    }
}

/// A small deterministic generator (xorshift64*), so a failing seed reproduces.
private struct Xorshift {
    private var state: UInt64

    init(seed: UInt64) { state = seed &* 0x9E37_79B9_7F4A_7C15 | 1 }

    mutating func below(_ bound: Int) -> Int {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return Int((state &* 0x2545_F491_4F6C_DD1D) % UInt64(bound))
    }
}
