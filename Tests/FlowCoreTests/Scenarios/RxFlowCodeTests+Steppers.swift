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
