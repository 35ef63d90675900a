import FlowClient
import FlowClientTesting
import FlowCore
import FlowWire
import Logging
import ServiceLifecycle
import Testing

/// ``StepperService``: a ``StepperLogic`` value fed the client's events and ticks one at a time, whose emissions are
/// sent as `STEP`s; the clients as `Service`s that leave (`BYE`) on a graceful shutdown of their group.
@Suite(.timeLimit(.minutes(1)))
struct StepperServiceTests {
    /// Emits `castIsPicked(payload)` for a `pick`, refuses `refuse` by throwing, and on the first tick after an
    /// attachment emits `tick` for it.
    struct PickLogic: StepperLogic {
        struct Refused: Error {}

        var tickInterval: Duration?
        var attached: [RemoteAttachment.ID] = []
        var ticked = false

        var kinds: [String] { ["movies.detail"] }

        mutating func handle(_ input: StepperInput, now: ContinuousClock.Instant, logger: Logger) throws
            -> [StepEmission]
        {
            switch input {
            case .event(.attached(let attachment)):
                attached.append(attachment.id)
            case .event(.action(let action, let attachment)):
                if action.name == "refuse" { throw Refused() }
                return [StepEmission(Step("castIsPicked", payload: action.payload), for: attachment.id)]
            case .event(.detached):
                break
            case .tick:
                guard let first = attached.first, !ticked else { return [] }
                ticked = true
                return [StepEmission(Step("tick"), for: first)]
            }
            return []
        }
    }

    static func action(_ name: String, payload: JSONValue = .null) -> DaemonMessage {
        let step = Step(name, payload: payload)
        return .action(ActionMessage(session: "default", attachment: 12, presentable: "wishlist.movie.7", action: step))
    }

    @Test func eventsGoToTheLogicInOrderAndItsStepsAreEmittedARefusalEmitsNothing() async throws {
        try await FakeDaemon.with(logger: testLogger) { daemon in
            let service = StepperService(name: "movies", logic: PickLogic(), configuration: daemon.configuration())
            try await whileRunning(service.run) {
                let (peer, hello) = try await daemon.acceptHello()
                #expect(hello.serves == ["movies.detail"])
                try await daemon.send(StepperClientTests.attach(12, presentable: "wishlist.movie.7"), to: peer)
                try await daemon.send(Self.action("refuse"), to: peer)
                try await daemon.send(Self.action("pick", payload: 4), to: peer)
                // The refused action emitted nothing: the first STEP is the pick's.
                let (_, step) = try await daemon.expect("STEP", from: peer) { $0.step }
                #expect(step.attachment == 12)
                #expect(step.step == Step("castIsPicked", payload: 4))
                try await daemon.send(.ok(OKReply(req: step.req, result: ["accepted": true])), to: peer)
            }
        }
    }

    /// After a reconnect the daemon hands out its living attachments again: the service makes no event of a known
    /// one but logs it at info, as it logs a first attachment, so that an operator sees it come back.
    @Test func anAttachmentHandedOutAgainAfterAReconnectIsLoggedLikeTheFirstAttach() async throws {
        try await FakeDaemon.with(logger: testLogger) { daemon in
            let recorder = LogRecorder()
            var configuration = daemon.configuration()
            configuration.logger = recorder.logger(label: "stepper-service")
            let service = StepperService(name: "movies", logic: PickLogic(), configuration: configuration)
            try await whileRunning(service.run) {
                let (firstPeer, _) = try await daemon.acceptHello(heartbeatMs: 300, daemon: "d1", keepingAlive: true)
                try await daemon.send(StepperClientTests.attach(12, presentable: "wishlist.movie.7"), to: firstPeer)
                // The action's step shows the service had the attachment before the connection is let go.
                try await daemon.send(Self.action("pick", payload: 3), to: firstPeer)
                let (_, first) = try await daemon.expect("STEP", from: firstPeer) { $0.step }
                try await daemon.send(.ok(OKReply(req: first.req, result: ["accepted": true])), to: firstPeer)
                daemon.fallSilent(toward: firstPeer)
                // Silence: a new socket, a new HELLO; the same daemon run hands attachment 12 out again, resumed.
                let (secondPeer, _) = try await daemon.acceptHello(daemon: "d1")
                let again = Attach(
                    session: "default", attachment: 12, kind: "movies.detail", presentable: "wishlist.movie.7",
                    role: "contributor", context: ["movie": 23452], resumed: true
                )
                try await daemon.send(.attach(again), to: secondPeer)
                try await daemon.send(Self.action("pick", payload: 4), to: secondPeer)
                // The action comes after the second ATTACH: once its step is sent, both ATTACHes were logged. (The
                // first step comes again first if its OK was not read before the silence.)
                while true {
                    let (_, step) = try await daemon.expect("STEP", from: secondPeer) { $0.step }
                    try await daemon.send(.ok(OKReply(req: step.req, result: ["accepted": true])), to: secondPeer)
                    if step.step == Step("castIsPicked", payload: 4) { break }
                }
            }
            // The client logs each first attachment at debug, the service at info.
            let first = recorder.lines("attached").filter { $0.level == .info }
            #expect(first.count == 1)
            let again = recorder.lines("attached again (known attachment: no event)")
            #expect(again.map(\.level) == [.info])
            #expect(again.map { $0.metadata["attachment"] } == first.map { $0.metadata["attachment"] })
            #expect(again.map { $0.metadata["resumed"] } == ["true"])
        }
    }

    /// Answers `ADAPT` for `aboutIsRequired` with `unauthorized` every other time, as the movie demo's service does.
    struct AboutLogic: StepperLogic {
        var asked = 0
        var kinds: [String] { ["movies.wishlist"] }

        func handle(_ input: StepperInput, now: ContinuousClock.Instant, logger: Logger) -> [StepEmission] { [] }

        mutating func adapt(_ question: AdaptMessage, now: ContinuousClock.Instant, logger: Logger) -> AdaptAnswer {
            asked += 1
            return asked % 2 == 1 ? .replace(Step("unauthorized")) : .allow
        }
    }

    @Test func adaptQuestionsGoToTheLogicInTurnAndItsAnswersAreSent() async throws {
        try await FakeDaemon.with(logger: testLogger) { daemon in
            let service = StepperService(name: "movies", logic: AboutLogic(), configuration: daemon.configuration())
            try await whileRunning(service.run) {
                let (peer, hello) = try await daemon.acceptHello()
                #expect(hello.adapts)
                try await daemon.awaitHeartbeat(from: peer)
                for request in 1...3 {
                    try await daemon.send(StepperClientTests.adapt(request, "aboutIsRequired"), to: peer)
                }
                var answers: [AdaptAnswer] = []
                for _ in 1...3 { answers.append(try await daemon.expect("ADAPTED", from: peer) { $0.adapted }.value.answer) }
                #expect(answers == [.replace(Step("unauthorized")), .allow, .replace(Step("unauthorized"))])
            }
        }
    }

    @Test func aLogicWithoutAdaptAllows() async throws {
        try await FakeDaemon.with(logger: testLogger) { daemon in
            let service = StepperService(name: "movies", logic: PickLogic(), configuration: daemon.configuration())
            try await whileRunning(service.run) {
                let (peer, _) = try await daemon.acceptHello()
                try await daemon.awaitHeartbeat(from: peer)
                try await daemon.send(StepperClientTests.adapt(7, "castIsPicked"), to: peer)
                let (_, answer) = try await daemon.expect("ADAPTED", from: peer) { $0.adapted }
                #expect(answer == AdaptedMessage(session: "default", request: 7, answer: .allow))
            }
        }
    }

    @Test func ticksReachTheLogicEveryInterval() async throws {
        try await FakeDaemon.with(logger: testLogger) { daemon in
            let logic = PickLogic(tickInterval: .milliseconds(20))
            let service = StepperService(name: "movies", logic: logic, configuration: daemon.configuration())
            try await whileRunning(service.run) {
                let (peer, _) = try await daemon.acceptHello()
                try await daemon.send(StepperClientTests.attach(12), to: peer)
                let (_, step) = try await daemon.expect("the tick's STEP", from: peer) { $0.step }
                #expect(step.attachment == 12)
                #expect(step.step == Step("tick"))
                try await daemon.send(.ok(OKReply(req: step.req, result: ["accepted": true])), to: peer)
            }
        }
    }

    @Test func aStepperServiceLeavesWithBYEOnAGracefulShutdownOfItsGroup() async throws {
        try await FakeDaemon.with(logger: testLogger) { daemon in
            let service = StepperService(name: "movies", logic: PickLogic(), configuration: daemon.configuration())
            try await Self.leavesOnGracefulShutdown(service, daemon: daemon)
        }
    }

    @Test func aPresenterClientLeavesWithBYEOnAGracefulShutdownOfItsGroup() async throws {
        try await FakeDaemon.with(logger: testLogger) { daemon in
            let client = PresenterClient(name: "tui", session: "default", configuration: daemon.configuration())
            try await Self.leavesOnGracefulShutdown(client, daemon: daemon)
        }
    }

    /// Runs `service` alone in a service group, shuts the group down gracefully once the daemon welcomed it, and
    /// expects a `BYE` and the group's end.
    static func leavesOnGracefulShutdown(_ service: some Service, daemon: FakeDaemon) async throws {
        let group = ServiceGroup(configuration: .init(services: [.init(service: service)], logger: testLogger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            let (peer, _) = try await daemon.acceptHello()
            await group.triggerGracefulShutdown()
            while true {
                let received = try await daemon.receive()
                if received.peer == peer, case .bye = received.message { break }
            }
            try await tasks.waitForAll()
        }
    }
}
