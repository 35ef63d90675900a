import FlowCore
import Testing

// Scenarios S8 to S15: dismissals, async adaptations, the root flow's forwards, composite steppers and ends.
extension ScenarioTests {
    @Test("S8 (R9): dismissing a child flow's root ends its coordinator; a later deep link reaches only the parent")
    func s8ChildRootDismissal() throws {
        let parent = ScenarioFlow("P")
        let child = ScenarioFlow("C")
        parent.on("a") { .one(flowContributor: Contribute.flow(child, OneStepper(withSingleStep: Step("b")))) }
        let harness = ScenarioHarness()
        try harness.coordinate(parent, with: OneStepper(withSingleStep: Step("a")))
        #expect(harness.takeLog().navigations == ["P: a", "C: b"])

        harness.dismiss("C.root")
        #expect(harness.takeLog() == ["detach att#2 (flowEnded)", "end flow#2 (rootDismissed)"])

        harness.deepLink("z")
        // RxFlow: FlowCoordinator(C).deinit, then only P.navigate(z).
        #expect(harness.takeLog() == ["will navigate flow=P step=z", "did navigate flow=P step=z"])
        #expect(child.calls == ["adapt b", "navigate b"])
    }

    @Test("S9 (D1, D2): a failed async adaptation drops the step; async adaptations complete in completion order")
    func s9AdaptErrorAndAsyncOrder() async throws {
        let flow = ScenarioFlow("F")
        flow.adaptation = { step in
            guard step.name != "a" else { return .step(step) }
            return .later {
                if step.name == "err" { throw ScenarioAdaptError() }
                return step
            }
        }
        let stepper = ScenarioStepper("F.stepper", initial: "a")
        let harness = ScenarioHarness()
        try harness.coordinate(flow, with: stepper)
        _ = harness.takeLog()

        harness.emit("err", from: stepper)
        harness.emit("slow", from: stepper)
        harness.emit("fast", from: stepper)
        #expect(
            harness.takeLog() == [
                "adapt adapt#1 flow#1 err",
                "adapt adapt#2 flow#1 slow",
                "adapt adapt#3 flow#1 fast",
            ]
        )

        await harness.runAdapt("err")
        await harness.runAdapt("fast")
        await harness.runAdapt("slow")

        // RxFlow: F.navigate(NoneStep), F.navigate(fast), F.navigate(slow). Flowd (D1): the failed step is dropped
        // and navigate is not called; completion order is kept (D2).
        #expect(
            harness.takeLog() == [
                "drop err reason=adaptFailed flow#1",
                "will navigate flow=F step=fast",
                "did navigate flow=F step=fast",
                "will navigate flow=F step=slow",
                "did navigate flow=F step=slow",
            ]
        )
        #expect(!flow.calls.contains("navigate NoneStep"))
        #expect(harness.machine.pendingAdaptRequests == [])
    }

    @Test("S10 (R1, R3): a step emitted during navigate waits until the cascade, child included, is done")
    func s10ReentrantStep() throws {
        let parent = ScenarioFlow("P")
        let child = ScenarioFlow("C")
        // P's stepper emits a once attached (in readyToEmitSteps); P emits b on it while navigating to a.
        let parentStepper = ScenarioStepper("P.stepper", whenReady: ["a"])
        parent.on("a") {
            parentStepper.steps.accept(Step("b"))
            return .one(flowContributor: Contribute.flow(child, OneStepper(withSingleStep: Step("c"))))
        }
        let harness = ScenarioHarness()

        try harness.coordinate(parent, with: parentStepper)

        // RxFlow: will(P,a), P.navigate(a), did(P,a), will(C,c), C.navigate(c), did(C,c), will(P,b),
        // P.navigate(b), did(P,b). Same in Flowd: b is an input that waits for the current one to complete.
        #expect(
            harness.takeLog() == [
                "start P flow#1",
                "command setRoot P.root (flow#1)",
                "attach att#1 P.stepper on P.root (flow)",
                "will navigate flow=P step=a",
                "did navigate flow=P step=a",
                "start C flow#2 parent=flow#1",
                "attach att#2 OneStepper(c) on C.root (flow)",
                "will navigate flow=C step=c",
                "did navigate flow=C step=c",
                "ready flow#2",
                "ready flow#1",
                "will navigate flow=P step=b",
                "did navigate flow=P step=b",
            ]
        )
        #expect(parent.calls == ["adapt a", "navigate a", "adapt b", "navigate b"])
    }

    @Test("S11 (D10): forwards and .end on the root flow are dropped; .end removes its children; the root goes on")
    func s11RootForwardAndEnd() throws {
        let flow = ScenarioFlow("F")
        let child = ScenarioFlow("C")
        let stepper = ScenarioStepper("F.stepper", initial: "a")
        flow.on("a") {
            .multiple(
                Contribute.flow(child, OneStepper(withSingleStep: Step("ca"))),
                .forwardToParentFlow(withStep: Step("z"))
            )
        }
        flow.on("b") { .end(forwardToParentFlowWithStep: Step("w")) }
        let harness = ScenarioHarness()

        try harness.coordinate(flow, with: stepper)
        #expect(
            harness.takeLog() == [
                "start F flow#1",
                "command setRoot F.root (flow#1)",
                "attach att#1 F.stepper on F.root (flow)",
                "will navigate flow=F step=a",
                "did navigate flow=F step=a",
                "drop z reason=noParentFlow flow#1",
                "start C flow#2 parent=flow#1",
                "attach att#2 OneStepper(ca) on C.root (flow)",
                "will navigate flow=C step=ca",
                "did navigate flow=C step=ca",
                "ready flow#2",
                "ready flow#1",
            ]
        )

        harness.emit("b", from: stepper)
        #expect(
            harness.takeLog() == [
                "will navigate flow=F step=b",
                "did navigate flow=F step=b",
                "drop w reason=noParentFlow flow#1",
                "detach att#2 (flowEnded)",
                "end flow#2 (parentEnded)",
            ]
        )

        harness.emit("c", from: stepper)
        // RxFlow: F.navigate(a), F.navigate(b), F.navigate(c), the forwards silently dropped.
        #expect(harness.takeLog() == ["will navigate flow=F step=c", "did navigate flow=F step=c"])
        #expect(harness.machine.snapshot().root?.flow == "F")
    }

    @Test("S12 (D5): a CompositeStepper flow stepper loses no step an inner stepper emits in readyToEmitSteps")
    func s12CompositeStepper() throws {
        let flow = ScenarioFlow("F")
        let inner2 = ScenarioStepper("inner2", initial: "c", whenReady: ["e"])
        let composite = CompositeStepper(steppers: [OneStepper(withSingleStep: Step("b")), inner2])
        let harness = ScenarioHarness()

        try harness.coordinate(flow, with: composite)

        // RxFlow: inner2.readyToEmitSteps, F.navigate(b), F.navigate(c): e is lost. Flowd (D5): b, c, e.
        #expect(
            harness.takeLog() == [
                "start F flow#1",
                "command setRoot F.root (flow#1)",
                "attach att#1 OneStepper(b) on F.root (flow)",
                "attach att#2 inner2 on F.root (flow)",
                "will navigate flow=F step=b",
                "did navigate flow=F step=b",
                "ready flow#1",
                "will navigate flow=F step=c",
                "did navigate flow=F step=c",
                "will navigate flow=F step=e",
                "did navigate flow=F step=e",
            ]
        )
        #expect(inner2.readyToEmitStepsCount == 1)
    }

    @Test("S13 (R9, R10): .end of a middle flow removes its whole subtree, children first")
    func s13SubtreeTeardownOnEnd() throws {
        let root = ScenarioFlow("R")
        let middle = ScenarioFlow("M")
        let grandchild = ScenarioFlow("G")
        let middleStepper = ScenarioStepper("M.stepper", initial: "b")
        root.on("a") { .one(flowContributor: Contribute.flow(middle, middleStepper)) }
        middle.on("b") {
            .multiple(
                Contribute.flow(grandchild, OneStepper(withSingleStep: Step("c"))),
                .forwardToCurrentFlow(withStep: Step("w"))
            )
        }
        middle.on("x") { .end(forwardToParentFlowWithStep: Step("y")) }
        let harness = ScenarioHarness()

        try harness.coordinate(root, with: OneStepper(withSingleStep: Step("a")))
        #expect(
            harness.takeLog() == [
                "start R flow#1",
                "command setRoot R.root (flow#1)",
                "attach att#1 OneStepper(a) on R.root (flow)",
                "will navigate flow=R step=a",
                "did navigate flow=R step=a",
                "start M flow#2 parent=flow#1",
                "attach att#2 M.stepper on M.root (flow)",
                "will navigate flow=M step=b",
                "did navigate flow=M step=b",
                "start G flow#3 parent=flow#2",
                "attach att#3 OneStepper(c) on G.root (flow)",
                "will navigate flow=G step=c",
                "did navigate flow=G step=c",
                "ready flow#3",
                "ready flow#2",
                "ready flow#1",
                "will navigate flow=M step=w",
                "did navigate flow=M step=w",
            ]
        )

        harness.emit("x", from: middleStepper)
        // RxFlow: M.navigate(x), two FlowCoordinator deinits, R.navigate(y).
        #expect(
            harness.takeLog() == [
                "will navigate flow=M step=x",
                "did navigate flow=M step=x",
                "detach att#3 (flowEnded)",
                "end flow#3 (parentEnded)",
                "detach att#2 (flowEnded)",
                "end flow#2 (ended)",
                "will navigate flow=R step=y",
                "did navigate flow=R step=y",
            ]
        )

        harness.deepLink("z")
        #expect(harness.takeLog() == ["will navigate flow=R step=z", "did navigate flow=R step=z"])
        #expect(harness.machine.coordinatorIDs == [FlowCoordinatorID(1)])
    }

    @Test("S14 (R9): a child flow contributed with allowStepWhenDismissed survives its root's dismissal")
    func s14ChildAllowStepWhenDismissed() throws {
        let parent = ScenarioFlow("P")
        let child = ScenarioFlow("C")
        parent.on("a") {
            .one(flowContributor: Contribute.flow(child, OneStepper(withSingleStep: Step("b")), dismissed: true))
        }
        let harness = ScenarioHarness()
        try harness.coordinate(parent, with: OneStepper(withSingleStep: Step("a")))
        #expect(harness.takeLog().navigations == ["P: a", "C: b"])

        harness.dismiss("C.root")
        #expect(harness.takeLog() == [])
        #expect(harness.machine.snapshot().root?.children.map(\.flow) == ["C"])

        harness.deepLink("z")
        // RxFlow: child root dismissed; children=1, P.navigate(z), C.navigate(z). Same in Flowd.
        #expect(
            harness.takeLog() == [
                "will navigate flow=P step=z",
                "did navigate flow=P step=z",
                "will navigate flow=C step=z",
                "did navigate flow=C step=z",
            ]
        )
    }

    @Test("S15 (D7): .end after an async adaptation: the child is removed before the parent handles the step")
    func s15EndAfterAsyncAdapt() async throws {
        let parent = ScenarioFlow("P")
        let child = ScenarioFlow("C")
        let childStepper = ScenarioStepper("C.stepper", initial: "b")
        parent.on("a") { .one(flowContributor: Contribute.flow(child, childStepper)) }
        child.adaptation = { step in step.name == "x" ? .later { step } : .step(step) }
        child.on("x") { .end(forwardToParentFlowWithStep: Step("y")) }
        let harness = ScenarioHarness()
        try harness.coordinate(parent, with: OneStepper(withSingleStep: Step("a")))
        #expect(harness.takeLog().navigations == ["P: a", "C: b"])

        harness.emit("x", from: childStepper)
        #expect(harness.takeLog() == ["adapt adapt#1 flow#2 x"])

        await harness.runAdapt("x")

        // RxFlow: C.navigate(x), P.navigate(y) with children=1, then FlowCoordinator(C).deinit. Flowd (D7): the
        // child is gone before P navigates to y.
        #expect(
            harness.takeLog() == [
                "will navigate flow=C step=x",
                "did navigate flow=C step=x",
                "detach att#2 (flowEnded)",
                "end flow#2 (ended)",
                "will navigate flow=P step=y",
                "did navigate flow=P step=y",
            ]
        )
    }
}
