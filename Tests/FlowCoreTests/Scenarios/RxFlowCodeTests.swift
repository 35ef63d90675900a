import FlowCore
import Testing

/// Cases found by reading RxFlow 2.13.2's own code (`RxFlow/FlowCoordinator.swift`, `RxFlow/Stepper.swift`,
/// `RxFlow/Flow.swift`) against FlowCore, each with what RxFlow does in a one-line comment: where Flowd keeps RxFlow's
/// outcome, where a decision of `docs/SEMANTICS.md` differs, and how.
@Suite struct RxFlowCodeTests {
    // RxFlow FlowCoordinator.steps(from:): a stepper whose presentable goes before it was shown is disposed, its
    // initialStep never delivered; Flowd holds that step (D8), so dropping it is a drop like any other (D13).
    @Test("D8, D13: a held initial step is reported dropped when its stepper is detached before a first visibility")
    func heldInitialStepDroppedWhenDetached() throws {
        let parent = ScenarioFlow("P")
        let child = ScenarioFlow("C")
        parent.on("a") {
            .multiple(
                Contribute.screen("s", OneStepper(withSingleStep: Step("x"))),
                Contribute.flow(child, OneStepper(withSingleStep: Step("b")))
            )
        }
        child.on("b") { .one(flowContributor: Contribute.screen("t", OneStepper(withSingleStep: Step("y")))) }
        let harness = ScenarioHarness()
        try harness.coordinate(parent, with: OneStepper(withSingleStep: Step("a")))
        _ = harness.takeLog()

        harness.dismiss("s")
        harness.dismiss("C.root")

        #expect(
            harness.takeLog() == [
                "detach att#2 (presentableDismissed)",
                "drop x reason=attachmentEnded flow#1 att#2",
                "detach att#3 (flowEnded)",
                "detach att#4 (flowEnded)",
                "drop y reason=flowEnded flow#2 att#4",
                "end flow#2 (rootDismissed)",
            ]
        )
    }
}
