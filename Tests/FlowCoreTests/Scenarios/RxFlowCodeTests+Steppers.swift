import FlowCore
import Testing

extension RxFlowCodeTests {
    // RxFlow FlowCoordinator.steps(from:): each contribution subscribes to the stepper's relay again (its own
    // startWith(initialStep), its own readyToEmitSteps(), its own pausable on its own presentable), and a PublishRelay
    // delivers every step to every subscription, in subscription order: the first subscription also hears what the
    // stepper emits in the second one's readyToEmitSteps().
    @Test("R7, D8: one stepper contributed twice is listened to twice, each contribution gated by its own screen")
    func oneStepperContributedTwiceIsListenedToTwice() throws {
        let shared = ScenarioStepper("shared", initial: "x", whenReady: ["y"])
        let flow = ScenarioFlow("F")
        flow.on("a") { .multiple(Contribute.screen("s1", shared), Contribute.screen("s2", shared)) }
        let harness = ScenarioHarness()
        try harness.coordinate(flow, with: OneStepper(withSingleStep: Step("a")))
        harness.show("s1")
        harness.emit("z", from: shared)
        harness.show("s2")
        harness.emit("w", from: shared)

        #expect(
            harness.takeLog().only("did navigate", "drop") == [
                "did navigate flow=F step=a",
                "drop y reason=notVisible flow#1 att#2",
                "drop y reason=notVisible flow#1 att#2",
                "drop y reason=notVisible flow#1 att#3",
                "did navigate flow=F step=x",
                "did navigate flow=F step=z",
                "drop z reason=notVisible flow#1 att#3",
                "did navigate flow=F step=x",
                "did navigate flow=F step=w",
                "did navigate flow=F step=w",
            ]
        )
        #expect(shared.readyToEmitStepsCount == 2)
    }

    // RxFlow Stepper.swift: OneStepper's step is its initialStep, which each subscription starts with: the same
    // OneStepper contributed again gives its step again (DefaultStepper is a OneStepper of `home`).
    @Test("R12: a OneStepper contributed again gives its step again")
    func oneStepperContributedAgainGivesItsStepAgain() throws {
        let one = OneStepper(withSingleStep: Step("x"))
        let flow = ScenarioFlow("F")
        flow.on("a") { .one(flowContributor: Contribute.screen("s", one, notPresented: true)) }
        flow.on("b") { .one(flowContributor: Contribute.screen("s", one, notPresented: true)) }
        let harness = ScenarioHarness()
        try harness.coordinate(flow, with: OneStepper(withSingleStep: Step("a")))
        harness.deepLink("b")

        #expect(harness.takeLog().navigations == ["F: a", "F: x", "F: b", "F: x"])
        #expect(harness.machine.attachments(on: "s").map(\.id) == [AttachmentID(2), AttachmentID(3)])
    }

    // RxFlow ObservableType+Pausable.swift: `withLatestFrom(rxVisible).filter`: a contributor's steps pass while its
    // screen is visible, are dropped while it is hidden, pass again once it is shown again; the initial step is
    // delivered once (D8: on the first visibility), not at every return.
    @Test("R7, D8: a screen shown, hidden, shown again: dropped only while hidden; the initial step once")
    func screenShownHiddenShownAgain() throws {
        let model = ScenarioStepper("model", initial: "x")
        let free = ScenarioStepper("free")
        let flow = ScenarioFlow("F")
        flow.on("a") {
            .multiple(Contribute.screen("s", model), Contribute.screen("s", free, notPresented: true))
        }
        let harness = ScenarioHarness()
        try harness.coordinate(flow, with: OneStepper(withSingleStep: Step("a")))
        harness.show("s")
        harness.emit("p", from: model)
        harness.hide("s")
        harness.emit("q", from: model)
        harness.emit("q2", from: free)
        harness.show("s")
        harness.emit("r", from: model)

        #expect(
            harness.takeLog().only("did navigate", "drop") == [
                "did navigate flow=F step=a",
                "did navigate flow=F step=x",
                "did navigate flow=F step=p",
                "drop q reason=notVisible flow#1 att#2",
                "did navigate flow=F step=q2",
                "did navigate flow=F step=r",
            ]
        )
    }
}

extension RxFlowCodeTests {
    // RxFlow FlowCoordinator.coordinate: a step an attached stepper emits inside `navigate` joins the running
    // coordinator's ObserveOn queue; the new contributor is subscribed after `navigate` returns (its startWith, then
    // readyToEmitSteps), so its steps queue behind that one; what it emits inside `navigate`, before anyone
    // subscribed to its PublishRelay, is lost.
    @Test("R1, R15: steps emitted in the navigation that contributes a stepper, and in its readyToEmitSteps")
    func stepsEmittedInTheNavigationThatContributesAStepper() throws {
        let attached = ScenarioStepper("attached")
        let contributed = ScenarioStepper("contributed", initial: "x", whenReady: ["y"])
        let flow = ScenarioFlow("F")
        flow.on("a") { .one(flowContributor: Contribute.screen("s", attached, notPresented: true)) }
        flow.on("b") { _, _ in
            contributed.steps.accept(Step("early"))
            attached.steps.accept(Step("t"))
            return .one(flowContributor: Contribute.screen("s2", contributed, notPresented: true))
        }
        let harness = ScenarioHarness()
        try harness.coordinate(flow, with: OneStepper(withSingleStep: Step("a")))
        harness.deepLink("b")

        #expect(harness.takeLog().navigations == ["F: a", "F: b", "F: t", "F: x", "F: y"])
    }

    // RxFlow FlowCoordinator.navigate(to:): a deep link enters each coordinator's stepsRelay at once, whatever that
    // flow has navigated so far: a child whose first step waits for its asynchronous adaptation navigates the deep
    // link first (and that navigation decides its readiness), then its first step when the adaptation completes.
    // (RxFlow fires P ready at P's own `link` already, readiness being an edge at every navigation; D6 latches it on
    // P's first navigation, which waits for C.)
    @Test("R13, D6: a deep link reaches a child whose first step still waits for its adaptation")
    func deepLinkReachesAChildWhoseFirstStepWaitsForItsAdaptation() async throws {
        let parent = ScenarioFlow("P")
        let child = ScenarioFlow("C")
        child.adaptation = { step in step.name == "c" ? .later { step } : .step(step) }
        parent.on("a") { .one(flowContributor: Contribute.flow(child, OneStepper(withSingleStep: Step("c")))) }
        let harness = ScenarioHarness()
        try harness.coordinate(parent, with: OneStepper(withSingleStep: Step("a")))
        harness.deepLink("link")
        await harness.runAdapt("c")

        #expect(
            harness.takeLog().only("did navigate", "ready") == [
                "did navigate flow=P step=a",
                "did navigate flow=P step=link",
                "did navigate flow=C step=link",
                "ready flow#2",
                "ready flow#1",
                "did navigate flow=C step=c",
            ]
        )
    }
}
