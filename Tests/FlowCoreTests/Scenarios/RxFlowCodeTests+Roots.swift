import FlowCore
import Testing

extension RxFlowCodeTests {
    // RxFlow FlowCoordinator.coordinate: the root flow's pipeline and its stepper's subscription end with
    // `take(until: flow.rxDismissed)`; the coordinator keeps only its relays, so a later `coordinate(flow:with:)` on
    // it starts a fresh pipeline, and `rx.willNavigate`/`didNavigate` subscribers hear the new flow.
    @Test("D19: the tree coordinates a root flow again once its root flow has ended; not while it lives")
    func coordinateAgainAfterTheRootFlowEnded() throws {
        let first = ScenarioFlow("A")
        let second = ScenarioFlow("B")
        let harness = ScenarioHarness()
        try harness.coordinate(first, with: OneStepper(withSingleStep: Step("a")))
        #expect(throws: FlowError.alreadyCoordinating()) { try harness.coordinate(second) }
        _ = harness.takeLog()

        harness.dismiss("A.root")
        harness.deepLink("x")
        try harness.coordinate(second, with: OneStepper(withSingleStep: Step("b")))
        harness.deepLink("y")
        // The same flow object again, once B has ended too.
        harness.dismiss("B.root")
        try harness.coordinate(first, with: OneStepper(withSingleStep: Step("c")))

        #expect(
            harness.takeLog() == [
                "detach att#1 (flowEnded)",
                "end flow#1 (rootDismissed)",
                "drop x reason=noRootFlow",
                "start B flow#2",
                "command setRoot B.root (flow#2)",
                "attach att#2 OneStepper(b) on B.root (flow)",
                "will navigate flow=B step=b",
                "did navigate flow=B step=b",
                "ready flow#2",
                "will navigate flow=B step=y",
                "did navigate flow=B step=y",
                "detach att#2 (flowEnded)",
                "end flow#2 (rootDismissed)",
                "start A flow#3",
                "command setRoot A.root (flow#3)",
                "attach att#3 OneStepper(c) on A.root (flow)",
                "will navigate flow=A step=c",
                "did navigate flow=A step=c",
                "ready flow#3",
            ]
        )
        #expect(harness.machine.rootCoordinatorID == FlowCoordinatorID(3))
    }
}
