import FlowCore
import Testing

extension RxFlowCodeTests {
    // RxFlow FlowCoordinator.coordinate: a forward or `.end` goes into the parent's stepsRelay, whose pipeline starts
    // with the parent's own `adapt`: three levels deep, each level adapts what it gets, and a step a level adapts
    // to NoneStep stops there (RxFlow navigates NoneStep, which the flow ignores; Flowd drops it, D1).
    @Test("R2, R6, R10: forwards and ends three levels deep, adapted at each level")
    func forwardsAndEndsThreeLevelsDeepAdaptedAtEachLevel() throws {
        let top = ScenarioFlow("P")
        let middle = ScenarioFlow("C")
        let bottom = ScenarioFlow("G")
        top.adaptation = { step in .step(step.name == "p1" ? Step("p2") : step) }
        middle.adaptation = { step in
            switch step.name {
            case "g1": .step(Step("c1"))
            case "gEnd": .step(Step("cEnd"))
            case "gStop": .step(.none)
            default: .step(step)
            }
        }
        top.on("a") { .one(flowContributor: Contribute.flow(middle, OneStepper(withSingleStep: Step("c")))) }
        middle.on("c") { .one(flowContributor: Contribute.flow(bottom, OneStepper(withSingleStep: Step("g")))) }
        bottom.on("g") { .one(flowContributor: .forwardToParentFlow(withStep: Step("g1"))) }
        middle.on("c1") { .one(flowContributor: .forwardToParentFlow(withStep: Step("p1"))) }
        bottom.on("stop") { .one(flowContributor: .forwardToParentFlow(withStep: Step("gStop"))) }
        bottom.on("done") { .end(forwardToParentFlowWithStep: Step("gEnd")) }
        middle.on("cEnd") { .end(forwardToParentFlowWithStep: Step("p1")) }
        let harness = ScenarioHarness()
        try harness.coordinate(top, with: OneStepper(withSingleStep: Step("a")))
        harness.deepLink("stop")
        harness.deepLink("done")

        #expect(
            harness.takeLog().only("did navigate", "drop", "end") == [
                "did navigate flow=P step=a",
                "did navigate flow=C step=c",
                "did navigate flow=G step=g",
                "did navigate flow=C step=c1",
                "did navigate flow=P step=p2",
                "did navigate flow=P step=stop",
                "did navigate flow=C step=stop",
                "did navigate flow=G step=stop",
                "drop gStop reason=adaptedToNone flow#2",
                "did navigate flow=P step=done",
                "did navigate flow=C step=done",
                "did navigate flow=G step=done",
                "end flow#3 (ended)",
                "did navigate flow=C step=cEnd",
                "end flow#2 (ended)",
                "did navigate flow=P step=p2",
            ]
        )
    }

    // RxFlow FlowCoordinator.coordinate: a dismissed root ends its flow's pipeline, whose onDispose removes every
    // child coordinator, the only owner of their subscriptions: a child contributed with allowStepWhenDismissed and a
    // contributor with allowStepWhenDismissed go too (their flags are about their own dismissal).
    @Test("R9: a root dismissed with live children takes their steppers, whatever their allowStepWhenDismissed")
    func rootDismissedWithLiveChildrenTakesTheirSteppers() throws {
        let parent = ScenarioFlow("P")
        let child = ScenarioFlow("C")
        let page = ScenarioStepper("page")
        parent.on("a") {
            .one(flowContributor: Contribute.flow(child, OneStepper(withSingleStep: Step("c")), dismissed: true))
        }
        child.on("c") { .one(flowContributor: Contribute.screen("c.page", page, notPresented: true, dismissed: true)) }
        let harness = ScenarioHarness()
        try harness.coordinate(parent, with: OneStepper(withSingleStep: Step("a")))
        _ = harness.takeLog()

        harness.dismiss("P.root")
        harness.emit("late", from: page)
        harness.deepLink("after")

        #expect(
            harness.takeLog() == [
                "detach att#2 (flowEnded)",
                "detach att#3 (flowEnded)",
                "end flow#2 (parentEnded)",
                "detach att#1 (flowEnded)",
                "end flow#1 (rootDismissed)",
                "drop after reason=noRootFlow",
            ]
        )
        #expect(!harness.isListening(to: page))
    }
}

extension RxFlowCodeTests {
    // RxFlow FlowCoordinator.navigate(to:): each coordinator's stepsRelay gets the step as it was sent, not as an
    // ancestor adapted it: a parent adapting a deep link away, or to another step, changes nothing for its children.
    @Test("R13, D1: each level adapts a deep link as it was sent, whatever its parent made of it")
    func eachLevelAdaptsADeepLinkAsItWasSent() throws {
        let top = ScenarioFlow("P")
        let middle = ScenarioFlow("C")
        let bottom = ScenarioFlow("G")
        top.adaptation = { step in .step(step.name == "x" ? .none : step) }
        middle.adaptation = { step in .step(step.name == "x" ? Step("y") : step) }
        top.on("a") { .one(flowContributor: Contribute.flow(middle, OneStepper(withSingleStep: Step("c")))) }
        middle.on("c") { .one(flowContributor: Contribute.flow(bottom, OneStepper(withSingleStep: Step("g")))) }
        let harness = ScenarioHarness()
        try harness.coordinate(top, with: OneStepper(withSingleStep: Step("a")))
        _ = harness.takeLog()

        harness.deepLink("x")

        #expect(
            harness.takeLog().only("did navigate", "drop") == [
                "drop x reason=adaptedToNone flow#1",
                "did navigate flow=C step=y",
                "did navigate flow=G step=x",
            ]
        )
    }
}
