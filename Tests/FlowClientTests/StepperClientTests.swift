@testable import FlowClient
import FlowClientTesting
import FlowCore
import FlowWire
import Testing

/// ``StepperClient``: `HELLO` with its kinds, attachment events, `ATTACH` de-duplication (also across reconnects),
/// actions, and `emit` outcomes, against a fake daemon.
@Suite(.timeLimit(.minutes(1)))
struct StepperClientTests {
    static func attach(_ attachment: Int, presentable: String = "wishlist.movie.23452") -> DaemonMessage {
        .attach(
            Attach(
                session: "default", attachment: attachment, kind: "movies.detail", presentable: presentable,
                role: "contributor", context: ["movie": 23452]
            )
        )
    }

    static func next(_ iterator: inout AsyncStream<StepperEvent>.Iterator) async -> StepperEvent? {
        await iterator.next()
    }

    @Test func helloNamesTheKindsAndAnAttachForAKnownAttachmentIsANoOp() async throws {
        try await FakeDaemon.with(logger: testLogger) { daemon in
            let client = StepperClient(
                name: "movies", serves: ["movies.detail", "movies.list"], configuration: daemon.configuration())
            var events = client.events.makeAsyncIterator()
            try await whileRunning(client.run) {
                let (peer, hello) = try await daemon.acceptHello()
                #expect(hello.role == .stepper)
                #expect(hello.serves == ["movies.detail", "movies.list"])

                try await daemon.send(Self.attach(12), to: peer)
                let attached = await Self.next(&events)
                let expected = RemoteAttachment(
                    session: "default", attachment: AttachmentID(12), kind: "movies.detail",
                    presentable: "wishlist.movie.23452", role: "contributor", context: ["movie": 23452]
                )
                #expect(attached == .attached(expected))

                try await daemon.send(Self.attach(12), to: peer)
                try await daemon.send(Self.attach(13, presentable: "wishlist.movie.7"), to: peer)
                // The repeated ATTACH made no event: the next one is about 13.
                guard case .attached(let thirteen)? = await Self.next(&events) else {
                    Issue.record("expected attached(13)")
                    return
                }
                #expect(thirteen.attachment == AttachmentID(13))
                #expect(client.attachments.map(\.attachment) == [AttachmentID(12), AttachmentID(13)])

                try await daemon.send(
                    .action(
                        ActionMessage(
                            session: "default", attachment: 13, presentable: "wishlist.movie.7",
                            action: Step("pickCast", payload: 4))
                    ),
                    to: peer
                )
                #expect(await Self.next(&events) == .action(Step("pickCast", payload: 4), on: thirteen))

                try await daemon.send(
                    .detach(Detach(session: "default", attachment: 12, reason: "presentableDismissed")), to: peer)
                #expect(await Self.next(&events) == .detached(expected, reason: "presentableDismissed"))
                #expect(client.attachments.map(\.attachment) == [AttachmentID(13)])
            }
            #expect(await Self.next(&events) == nil)
        }
    }

    static func adapt(_ request: Int, _ step: String) -> DaemonMessage {
        .adapt(
            AdaptMessage(
                session: "default", request: request, kind: "movies.detail", flow: "wishlist", coordinator: 4,
                step: Step(step)))
    }

    @Test func aClientThatAdaptsSaysSoInHelloAndAnswersEachADAPTWithItsClosure() async throws {
        try await FakeDaemon.with(logger: testLogger) { daemon in
            let client = StepperClient(
                name: "movies", serves: ["movies.detail"], adapts: true, configuration: daemon.configuration())
            let run: @Sendable () async throws -> Void = {
                try await client.run(handler: { _ in }) { question in
                    question.step.name == "aboutIsRequired" ? .replace(Step("unauthorized")) : .allow
                }
            }
            try await whileRunning(run) {
                let (peer, hello) = try await daemon.acceptHello()
                #expect(hello.adapts)
                try await daemon.awaitHeartbeat(from: peer)
                try await daemon.send(Self.adapt(3, "aboutIsRequired"), to: peer)
                let (_, first) = try await daemon.expect("ADAPTED", from: peer) { $0.adapted }
                #expect(first == AdaptedMessage(session: "default", request: 3, answer: .replace(Step("unauthorized"))))
                try await daemon.send(Self.adapt(4, "movieIsPicked"), to: peer)
                let (_, second) = try await daemon.expect("ADAPTED", from: peer) { $0.adapted }
                #expect(second == AdaptedMessage(session: "default", request: 4, answer: .allow))
            }
        }
    }

    @Test func aClientThatDoesNotAdaptSaysSoAndIgnoresADAPT() async throws {
        try await FakeDaemon.with(logger: testLogger) { daemon in
            let client = StepperClient(name: "movies", serves: ["movies.detail"], configuration: daemon.configuration())
            try await whileRunning(client.run) {
                let (peer, hello) = try await daemon.acceptHello()
                #expect(!hello.adapts)
                try await daemon.awaitHeartbeat(from: peer)
                try await daemon.send(Self.adapt(3, "aboutIsRequired"), to: peer)
                // Nothing answers it: the next messages are heartbeats, not an ADAPTED.
                for _ in 1...2 {
                    let next = try await daemon.nextMessage(from: peer)
                    #expect(next == .heartbeat(Heartbeat()), "\(next)")
                }
            }
        }
    }

    @Test func emitReturnsTheCoordinatorsVerdict() async throws {
        try await FakeDaemon.with(logger: testLogger) { daemon in
            let client = StepperClient(name: "movies", serves: ["movies.detail"], configuration: daemon.configuration())
            try await whileRunning(client.run) {
                let (peer, _) = try await daemon.acceptHello()
                try await daemon.send(Self.attach(12), to: peer)
                var events = client.events.makeAsyncIterator()
                guard case .attached(let attachment)? = await Self.next(&events) else {
                    Issue.record("expected attached(12)")
                    return
                }

                async let accepted = client.emit(Step("castIsPicked", payload: 4), for: attachment)
                let (_, first) = try await daemon.expect("STEP", from: peer) { $0.step }
                #expect(first.session == "default")
                #expect(first.attachment == 12)
                #expect(first.step == Step("castIsPicked", payload: 4))
                try await daemon.send(.ok(OKReply(req: first.req, result: ["accepted": true])), to: peer)
                #expect(try await accepted == .accepted)

                async let dropped = client.emit(Step("castIsPicked", payload: 5), for: attachment)
                let (_, second) = try await daemon.expect("STEP", from: peer) { $0.step }
                try await daemon.send(
                    .ok(OKReply(req: second.req, result: ["accepted": false, "reason": "notVisible"])), to: peer)
                #expect(try await dropped == .dropped(.notVisible))

                // NoneStep never leaves the process.
                #expect(try await client.emit(.none, for: attachment) == .dropped(.noneStep))

                async let refused = client.emit(Step("castIsPicked"), for: attachment)
                let (_, third) = try await daemon.expect("STEP", from: peer) { $0.step }
                try await daemon.send(
                    .error(
                        ErrorReply(
                            req: third.req, code: .unknownAttachment, message: "attachment 12 is gone", type: "STEP")),
                    to: peer
                )
                do {
                    _ = try await refused
                    Issue.record("STEP should have been refused")
                } catch let error as DaemonError {
                    #expect(error.code == .unknownAttachment)
                }
            }
        }
    }

    @Test func reAttachmentsAfterAReconnectAreDeduplicated() async throws {
        try await FakeDaemon.with(logger: testLogger) { daemon in
            let client = StepperClient(name: "movies", serves: ["movies.detail"], configuration: daemon.configuration())
            var events = client.events.makeAsyncIterator()
            try await whileRunning(client.run) {
                let (firstPeer, _) = try await daemon.acceptHello(heartbeatMs: 300, daemon: "d1", keepingAlive: true)
                try await daemon.send(Self.attach(12), to: firstPeer)
                guard case .attached(let twelve)? = await Self.next(&events) else {
                    Issue.record("expected attached(12)")
                    return
                }
                daemon.fallSilent(toward: firstPeer)
                // Silence: a new socket, a new HELLO; the same daemon hands the living attachments out again.
                let (secondPeer, _) = try await daemon.acceptHello(daemon: "d1")
                #expect(secondPeer != firstPeer)
                try await daemon.send(Self.attach(12), to: secondPeer)
                try await daemon.send(Self.attach(14), to: secondPeer)
                guard case .attached(let fourteen)? = await Self.next(&events) else {
                    Issue.record("expected attached(14)")
                    return
                }
                #expect(fourteen.attachment == AttachmentID(14))

                // The daemon restarted (a new run ID): the attachments it made are gone.
                async let step = client.emit(Step("castIsPicked"), for: twelve)
                let (_, message) = try await daemon.expect("STEP", from: secondPeer) { $0.step }
                try await daemon.send(
                    .error(ErrorReply(req: message.req, code: .notWelcome, message: "say HELLO first", type: "STEP")),
                    to: secondPeer
                )
                let (thirdPeer, _) = try await daemon.acceptHello(daemon: "d2")
                #expect(await Self.next(&events) == .detached(twelve, reason: "daemonRestarted"))
                #expect(await Self.next(&events) == .detached(fourteen, reason: "daemonRestarted"))
                #expect(client.attachments.isEmpty)
                // The step is sent again to the new daemon, which does not know the attachment.
                let (_, again) = try await daemon.expect("STEP again", from: thirdPeer) { $0.step }
                try await daemon.send(
                    .error(ErrorReply(req: again.req, code: .unknownAttachment, message: "no 12", type: "STEP")),
                    to: thirdPeer
                )
                do {
                    _ = try await step
                    Issue.record("STEP should have been refused")
                } catch let error as DaemonError {
                    #expect(error.code == .unknownAttachment)
                }
            }
        }
    }

    @Test func runWithAHandlerEmitsFromTheHandler() async throws {
        try await FakeDaemon.with(logger: testLogger) { daemon in
            let client = StepperClient(name: "movies", serves: ["movies.detail"], configuration: daemon.configuration())
            try await whileRunning({
                try await client.run { event in
                    if case .action(let action, let attachment) = event, action.name == "pickCast" {
                        _ = try await client.emit(Step("castIsPicked", payload: action.payload), for: attachment)
                    }
                }
            }) {
                let (peer, _) = try await daemon.acceptHello()
                try await daemon.send(Self.attach(12), to: peer)
                try await daemon.send(
                    .action(
                        ActionMessage(
                            session: "default", attachment: 12, presentable: "wishlist.movie.23452",
                            action: Step("pickCast", payload: 4))),
                    to: peer
                )
                let (_, step) = try await daemon.expect("STEP", from: peer) { $0.step }
                #expect(step.step == Step("castIsPicked", payload: 4))
                #expect(step.attachment == 12)
                try await daemon.send(.ok(OKReply(req: step.req, result: ["accepted": true])), to: peer)
            }
        }
    }
}
