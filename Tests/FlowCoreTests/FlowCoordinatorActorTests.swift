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
