import FlowCore
import Testing

/// Decisions about what an app ported from RxFlow meets: a page that comes back after its dismissal (D11), a child
/// flow that ends on its first navigation (D16), two instances of a flow on one root (D17), a screen that a command
/// removed with no presenter to report it (D18).
extension DecisionTests {
    @Test("D11: a stepper that survives its screen's dismissal (allowStepWhenDismissed) is heard once it is visible again")
    func d11SurvivingStepperIsHeardAgainAfterTheReturn() throws {
        let page = ScenarioStepper("page")
        let flow = ScenarioFlow("F").on("a") { .one(flowContributor: Contribute.screen("page", page, dismissed: true)) }
        let harness = ScenarioHarness()
        try harness.coordinate(flow, with: OneStepper(withSingleStep: Step("a")))
        harness.show("page")
        harness.emit("x", from: page)

        harness.dismiss("page")  // a page view controller's page swiped away (RxFlow #117, #157)
        harness.emit("y", from: page)
        harness.show("page")  // and swiped back
        harness.emit("z", from: page)

        #expect(
            harness.takeLog().only("did navigate", "drop", "detach") == [
                "did navigate flow=F step=a",
                "did navigate flow=F step=x",
                "drop y reason=notVisible flow#1 att#2",
                "did navigate flow=F step=z",
            ]
        )
        #expect(harness.machine.isVisible("page"))
        #expect(harness.machine.isDismissed("page"))
    }

    @Test("D16: a child flow whose first navigation is .end is ready, so its parent is ready and its .ready block runs")
    func d16ChildEndingOnFirstNavigationIsReady() throws {
        let parent = ScenarioFlow("P")
        let child = ScenarioFlow("C")
        parent.on("a") { _, navigator in
            Flows.use(parent, when: .ready, in: navigator) { navigator in
                navigator.push(.view("ready.screen", type: "View"), onto: "P.root")
            }
            return .one(flowContributor: Contribute.flow(child, OneStepper(withSingleStep: Step("b"))))
        }
        child.on("b") { .end(forwardToParentFlowWithStep: Step("y")) }
        let harness = ScenarioHarness()

        try harness.coordinate(parent, with: OneStepper(withSingleStep: Step("a")))

        // RxFlow releases C in the `.end` branch before `setReadiness` runs: C never fires ready, nor P, and P's
        // block never runs.
        #expect(
            harness.takeLog() == [
                "start P flow#1",
                "command setRoot P.root (flow#1)",
                "attach att#1 OneStepper(a) on P.root (flow)",
                "will navigate flow=P step=a",
                "did navigate flow=P step=a",
                "start C flow#2 parent=flow#1",
                "attach att#2 OneStepper(b) on C.root (flow)",
                "will navigate flow=C step=b",
                "did navigate flow=C step=b",
                "ready flow#2",
                "ready flow#1",
                "command push ready.screen onto P.root (flow#1)",
                "detach att#2 (flowEnded)",
                "end flow#2 (ended)",
                "will navigate flow=P step=y",
                "did navigate flow=P step=y",
            ]
        )
    }

    @Test("D17: a child flow on the root of a live flow is refused (rootInUse); once that flow ends, the root is free")
    func d17TwoLiveFlowsCannotShareARoot() throws {
        let first = ScenarioFlow("Detail", root: .stack("detail.root"))
        let second = ScenarioFlow("Detail", root: .stack("detail.root"))
        let parent = ScenarioFlow("P")
        parent.on("a") {
            .multiple(
                Contribute.flow(first, OneStepper(withSingleStep: Step("b"))),
                Contribute.flow(second, OneStepper(withSingleStep: Step("c")))
            )
        }
        parent.on("again") { .one(flowContributor: Contribute.flow(second, OneStepper(withSingleStep: Step("c")))) }
        let parentStepper = ScenarioStepper("P.stepper", initial: "a")
        let harness = ScenarioHarness()

        try harness.coordinate(parent, with: parentStepper)
        #expect(
            harness.takeLog().only("start", "drop", "did navigate", "ready") == [
                "start P flow#1",
                "did navigate flow=P step=a",
                "start Detail flow#2 parent=flow#1",
                "drop c reason=rootInUse flow#1",
                "did navigate flow=Detail step=b",
                "ready flow#2",
                "ready flow#1",
            ]
        )

        harness.dismiss("detail.root")
        harness.emit("again", from: parentStepper)
        #expect(
            harness.takeLog().only("start", "end", "did navigate") == [
                "end flow#2 (rootDismissed)",
                "did navigate flow=P step=again",
                "start Detail flow#3 parent=flow#1",
                "did navigate flow=Detail step=c",
            ]
        )
    }

    /// P presents `about` (with a stepper) on `open` and dismisses it on `close`; `reopen` does both in one navigation.
    private func aboutFlow(_ steppers: @escaping () -> any Stepper, dismissed: Bool = false) -> ScenarioFlow {
        let about = Screen.view("about", type: "About")
        let flow = ScenarioFlow("P")
        flow.on("open") { _, navigator in
            navigator.present(about, over: "P.root")
            return .one(flowContributor: Contribute.screen("about", steppers(), dismissed: dismissed))
        }
        flow.on("close") { _, navigator in
            navigator.dismiss(presentedOver: "P.root")
            return .none
        }
        flow.on("reopen") { _, navigator in
            navigator.dismiss(presentedOver: "P.root")
            navigator.present(about, over: "P.root")
            return .one(flowContributor: Contribute.screen("about", steppers(), dismissed: dismissed))
        }
        return flow
    }

    @Test("D18: a screen a command took out of the UI is dismissed at once, with no presenter to report it")
    func d18CommandRemovalDismissesAtOnce() throws {
        let harness = ScenarioHarness()
        let model = harness.keepUIModel()
        try harness.coordinate(aboutFlow { ScenarioStepper("about") })
        for _ in 0..<3 {
            harness.deepLink("open")
            harness.deepLink("close")
        }
        harness.deepLink("open")
        harness.deepLink("reopen")

        #expect(
            harness.takeLog().only("command", "attach", "detach") == [
                "command setRoot P.root (flow#1)",
                "attach att#1 DefaultStepper on P.root (flow)",
                "command present about over P.root (flow#1)",
                "attach att#2 about on about (contributor)",
                "command dismiss over P.root (flow#1)",
                "detach att#2 (presentableDismissed)",
                "command present about over P.root (flow#1)",
                "attach att#3 about on about (contributor)",
                "command dismiss over P.root (flow#1)",
                "detach att#3 (presentableDismissed)",
                "command present about over P.root (flow#1)",
                "attach att#4 about on about (contributor)",
                "command dismiss over P.root (flow#1)",
                "detach att#4 (presentableDismissed)",
                "command present about over P.root (flow#1)",
                "attach att#5 about on about (contributor)",
                "command dismiss over P.root (flow#1)",
                "command present about over P.root (flow#1)",
                "detach att#5 (presentableDismissed)",
                "attach att#6 about on about (contributor)",
            ]
        )
        // The screen shown again under the same ID starts a new life (D11) with only its new stepper.
        #expect(harness.machine.liveAttachments.map(\.id) == [AttachmentID(1), AttachmentID(6)])
        #expect(harness.machine.attachments(on: "about").map(\.id) == [AttachmentID(6)])
        #expect(!harness.machine.isDismissed("about"))
        #expect(model.ui.contains("about"))
    }

    @Test("D18: a stepper contributed with allowStepWhenDismissed survives a command's removal, as a reported one")
    func d18AllowStepWhenDismissedSurvivesACommandsRemoval() throws {
        let harness = ScenarioHarness()
        _ = harness.keepUIModel()
        let page = ScenarioStepper("page")
        try harness.coordinate(aboutFlow({ page }, dismissed: true))
        harness.deepLink("open")
        harness.deepLink("close")

        #expect(harness.takeLog().only("detach") == [])
        #expect(harness.machine.isDismissed("about"))
        #expect(harness.machine.attachments(on: "about").map(\.id) == [AttachmentID(2)])
    }

    @Test("D18: a flow whose root a command took out of the UI ends then, its subtree first")
    func d18CommandRemovingAFlowsRootEndsIt() throws {
        let child = ScenarioFlow("C", root: .stack("C.root"))
        let parent = ScenarioFlow("P")
        parent.on("open") { _, navigator in
            navigator.present(child.root, over: "P.root")
            return .one(flowContributor: Contribute.flow(child, ScenarioStepper("c")))
        }
        parent.on("close") { _, navigator in
            navigator.dismiss(presentedOver: "P.root")
            return .none
        }
        let harness = ScenarioHarness()
        _ = harness.keepUIModel()
        try harness.coordinate(parent)
        harness.deepLink("open")
        _ = harness.takeLog()
        harness.deepLink("close")

        #expect(
            harness.takeLog() == [
                "will navigate flow=P step=close",
                "command dismiss over P.root (flow#1)",
                "did navigate flow=P step=close",
                "detach att#2 (flowEnded)",
                "end flow#2 (rootDismissed)",
            ]
        )
    }
}
