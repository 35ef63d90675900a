import FlowCore
import FlowWire
import Testing

@testable import FlowClient

/// The connection's logic without sockets or a clock: every instant is made by the test, nothing waits.
@Suite struct ConnectionMachineTests {
    /// 1 s heartbeats, 3 intervals of liveness, 100 ms reconnection doubling up to 2 s.
    static let timing = ConnectionMachine.Timing(
        FlowClientConfiguration(heartbeatInterval: .seconds(1), livenessIntervals: 3, logger: testLogger))
    let start = ContinuousClock.now

    func machine() -> ConnectionMachine {
        var machine = ConnectionMachine(timing: Self.timing, logger: testLogger)
        try? machine.begin()
        return machine
    }

    static let hello = Hello(req: 1, role: .operator, name: "ops", instance: "i", heartbeatMs: 1000)

    static func welcome(daemon: String = "d1", heartbeatMs: Int = 1000) -> DaemonMessage {
        .welcome(Welcome(req: 1, peer: "p", daemon: daemon, heartbeatMs: heartbeatMs))
    }

    static func sent(_ actions: [ConnectionAction]) -> [ClientMessage] {
        actions.compactMap { if case .send(let message) = $0 { message } else { nil } }
    }

    static func completed(_ actions: [ConnectionAction]) -> [UInt64: Result<JSONValue, any Error>] {
        var results: [UInt64: Result<JSONValue, any Error>] = [:]
        for case .complete(let req, let result) in actions { results[req] = result }
        return results
    }

    static func code(_ result: Result<JSONValue, any Error>?) -> FlowClientError.Code? {
        guard case .failure(let error as FlowClientError) = result else { return nil }
        return error.code
    }

    static func reconnectDelay(_ actions: [ConnectionAction]) -> Duration? {
        for case .reconnect(let delay) in actions { return delay }
        return nil
    }

    @Test func helloFirstThenQueuedRequestsAfterWelcomeThenConnected() throws {
        var machine = machine()
        #expect(try machine.submit(.sessions(SessionsRequest(req: 10)), req: 10, policy: .wait).isEmpty)
        #expect(throws: FlowClientError.self) {
            try machine.submit(.health(PlainRequest(req: 11)), req: 11, policy: .fail)
        }
        let (generation, hello) = machine.connecting(helloReq: 1, hello: Self.hello, at: start)
        #expect(Self.sent(hello) == [.hello(Self.hello)])
        let welcomed = machine.received(Self.welcome(), on: generation, at: start)
        #expect(Self.sent(welcomed) == [.sessions(SessionsRequest(req: 10))])
        guard case .deliver(.connected(let welcome, let changed)) = welcomed.last else {
            Issue.record("expected .connected last, got \(welcomed)")
            return
        }
        #expect(welcome.daemon == "d1" && !changed)
        let replied = machine.received(.ok(OKReply(req: 10, result: ["n": 1])), on: generation, at: start)
        #expect(try Self.completed(replied)[10]?.get() == ["n": 1])
        #expect(!machine.isPending(10))
        // A second reply to it is ignored.
        #expect(machine.received(.ok(OKReply(req: 10)), on: generation, at: start).isEmpty)
    }

    @Test func heartbeatsEveryIntervalAfterWelcomeAndTheTimerLooksEveryHalfIntervalBefore() {
        var machine = machine()
        let (generation, _) = machine.connecting(helloReq: 1, hello: Self.hello, at: start)
        let before = machine.timerFired(on: generation, at: start)
        #expect(before.actions.isEmpty)
        #expect(before.wake == start + .milliseconds(500))
        _ = machine.received(Self.welcome(), on: generation, at: start + .milliseconds(200))
        let first = machine.timerFired(on: generation, at: start + .milliseconds(500))
        #expect(first.actions.isEmpty)
        #expect(first.wake == start + .milliseconds(1500))
        let beat = machine.timerFired(on: generation, at: start + .milliseconds(1500))
        #expect(Self.sent(beat.actions) == [.heartbeat(Heartbeat())])
        // The daemon has been silent since 200 ms: its liveness window (3 × 1 s) ends at 3200 ms.
        #expect(beat.wake == start + .milliseconds(2500))
        let next = machine.timerFired(on: generation, at: start + .milliseconds(2500))
        #expect(Self.sent(next.actions) == [.heartbeat(Heartbeat())])
        #expect(next.wake == start + .milliseconds(3200))
    }

    @Test func silenceForTheDaemonsLivenessWindowEndsTheConnection() {
        var machine = machine()
        let (generation, _) = machine.connecting(helloReq: 1, hello: Self.hello, at: start)
        _ = machine.received(Self.welcome(heartbeatMs: 500), on: generation, at: start)
        _ = machine.received(.heartbeat(Heartbeat()), on: generation, at: start + .seconds(1))
        #expect(!machine.timerFired(on: generation, at: start + .milliseconds(2499)).actions.contains { action in
            if case .end = action { true } else { false }
        })
        let silent = machine.timerFired(on: generation, at: start + .milliseconds(2500))
        guard case .end(.lost(let reason, let welcomed, let retryFrom)) = silent.actions.first else {
            Issue.record("expected the connection to end, got \(silent.actions)")
            return
        }
        #expect(reason == "flowd silent for 1.5 seconds")
        #expect(welcomed && retryFrom == nil && silent.wake == nil)
    }

    static func ends(_ actions: [ConnectionAction]) -> Bool {
        actions.contains { action in if case .end = action { true } else { false } }
    }

    /// The process stalls (a loaded machine) past the liveness window while the daemon's heartbeats wait unread: the
    /// timer that fires late does not end the connection; the client listens first and reads them.
    @Test func aTimerFiringLateAfterAStallListensFirstAndALiveDaemonIsHeard() {
        var machine = machine()
        let (generation, _) = machine.connecting(helloReq: 1, hello: Self.hello, at: start)
        _ = machine.received(Self.welcome(heartbeatMs: 500), on: generation, at: start)
        let first = machine.timerFired(on: generation, at: start)
        #expect(first.wake == start + .seconds(1))
        // Due at 1 s, it fires at 30 s: the daemon's last word read is 30 s old, 20 times its window (1.5 s).
        let late = machine.timerFired(on: generation, at: start + .seconds(30))
        #expect(!Self.ends(late.actions))
        #expect(late.wake == start + .milliseconds(30_500))
        // The reader gets to run: what the daemon sent during the stall comes in.
        _ = machine.received(.heartbeat(Heartbeat()), on: generation, at: start + .milliseconds(30_001))
        let listened = machine.timerFired(on: generation, at: start + .milliseconds(30_500))
        #expect(!Self.ends(listened.actions))
        #expect(listened.wake == start + .milliseconds(31_000))
    }

    /// The same stall with a daemon that is really gone: it is found silent one listening interval (its heartbeat
    /// interval) after the late timer, and on time without a stall.
    @Test func aReallySilentDaemonIsStillFoundSilentAfterAStall() {
        var machine = machine()
        let (generation, _) = machine.connecting(helloReq: 1, hello: Self.hello, at: start)
        _ = machine.received(Self.welcome(heartbeatMs: 500), on: generation, at: start)
        _ = machine.timerFired(on: generation, at: start)
        let late = machine.timerFired(on: generation, at: start + .seconds(30))
        #expect(!Self.ends(late.actions))
        // A firing a little late (under half the daemon's interval) is no stall: the verdict comes then.
        let silent = machine.timerFired(on: generation, at: start + .milliseconds(30_700))
        guard case .end(.lost(let reason, true, nil)) = silent.actions.first else {
            Issue.record("expected the connection to end, got \(silent.actions)")
            return
        }
        #expect(reason == "flowd silent for 1.5 seconds" && silent.wake == nil)
    }

    /// The client runs 300 ms of every 2.3 s (a heavily loaded machine): a daemon heard in every run keeps the
    /// connection, one that is really gone is still found silent.
    @Test func underRepeatedStallsSilenceCountsOnlyTheTimeTheClientRuns() {
        for alive in [true, false] {
            var machine = machine()
            let (generation, _) = machine.connecting(helloReq: 1, hello: Self.hello, at: start)
            _ = machine.received(Self.welcome(heartbeatMs: 500), on: generation, at: start)
            var wake = machine.timerFired(on: generation, at: start).wake
            var runs = 0
            var runStart = start
            while let due = wake, runs < 20 {
                // Stopped for 2 s past the timer's due instant, then running for 300 ms.
                runStart = due + .seconds(2)
                runs += 1
                if alive { _ = machine.received(.heartbeat(Heartbeat()), on: generation, at: runStart) }
                var fired = machine.timerFired(on: generation, at: runStart)
                while !Self.ends(fired.actions), let next = fired.wake, next < runStart + .milliseconds(300) {
                    fired = machine.timerFired(on: generation, at: next)
                }
                if Self.ends(fired.actions) { break }
                wake = fired.wake
            }
            if alive {
                #expect(runs == 20)
            } else {
                // Not at the first late firing (the stall is no silence), but after a few runs, not never.
                #expect(runs > 1 && runs < 20, "ended after \(runs) runs")
            }
        }
    }

    /// A stall before `WELCOME`: the client listens for one of its own heartbeat intervals before giving up on the
    /// handshake, and takes a `WELCOME` that waited unread.
    @Test func aStallBeforeWelcomeListensForTheWelcomeFirst() {
        var machine = machine()
        let (generation, _) = machine.connecting(helloReq: 1, hello: Self.hello, at: start)
        _ = machine.timerFired(on: generation, at: start)
        let late = machine.timerFired(on: generation, at: start + .seconds(10))
        #expect(!Self.ends(late.actions))
        #expect(late.wake == start + .milliseconds(10_500))
        let welcomed = machine.received(Self.welcome(), on: generation, at: start + .milliseconds(10_001))
        #expect(welcomed.contains { action in if case .deliver(.connected) = action { true } else { false } })
        #expect(!Self.ends(machine.timerFired(on: generation, at: start + .milliseconds(10_500)).actions))
    }

    @Test func noWelcomeWithinTheHandshakeTimeoutEndsTheConnection() {
        var machine = machine()
        let (generation, _) = machine.connecting(helloReq: 1, hello: Self.hello, at: start)
        let late = machine.timerFired(on: generation, at: start + .seconds(3))
        guard case .end(.lost(_, let welcomed, _)) = late.actions.first else {
            Issue.record("expected the connection to end, got \(late.actions)")
            return
        }
        #expect(!welcomed)
    }

    @Test func reconnectionWaitsDoubleWithEachFailureUpToTheMaximumAndAWelcomeResetsThem() {
        var machine = machine()
        var delays: [Duration] = []
        for _ in 0..<6 {
            let (generation, _) = machine.connecting(helloReq: 1, hello: Self.hello, at: start)
            let ended = machine.connectionEnded(generation, .lost("no WELCOME", welcomed: false, retryFrom: nil))
            delays.append(Self.reconnectDelay(ended) ?? .zero)
        }
        #expect(
            delays == [
                .milliseconds(200), .milliseconds(400), .milliseconds(800), .milliseconds(1600), .seconds(2),
                .seconds(2),
            ])
        let (generation, _) = machine.connecting(helloReq: 1, hello: Self.hello, at: start)
        let ended = machine.connectionEnded(generation, .lost("silent", welcomed: true, retryFrom: nil))
        #expect(Self.reconnectDelay(ended) == .milliseconds(100))
        guard case .deliver(.disconnected(let reason)) = ended.first else {
            Issue.record("expected .disconnected, got \(ended)")
            return
        }
        #expect(reason == "silent")
    }

    @Test func notWelcomeResendsTheRefusedRequestsAtOnceAndFailsTheEarlierOnes() throws {
        var machine = machine()
        let (first, _) = machine.connecting(helloReq: 1, hello: Self.hello, at: start)
        _ = machine.received(Self.welcome(), on: first, at: start)
        _ = try machine.submit(.sessions(SessionsRequest(req: 10)), req: 10, policy: .wait)
        _ = try machine.submit(.health(PlainRequest(req: 11)), req: 11, policy: .wait)
        let refused = machine.received(
            .error(ErrorReply(req: 11, code: .notWelcome, message: "who?", type: "HEALTH")), on: first, at: start)
        guard case .end(let outcome) = refused.first, case .lost(_, true, 11) = outcome else {
            Issue.record("expected the connection to end for a retry from 11, got \(refused)")
            return
        }
        let ended = machine.connectionEnded(first, outcome)
        #expect(Self.code(Self.completed(ended)[10]) == .connectionLost)
        #expect(Self.completed(ended)[11] == nil)
        #expect(Self.reconnectDelay(ended) == .zero)
        let (second, _) = machine.connecting(helloReq: 2, hello: Self.hello, at: start)
        let welcomed = machine.received(
            .welcome(Welcome(req: 2, peer: "p", daemon: "d1", heartbeatMs: 1000)), on: second, at: start)
        #expect(Self.sent(welcomed) == [.health(PlainRequest(req: 11))])
    }

    @Test func aResendRequestSurvivesALostConnectionButNotADaemonRestart() throws {
        var machine = machine()
        let step = ClientMessage.health(PlainRequest(req: 10))
        let (first, _) = machine.connecting(helloReq: 1, hello: Self.hello, at: start)
        _ = machine.received(Self.welcome(daemon: "d1"), on: first, at: start)
        #expect(Self.sent(try machine.submit(step, req: 10, policy: .resend)) == [step])
        #expect(Self.completed(machine.connectionEnded(first, .lost("gone", welcomed: true, retryFrom: nil))).isEmpty)
        let (second, _) = machine.connecting(helloReq: 1, hello: Self.hello, at: start)
        let again = machine.received(Self.welcome(daemon: "d1"), on: second, at: start)
        #expect(Self.sent(again) == [step])
        _ = machine.connectionEnded(second, .lost("gone", welcomed: true, retryFrom: nil))
        let (third, _) = machine.connecting(helloReq: 1, hello: Self.hello, at: start)
        let restarted = machine.received(Self.welcome(daemon: "d2"), on: third, at: start)
        #expect(Self.sent(restarted).isEmpty)
        #expect(Self.code(Self.completed(restarted)[10]) == .notDelivered)
        guard case .deliver(.connected(_, let changed)) = restarted.last else {
            Issue.record("expected .connected, got \(restarted)")
            return
        }
        #expect(changed)
    }

    @Test func aTimeoutSaysWhetherTheRequestCanHaveBeenCarriedOut() throws {
        var machine = machine()
        _ = try machine.submit(.health(PlainRequest(req: 10)), req: 10, policy: .resend)
        #expect(Self.code(Self.completed(machine.expire(10, after: .seconds(1)))[10]) == .notDelivered)
        _ = try machine.submit(.health(PlainRequest(req: 11)), req: 11, policy: .wait)
        #expect(Self.code(Self.completed(machine.expire(11, after: .seconds(1)))[11]) == .timedOut)
        // Given up: never sent, its late reply ignored.
        let (generation, _) = machine.connecting(helloReq: 1, hello: Self.hello, at: start)
        #expect(Self.sent(machine.received(Self.welcome(), on: generation, at: start)).isEmpty)
        #expect(machine.received(.ok(OKReply(req: 11)), on: generation, at: start).isEmpty)
        #expect(machine.expire(11, after: .seconds(1)).isEmpty)
    }

    /// A request's timeout that fires late after a stall waits one more listening interval (the daemon's heartbeat
    /// interval, once) for a reply that may be waiting unread; a timeout firing on time runs out.
    @Test func aRequestTimeoutFiringLateAfterAStallWaitsForTheReplyOneMoreListeningInterval() throws {
        var machine = machine()
        let (generation, _) = machine.connecting(helloReq: 1, hello: Self.hello, at: start)
        _ = machine.received(Self.welcome(heartbeatMs: 500), on: generation, at: start)
        let due = start + .seconds(2)
        let resumed = start + .seconds(30)
        _ = try machine.submit(.health(PlainRequest(req: 10)), req: 10, policy: .wait)
        let late = machine.timeoutFired(10, after: .seconds(2), due: due, at: resumed, extended: false)
        #expect(late.actions.isEmpty && late.wake == resumed + .milliseconds(500))
        let replied = machine.received(.ok(OKReply(req: 10)), on: generation, at: resumed + .milliseconds(1))
        #expect(try Self.completed(replied)[10]?.get() == [:])
        let after = machine.timeoutFired(
            10, after: .seconds(2), due: resumed + .milliseconds(500), at: resumed + .seconds(1), extended: true)
        #expect(after.actions.isEmpty && after.wake == nil)

        _ = try machine.submit(.health(PlainRequest(req: 11)), req: 11, policy: .wait)
        _ = machine.timeoutFired(11, after: .seconds(2), due: due, at: resumed, extended: false)
        // Extended once: it runs out at the next firing, late or not.
        let expired = machine.timeoutFired(
            11, after: .seconds(2), due: resumed + .milliseconds(500), at: resumed + .seconds(5), extended: true)
        #expect(Self.code(Self.completed(expired.actions)[11]) == .timedOut)
        #expect(expired.wake == nil)
        #expect(machine.timeoutFired(12, after: .seconds(2), due: due, at: due, extended: false).wake == nil)
    }

    @Test func aRefusedHelloOrAReplacedConnectionStopsTheClient() {
        for refusal in [
            ErrorReply(req: 1, code: .invalidName, message: "no", type: "HELLO"),
            ErrorReply(req: nil, code: .replaced, message: "taken over", type: nil),
        ] {
            var machine = machine()
            let (generation, _) = machine.connecting(helloReq: 1, hello: Self.hello, at: start)
            let refused = machine.received(.error(refusal), on: generation, at: start)
            guard case .end(let outcome) = refused.first, case .fatal = outcome else {
                Issue.record("expected a fatal end, got \(refused)")
                continue
            }
            let ended = machine.connectionEnded(generation, outcome)
            #expect(
                ended.contains { action in
                    if case .stop(let error as DaemonError) = action { error.code == refusal.code } else { false }
                })
            #expect(Self.reconnectDelay(ended) == nil)
        }
    }

    @Test func stoppingFailsEveryRequestAndRefusesNewOnes() throws {
        var machine = machine()
        _ = try machine.submit(.health(PlainRequest(req: 10)), req: 10, policy: .wait)
        #expect(Self.code(Self.completed(machine.stop())[10]) == .stopped)
        #expect(throws: FlowClientError.self) {
            try machine.submit(.health(PlainRequest(req: 11)), req: 11, policy: .wait)
        }
        #expect(throws: FlowClientError.self) { try machine.begin() }
    }
}
