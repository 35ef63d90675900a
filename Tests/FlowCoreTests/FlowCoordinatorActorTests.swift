import FlowCore
import Logging
import Testing

/// The in-process ``FlowCoordinator`` actor, beyond what RxFlow's tests cover.
struct FlowCoordinatorActorTests {
    /// RxFlow subscribes to a stepper before the initial step is handled, so a step the stepper emits while its flow
    /// navigates that initial step is queued, not lost (RxFlow S10).
    @Test("A step emitted while the flow navigates its stepper's initial step is handled after it")
    func stepEmittedDuringTheCascadeIsNotLost() async throws {
        let stepper = TestStepper(initialStep: Step("a"))
        let coordinator = FlowCoordinator(logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        let events = await coordinator.didNavigate()
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { await coordinator.run() }
            let flow = TestFlow("F") { step, _ in
                if step.name == "a" { stepper.emit(Step("b")) }
                return .none
            }
            try await coordinator.coordinate(flow: flow, with: stepper)
            var steps: [String] = []
            for await event in events {
                steps.append(event.step.name)
                if steps.count == 2 { break }
            }
            #expect(steps == ["a", "b"])
            await coordinator.finish()
        }
    }

    @Test("coordinate returns after its synchronous burst (RxFlow S1: navigate(b) before coordinate() returns)")
    func coordinateReturnsAfterItsBurst() async throws {
        let navigated = LockedLog<String>()
        let stepper = TestStepper("F.stepper", initialStep: Step("a")) { $0.emit("b") }
        let flow = TestFlow("F") { step, _ in
            navigated.append(step.name)
            return .none
        }
        let coordinator = FlowCoordinator(logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))

        // run() is not running: only the call itself can have handled b.
        try await coordinator.coordinate(flow: flow, with: stepper)

        #expect(navigated.elements == ["a", "b"])
        await coordinator.finish()
    }

    @Test("willNavigate() reports each navigation before its flow navigates, beside didNavigate()")
    func willNavigateStream() async throws {
        let order = LockedLog<String>()
        let coordinator = FlowCoordinator(logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        let will = await coordinator.willNavigate()
        let did = await coordinator.didNavigate()
        await coordinator.observe { action in
            switch action {
            case .willNavigate(let event): order.append("will \(event.step)")
            case .command(let command, _): order.append("\(command)")
            case .didNavigate(let event): order.append("did \(event.step)")
            default: break
            }
        }
        let flow = TestFlow("F") { step, navigator in
            navigator.push(.view(PresentableID("F.\(step)"), type: "View"), onto: "F.root")
            return .none
        }
        try await coordinator.coordinate(flow: flow, with: OneStepper(withSingleStep: Step("a")))
        await coordinator.finish()

        var willEvents: [String] = []
        for await event in will { willEvents.append("\(event)") }
        var didEvents: [String] = []
        for await event in did { didEvents.append("\(event)") }
        #expect(willEvents == ["flow=F step=a"])
        #expect(didEvents == ["flow=F step=a"])
        #expect(order.elements == ["setRoot F.root", "will a", "push F.a onto F.root", "did a"])
    }

    @Test("waitUntilReady: RxFlow's Flows.use(appFlow, when: .ready) then a deep link, without a Navigator")
    func waitUntilReadyThenDeepLink() async throws {
        let navigated = LockedLog<String>()
        // App is ready once C is, C once G is, and G once it navigates: when its stepper emits, outside any call.
        let grandchildStepper = TestStepper("G.stepper")
        let coordinator = FlowCoordinator(logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        let grandchild = TestFlow("G") { step, _ in
            navigated.append("G \(step)")
            return .none
        }
        let child = TestFlow("C") { step, _ in
            navigated.append("C \(step)")
            return step.name == "home" ? .one(flowContributor: Contribute.flow(grandchild, grandchildStepper)) : .none
        }
        let app = TestFlow("App") { step, _ in
            navigated.append("App \(step)")
            return step.name == "start"
                ? .one(flowContributor: Contribute.flow(child, OneStepper(withSingleStep: Step("home")))) : .none
        }
        let root = try await coordinator.coordinate(flow: app, with: OneStepper(withSingleStep: Step("start")))
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { await coordinator.run() }
            #expect(await coordinator.snapshot().root?.isReady == false)

            async let ready = coordinator.waitUntilReady(root)
            grandchildStepper.emit("load")
            #expect(await ready)
            await coordinator.navigate(to: Step("deepLink"))

            #expect(navigated.elements == ["App start", "C home", "G load", "App deepLink", "C deepLink", "G deepLink"])
            #expect(await coordinator.waitUntilReady(FlowCoordinatorID(99)) == false)
            await coordinator.finish()
        }
    }

    @Test("waitUntilReady returns false when the flow ends before it is ready")
    func waitUntilReadyFalseWhenTheFlowEnds() async throws {
        let child = TestFlow("C") { step, _ in
            step.name == "home" ? .one(flowContributor: Contribute.flow(TestFlow("G"), NoneStepper())) : .none
        }
        let app = TestFlow("App") { step, _ in
            step.name == "start"
                ? .one(flowContributor: Contribute.flow(child, OneStepper(withSingleStep: Step("home")))) : .none
        }
        let coordinator = FlowCoordinator(logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        try await coordinator.coordinate(flow: app, with: OneStepper(withSingleStep: Step("start")))
        // C waits for G, which never navigates; dismissing C's root ends C, whether the wait began before or after.
        async let ready = coordinator.waitUntilReady(FlowCoordinatorID(2))
        await coordinator.reportDismissal(of: "C.root")
        #expect(await ready == false)
        #expect(await coordinator.waitUntilReady(FlowCoordinatorID(2)) == false)
        await coordinator.finish()
    }

    @Test("finish() ends the didNavigate and actions streams")
    func finishEndsTheStreams() async throws {
        let coordinator = FlowCoordinator(logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        let events = await coordinator.didNavigate()
        let actions = await coordinator.actions()
        try await coordinator.coordinate(flow: TestFlow("F"), with: OneStepper(withSingleStep: Step("a")))
        await coordinator.finish()
        var eventSteps: [String] = []
        for await event in events { eventSteps.append(event.step.name) }
        var actionCount = 0
        for await _ in actions { actionCount += 1 }
        #expect(eventSteps == ["a"])
        #expect(actionCount > 0)
    }
}
