import FlowCore
import Testing

extension RxFlowCodeTests {
    // RxFlow FlowCoordinator.coordinate: an adapt that yields NoneStep (or fails, `onErrorJustReturn: NoneStep()`)
    // still reaches `navigate(to:)`, whose `.none` makes `setReadiness` fire ready. Flowd drops such a step (D1) but
    // decides readiness as that `.none` navigation would: a child flow whose first step is refused is ready.
    @Test("D1, D6: a flow whose first step is adapted away or whose adaptation fails is ready, as after a .none")
    func firstStepAdaptedAwayStillMakesTheFlowReady() async throws {
        let parent = ScenarioFlow("P")
        let refused = ScenarioFlow("C1")
        let failed = ScenarioFlow("C2")
        refused.adaptation = { _ in .step(.none) }
        failed.adaptation = { _ in .later { throw ScenarioAdaptError() } }
        parent.on("a") { _, navigator in
            Flows.use(parent, when: .ready, in: navigator) { navigator in
                navigator.push(.view("P.ready", type: "View"), onto: "P.root")
            }
            return .multiple(
                Contribute.flow(refused, OneStepper(withSingleStep: Step("b"))),
                Contribute.flow(failed, OneStepper(withSingleStep: Step("c")))
            )
        }
        let harness = ScenarioHarness()
        try harness.coordinate(parent, with: OneStepper(withSingleStep: Step("a")))
        await harness.runAdapt("c")

        #expect(
            harness.takeLog().only("did navigate", "drop", "ready", "command push") == [
                "did navigate flow=P step=a",
                "drop b reason=adaptedToNone flow#2 att#2",
                "ready flow#2",
                "drop c reason=adaptFailed flow#3",
                "ready flow#3",
                "ready flow#1",
                "command push P.ready onto P.root (flow#1)",
            ]
        )
    }
}

extension RxFlowCodeTests {
    // RxFlow FlowCoordinator.coordinate: an adaptation completing after its flow's pipeline was disposed reaches
    // nothing, whatever it yields. Flowd reports it (D13) as D2 says: `flowEnded`, with the step that was adapted
    // (D1), whether the adaptation yielded a step, NoneStep or an error.
    @Test("D2, D13: an adaptation completing after its flow ended is dropped flowEnded, with the step it adapted")
    func adaptationCompletingAfterItsFlowEndedIsDroppedFlowEnded() async throws {
        let flow = ScenarioFlow("F")
        let child = ScenarioFlow("C")
        let childStepper = ScenarioStepper("C.stepper")
        flow.on("a") { .one(flowContributor: Contribute.flow(child, childStepper)) }
        child.adaptation = { step in
            switch step.name {
            case "toNone": .later { .none }
            case "fails": .later { throw ScenarioAdaptError() }
            default: .later { Step("other") }
            }
        }
        let harness = ScenarioHarness()
        try harness.coordinate(flow, with: OneStepper(withSingleStep: Step("a")))
        for name in ["toNone", "fails", "kept"] { harness.emit(name, from: childStepper) }
        harness.dismiss("C.root")
        _ = harness.takeLog()

        for name in ["toNone", "fails", "kept"] { await harness.runAdapt(name) }

        #expect(
            harness.takeLog() == [
                "drop toNone reason=flowEnded flow#2",
                "drop fails reason=flowEnded flow#2",
                "drop other reason=flowEnded flow#2",
            ]
        )
    }
}
