import FlowClient
import FlowClientTesting
import FlowCore
import FlowWire
import Testing

/// A step emitted while the daemon is away: sent again with the same `req` to the same daemon run (which answers a
/// repeated one with its first verdict), `notDelivered` when the daemon came back as a new run or the timeout ran out
/// before it was sent, `timedOut` (outcome unknown) when it was sent and no verdict came; and a stepper's attachments
/// over a reconnect to the same run. Against a fake daemon that goes silent (as a killed one does) and comes back.
@Suite(.timeLimit(.minutes(1)))
struct StepDeliveryTests {
    static let step = Step("castIsPicked", payload: 4)

    static func client(_ daemon: FakeDaemon, requestTimeout: Duration? = nil) -> StepperClient {
        StepperClient(
            name: "movies", serves: ["movies.detail"],
            configuration: daemon.configuration(requestTimeout: requestTimeout)
        )
    }

    static func attach(_ attachment: Int) -> DaemonMessage {
        .attach(
            Attach(
                session: "default", attachment: attachment, kind: "movies.detail", presentable: "movie.\(attachment)",
                role: "contributor", context: nil
            )
        )
    }

    /// Expects `emit` to fail with the client error `code`.
    static func expectFailure(
        _ code: FlowClientError.Code,
        _ emit: () async throws -> StepOutcome
    ) async {
        do {
            let outcome = try await emit()
            Issue.record("expected \(code), got \(outcome)")
        } catch {
            expect(error, is: code)
        }
    }

    /// Expects `error` to be the client error `code`.
    static func expect(_ error: any Error, is code: FlowClientError.Code) {
        if let error = error as? FlowClientError {
            #expect(error.code == code, "\(error)")
        } else {
            Issue.record("expected \(code), got \(error)")
        }
    }

    @Test func aStepLostWithTheConnectionIsSentAgainWithTheSameReqToTheSameDaemonRun() async throws {
        try await FakeDaemon.with(logger: testLogger) { daemon in
            let client = Self.client(daemon)
            try await whileRunning(client.run) {
                let (firstPeer, firstHello) = try await daemon.acceptHello(
                    heartbeatMs: 300, daemon: "d1", keepingAlive: true)
                async let outcome = client.emit(Self.step, session: "default", attachment: AttachmentID(12))
                let (_, sent) = try await daemon.expect("STEP", from: firstPeer) { $0.step }
                daemon.fallSilent(toward: firstPeer)
                // The daemon goes silent before answering: after 3 × 300 ms the client starts again with a new socket.
                // The daemon comes back with its state (the same run ID).
                let (secondPeer, secondHello) = try await daemon.acceptHello(daemon: "d1")
                #expect(secondPeer != firstPeer)
                #expect(secondHello.instance == firstHello.instance)
                #expect(secondHello.req > sent.req)  // request numbers keep growing across connections
                let (_, again) = try await daemon.expect("the STEP again", from: secondPeer) { $0.step }
                #expect(again == sent)
                // The daemon had carried it out: it answers with the first verdict, marked as a duplicate.
                try await daemon.send(
                    .ok(OKReply(req: again.req, result: ["accepted": true, "duplicate": true])), to: secondPeer)
                #expect(try await outcome == .accepted)
            }
        }
    }

    @Test func aStepInFlightWhenARestartedDaemonSaysNotWelcomeIsSentAgainAfterTheNewHello() async throws {
        try await FakeDaemon.with(logger: testLogger) { daemon in
            let client = Self.client(daemon)
            try await whileRunning(client.run) {
                let (firstPeer, _) = try await daemon.acceptHello(daemon: "d1")
                async let outcome = client.emit(Self.step, session: "default", attachment: AttachmentID(12))
                let (_, sent) = try await daemon.expect("STEP", from: firstPeer) { $0.step }
                // A daemon restarted from its journal refuses the old connection's next heartbeat (no req): the STEP
                // may have been carried out before the restart.
                try await daemon.send(
                    .error(ErrorReply(req: nil, code: .notWelcome, message: "say HELLO first", type: "HEARTBEAT")),
                    to: firstPeer
                )
                let (secondPeer, _) = try await daemon.acceptHello(daemon: "d1")
                let (_, again) = try await daemon.expect("the STEP again", from: secondPeer) { $0.step }
                #expect(again == sent)
                try await daemon.send(
                    .ok(
                        OKReply(
                            req: again.req, result: ["accepted": false, "reason": "notVisible", "duplicate": true])
                    ),
                    to: secondPeer
                )
                #expect(try await outcome == .dropped(.notVisible))
            }
        }
    }

    @Test func aStepSentToADaemonRunThatLostItsStateIsNotDelivered() async throws {
        try await FakeDaemon.with(logger: testLogger) { daemon in
            let client = Self.client(daemon)
            try await whileRunning(client.run) {
                let (firstPeer, _) = try await daemon.acceptHello(heartbeatMs: 300, daemon: "d1", keepingAlive: true)
                async let outcome = client.emit(Self.step, session: "default", attachment: AttachmentID(12))
                _ = try await daemon.expect("STEP", from: firstPeer) { $0.step }
                daemon.fallSilent(toward: firstPeer)
                // Silence, then a new daemon run: it knows nothing of the step.
                let (secondPeer, _) = try await daemon.acceptHello(daemon: "d2")
                do {
                    let unexpected = try await outcome
                    Issue.record("expected .notDelivered, got \(unexpected)")
                } catch {
                    Self.expect(error, is: .notDelivered)
                }
                // The step is not sent to the new run: the connection's first message is a heartbeat.
                let first = try await daemon.nextMessage(from: secondPeer)
                guard case .heartbeat = first else {
                    Issue.record("expected HEARTBEAT first, got \(first)")
                    return
                }
                // And the client goes on: a new step reaches the new run.
                async let next = client.emit(
                    Step("castIsPicked", payload: 5), session: "default", attachment: AttachmentID(12))
                let (_, fresh) = try await daemon.expect("the new STEP", from: secondPeer) { $0.step }
                #expect(fresh.step == Step("castIsPicked", payload: 5))
                try await daemon.send(.ok(OKReply(req: fresh.req, result: ["accepted": true])), to: secondPeer)
                #expect(try await next == .accepted)
            }
        }
    }

    @Test func aStepWhoseTimeoutRunsOutBeforeItWasSentIsNotDeliveredAndNeverSent() async throws {
        try await FakeDaemon.with(logger: testLogger) { daemon in
            let client = Self.client(daemon, requestTimeout: .milliseconds(300))
            try await whileRunning(client.run) {
                // The daemon does not welcome the client yet: the step waits for a connection, then times out.
                let (peer, hello) = try await daemon.expect("HELLO") { $0.hello }
                await Self.expectFailure(.notDelivered) {
                    try await client.emit(Self.step, session: "default", attachment: AttachmentID(12))
                }
                try await daemon.send(
                    .welcome(Welcome(req: hello.req, peer: "p1", daemon: "d1", heartbeatMs: 60_000)), to: peer)
                let first = try await daemon.nextMessage(from: peer)
                guard case .heartbeat = first else {
                    Issue.record("expected HEARTBEAT first (the step given up is not sent), got \(first)")
                    return
                }
            }
        }
    }

    @Test func aStepSentWithoutAnAnswerTimesOutAndIsNotSentAgainAfterwards() async throws {
        try await FakeDaemon.with(logger: testLogger) { daemon in
            let client = Self.client(daemon, requestTimeout: .seconds(3))
            try await whileRunning(client.run) {
                let (firstPeer, _) = try await daemon.acceptHello(heartbeatMs: 500, daemon: "d1", keepingAlive: true)
                // Welcomed: the step leaves at once, however slow the machine (it cannot time out unsent).
                try await daemon.awaitHeartbeat(from: firstPeer)
                async let outcome = client.emit(Self.step, session: "default", attachment: AttachmentID(12))
                _ = try await daemon.expect("STEP", from: firstPeer) { $0.step }
                daemon.fallSilent(toward: firstPeer)
                // Silence: the client reconnects, but the daemon does not welcome it before the timeout. The step
                // was sent: its outcome is unknown.
                let (secondPeer, hello) = try await daemon.expect("HELLO") { $0.hello }
                do {
                    let unexpected = try await outcome
                    Issue.record("expected .timedOut, got \(unexpected)")
                } catch {
                    Self.expect(error, is: .timedOut)
                }
                // Welcome it (and any connection it may have opened since, on a machine slow enough to make it start
                // over once more): the first thing a welcomed connection sends is a heartbeat, not the step again.
                var welcomed: Set<[UInt8]> = []
                var pendingHello: (peer: [UInt8], hello: Hello)? = (secondPeer, hello)
                while true {
                    if let (peer, hello) = pendingHello {
                        pendingHello = nil
                        try? await daemon.send(
                            .welcome(Welcome(req: hello.req, peer: "p2", daemon: "d1", heartbeatMs: 60_000)), to: peer)
                        welcomed.insert(peer)
                    }
                    let received = try await daemon.receive()
                    if case .hello(let hello) = received.message {
                        pendingHello = (received.peer, hello)
                        continue
                    }
                    guard welcomed.contains(received.peer), received.peer != firstPeer else { continue }
                    guard case .heartbeat = received.message else {
                        Issue.record(
                            "expected HEARTBEAT first (the step given up is not sent again), got \(received.message)")
                        return
                    }
                    break
                }
            }
        }
    }

    @Test func aStepperKeepsItsAttachmentsOverAReconnectToTheSameDaemonRun() async throws {
        try await FakeDaemon.with(logger: testLogger) { daemon in
            let client = Self.client(daemon)
            var events = client.events.makeAsyncIterator()
            try await whileRunning(client.run) {
                let (firstPeer, _) = try await daemon.acceptHello(heartbeatMs: 300, daemon: "d1", keepingAlive: true)
                try await daemon.send(Self.attach(12), to: firstPeer)
                guard case .attached(let twelve)? = await events.next() else {
                    Issue.record("expected attached(12)")
                    return
                }
                daemon.fallSilent(toward: firstPeer)
                // Silence, then the same run (restarted from its journal) welcomes the new connection.
                let (secondPeer, _) = try await daemon.acceptHello(daemon: "d1")
                try await daemon.send(Self.attach(12), to: secondPeer)
                try await daemon.send(Self.attach(14), to: secondPeer)
                // No detached(12) came before: the next event is about 14.
                guard case .attached(let fourteen)? = await events.next() else {
                    Issue.record("expected attached(14)")
                    return
                }
                #expect(fourteen.attachment == AttachmentID(14))
                #expect(client.attachments.map(\.attachment) == [AttachmentID(12), AttachmentID(14)])
                async let outcome = client.emit(Self.step, for: twelve)
                let (_, step) = try await daemon.expect("STEP", from: secondPeer) { $0.step }
                #expect(step.attachment == 12)
                try await daemon.send(.ok(OKReply(req: step.req, result: ["accepted": true])), to: secondPeer)
                #expect(try await outcome == .accepted)
            }
        }
    }
}
