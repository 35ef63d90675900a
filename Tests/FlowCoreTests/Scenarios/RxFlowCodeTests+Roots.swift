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

extension RxFlowCodeTests {
    // RxFlow Flow.swift: `.created` runs the block at once; `.ready` zips each flow's `rxFlowReady`, a `take(1)` of a
    // relay kept on the flow object. A flow ended before it fired keeps the zip waiting, until that same flow object
    // is coordinated again and fires ready; its first coordinator's pending adaptation is disposed with it. RxFlow's
    // parent (setReadiness zips its children's flow objects) would be ready then too; Flowd's parent waits for the
    // coordinators its first navigation started (D6) and stays not ready.
    @Test("D6: .created runs at once; .ready waits for a flow ended before ready until it is coordinated again")
    func readyBlockWaitsForAFlowEndedBeforeReadyUntilCoordinatedAgain() async throws {
        let parent = ScenarioFlow("P")
        let first = ScenarioFlow("A")
        let second = ScenarioFlow("B")
        first.adaptation = { step in step.name == "a1" ? .later { step } : .step(step) }
        parent.on("a") { _, navigator in
            Flows.use([first, second], when: .created, in: navigator) { navigator in
                navigator.push(.view("created", type: "View"), onto: "P.root")
            }
            Flows.use([first, second], when: .ready, in: navigator) { navigator in
                navigator.push(.view("ready", type: "View"), onto: "P.root")
            }
            return .multiple(
                Contribute.flow(first, OneStepper(withSingleStep: Step("a1"))),
                Contribute.flow(second, OneStepper(withSingleStep: Step("b1")))
            )
        }
        parent.on("again") { .one(flowContributor: Contribute.flow(first, OneStepper(withSingleStep: Step("a2")))) }
        let stepper = ScenarioStepper("P.stepper", initial: "a")
        let harness = ScenarioHarness()
        try harness.coordinate(parent, with: stepper)
        harness.dismiss("A.root")
        harness.emit("again", from: stepper)
        await harness.runAdapt("a1")

        #expect(
            harness.takeLog().only("did navigate", "command push", "ready", "end", "drop") == [
                "command push created onto P.root (flow#1)",
                "did navigate flow=P step=a",
                "did navigate flow=B step=b1",
                "ready flow#3",
                "end flow#2 (rootDismissed)",
                "did navigate flow=P step=again",
                "did navigate flow=A step=a2",
                "ready flow#4",
                "command push ready onto P.root (flow#1)",
                "drop a1 reason=flowEnded flow#2",
            ]
        )
        #expect(!harness.machine.isReady(FlowCoordinatorID(1)))
    }
}

extension RxFlowCodeTests {
    // RxFlow FlowCoordinator.steps(from:): a contributor's stream is `pausable(presentable.rxVisible)` and
    // `take(until: presentable.rxDismissed)`. A navigation controller (a flow's root) stays in the window while
    // screens are pushed onto it, so a stepper contributed on it keeps being heard; a screen under the top is hidden
    // (its steps dropped, not buffered) until it is on top again. Dismissing the root cuts both, and ends the flow.
    @Test("R7, R8, R9: a stepper on the flow's root is heard while screens are pushed; one on a covered screen is not")
    func stepperOnTheFlowsRootVersusOnAScreenInsideIt() throws {
        let parent = ScenarioFlow("P")
        let flow = ScenarioFlow("F")
        let onRoot = ScenarioStepper("onRoot")
        let onScreen = ScenarioStepper("onScreen")
        parent.on("a") { _, navigator in
            navigator.present(flow.root, over: "P.root")
            return .one(flowContributor: Contribute.flow(flow, OneStepper(withSingleStep: Step("f"))))
        }
        flow.on("f") { _, navigator in
            navigator.push(.view("first", type: "View"), onto: "F.root")
            return .multiple(Contribute.screen("F.root", onRoot), Contribute.screen("first", onScreen))
        }
        flow.on("more") { _, navigator in
            navigator.push(.view("second", type: "View"), onto: "F.root")
            return .none
        }
        flow.on("back") { _, navigator in
            navigator.pop("F.root")
            return .none
        }
        let harness = ScenarioHarness()
        let ui = harness.keepUIModel()
        /// What a presenter showing the UI reports after each call.
        func presenterReports() { for report in ui.takeVisibilityReports() { harness.handle(report) } }
        try harness.coordinate(parent, with: OneStepper(withSingleStep: Step("a")))
        presenterReports()
        _ = harness.takeLog()

        harness.emit("root1", from: onRoot)
        harness.emit("screen1", from: onScreen)
        harness.emit("more", from: onRoot)
        presenterReports()
        harness.emit("root2", from: onRoot)
        harness.emit("screen2", from: onScreen)
        harness.emit("back", from: onRoot)
        presenterReports()
        harness.emit("screen3", from: onScreen)
        harness.dismiss("F.root")

        #expect(
            harness.takeLog().only("did navigate", "drop", "detach", "end") == [
                "did navigate flow=F step=root1",
                "did navigate flow=F step=screen1",
                "did navigate flow=F step=more",
                "did navigate flow=F step=root2",
                "drop screen2 reason=notVisible flow#2 att#4",
                "did navigate flow=F step=back",
                "did navigate flow=F step=screen3",
                "detach att#3 (presentableDismissed)",
                "detach att#2 (flowEnded)",
                "detach att#4 (flowEnded)",
                "end flow#2 (rootDismissed)",
            ]
        )
    }
}

extension RxFlowCodeTests {
    // RxFlow FlowCoordinator.steps(from:): `take(until: presentable.rxDismissed)` fires when UIKit reports the
    // dismissal (viewDidDisappear, didMove(toParent: nil)), after the navigation that started it has returned; a step
    // the screen's stepper emits inside that navigation passes (the screen still counts as visible) and waits its
    // turn on the trampoline; one emitted after the report is not heard.
    @Test("R1, R8, D18: a step emitted in the navigation that closes its screen is navigated; one emitted after is not")
    func stepEmittedInTheNavigationClosingItsScreen() throws {
        let flow = ScenarioFlow("F")
        let model = ScenarioStepper("model")
        flow.on("a") { _, navigator in
            navigator.push(.view("home", type: "View"), onto: "F.root")
            navigator.push(.view("s", type: "View"), onto: "F.root")
            return .one(flowContributor: Contribute.screen("s", model))
        }
        flow.on("close") { _, navigator in
            navigator.pop("F.root")
            model.steps.accept(Step("inside"))
            return .none
        }
        let harness = ScenarioHarness()
        _ = harness.keepUIModel()
        try harness.coordinate(flow, with: OneStepper(withSingleStep: Step("a")))
        harness.show("s")
        _ = harness.takeLog()

        harness.emit("close", from: model)
        harness.emit("after", from: model)

        #expect(
            harness.takeLog().only("did navigate", "drop", "detach") == [
                "did navigate flow=F step=close",
                "detach att#2 (presentableDismissed)",
                "did navigate flow=F step=inside",
            ]
        )
        #expect(!harness.isListening(to: model))
    }
}

extension RxFlowCodeTests {
    // RxFlow FlowCoordinator.navigate(to:): the step goes into the coordinator's relay, whose `flatMap { adapt }`
    // keeps a pending adaptation running, then to each child, without waiting for the parent's adaptation; adapted
    // steps reach `navigate` in completion order.
    @Test("D2, D3: a deep link while an adaptation is in flight; a deep link whose own adaptation is asynchronous")
    func deepLinkWhileAnAdaptationIsInFlight() async throws {
        let parent = ScenarioFlow("P")
        let child = ScenarioFlow("C")
        parent.adaptation = { step in ["slow", "link2"].contains(step.name) ? .later { step } : .step(step) }
        parent.on("a") { .one(flowContributor: Contribute.flow(child, OneStepper(withSingleStep: Step("c")))) }
        let stepper = ScenarioStepper("P.stepper", initial: "a")
        let harness = ScenarioHarness()
        try harness.coordinate(parent, with: stepper)
        _ = harness.takeLog()

        harness.emit("slow", from: stepper)
        harness.deepLink("link1")
        harness.deepLink("link2")
        await harness.runAdapt("link2")
        await harness.runAdapt("slow")

        #expect(
            harness.takeLog().only("did navigate", "adapt adapt") == [
                "adapt adapt#1 flow#1 slow",
                "did navigate flow=P step=link1",
                "did navigate flow=C step=link1",
                "adapt adapt#2 flow#1 link2",
                "did navigate flow=C step=link2",
                "did navigate flow=P step=link2",
                "did navigate flow=P step=slow",
            ]
        )
    }
}

extension RxFlowCodeTests {
    // RxFlow FlowCoordinator.performSideEffects: `.forwardToCurrentFlow` is `DispatchQueue.main.async`, so an app that
    // calls `navigate(to:)` right after `coordinate(flow:with:)`, in the same main-queue turn, has the deep link
    // navigated first (a, d, x). Flowd's inputs run to completion with their later queue (scheduling model, 3): a, x, d.
    @Test("Scheduling 3: a deep link right after coordinate comes after the forwardToCurrentFlow that coordinate caused")
    func deepLinkRightAfterCoordinateComesAfterItsForwardToCurrentFlow() throws {
        let flow = ScenarioFlow("F")
        flow.on("a") { .one(flowContributor: .forwardToCurrentFlow(withStep: Step("x"))) }
        let harness = ScenarioHarness()
        try harness.coordinate(flow, with: OneStepper(withSingleStep: Step("a")))
        harness.deepLink("d")

        #expect(harness.takeLog().navigations == ["F: a", "F: x", "F: d"])
    }
}

extension RxFlowCodeTests {
    // RxFlow README: `Flows.use(settingsFlow, when: .ready) { root in self.rootViewController.present(root) }`, the
    // child contributed after. The child's first step pushes its first screen onto its root while that navigation
    // controller is in no window (UIKit allows it), then the block presents the root, first screen and all. With a
    // driver's UI model (the daemon's), the push waits for the root to be placed and comes right after it, so the UI
    // ends the same as when the root is placed before the child's first step.
    @Test("D20: commands building a child's root not yet in the UI come right after the command placing it")
    func commandsBuildingARootNotYetPlacedComeAfterItsPlacement() throws {
        for placedWhenReady in [true, false] {
            let parent = ScenarioFlow("P")
            let child = ScenarioFlow("C")
            let first = OneStepper(withSingleStep: Step("fromFirst"))
            parent.on("a") { _, navigator in
                if placedWhenReady {
                    Flows.use(child, when: .ready, in: navigator) { navigator in
                        navigator.present(child.root, over: "P.root")
                    }
                } else {
                    navigator.present(child.root, over: "P.root")
                }
                return .one(flowContributor: Contribute.flow(child, OneStepper(withSingleStep: Step("c"))))
            }
            child.on("c") { _, navigator in
                navigator.push(.view("C.first", type: "View"), onto: "C.root")
                navigator.push(.stack("C.inner"), onto: "C.root")
                navigator.push(.view("C.deep", type: "View"), onto: "C.inner")
                return .one(
                    flowContributor: .contribute(
                        withNextPresentable: Screen.view("C.deep", type: "View"), withNextStepper: first))
            }
            child.on("fromFirst") { _, _ in .none }
            let harness = ScenarioHarness()
            let ui = harness.keepUIModel()
            try harness.coordinate(parent, with: OneStepper(withSingleStep: Step("a")))

            let built = [
                "command push C.first onto C.root (flow#2)", "command push C.inner onto C.root (flow#2)",
                "command push C.deep onto C.inner (flow#2)",
            ]
            #expect(
                harness.takeLog().only("command")
                    == ["command setRoot P.root (flow#1)", "command present C.root over P.root (flow#1)"] + built,
                "placed when ready: \(placedWhenReady)"
            )
            #expect(ui.ui.presentables.sorted() == ["C.deep", "C.first", "C.inner", "C.root", "P.root"])
            // The deepest screen is on top and visible: its stepper's step is heard, as in RxFlow.
            for report in ui.takeVisibilityReports() { harness.handle(report) }
            #expect(harness.takeLog().navigations.contains("C: fromFirst"), "placed when ready: \(placedWhenReady)")
            #expect(harness.machine.isAtRest)
        }
    }

    // Without a driver's UI model the machine cannot tell what is placed: commands come in the flows' order.
    @Test("D20: without a UI model, commands come in the order the flows record them")
    func withoutAUIModelCommandsKeepTheFlowsOrder() throws {
        let parent = ScenarioFlow("P")
        let child = ScenarioFlow("C")
        parent.on("a") { _, navigator in
            Flows.use(child, when: .ready, in: navigator) { navigator in navigator.present(child.root, over: "P.root") }
            return .one(flowContributor: Contribute.flow(child, OneStepper(withSingleStep: Step("c"))))
        }
        child.on("c") { _, navigator in
            navigator.push(.view("C.first", type: "View"), onto: "C.root")
            return .none
        }
        let harness = ScenarioHarness()
        try harness.coordinate(parent, with: OneStepper(withSingleStep: Step("a")))

        #expect(
            harness.takeLog().only("command") == [
                "command setRoot P.root (flow#1)", "command push C.first onto C.root (flow#2)",
                "command present C.root over P.root (flow#1)",
            ])
    }

    // A root that is never placed: what waited for it goes out when its flow ends (it fits nowhere, as before), and
    // until then the tree is not at rest (a session keeps its history rather than a snapshot).
    @Test("D20: commands for a root never placed go out when its flow ends; until then the tree is not at rest")
    func commandsForARootNeverPlacedGoOutWhenItsFlowEnds() throws {
        let parent = ScenarioFlow("P")
        let child = ScenarioFlow("C")
        parent.on("a") { _, _ in
            .one(flowContributor: Contribute.flow(child, OneStepper(withSingleStep: Step("c"))))
        }
        child.on("c") { _, navigator in
            navigator.push(.view("C.first", type: "View"), onto: "C.root")
            return .none
        }
        child.on("done") { _, _ in .end(forwardToParentFlowWithStep: Step("back")) }
        parent.on("back") { _, _ in .none }
        let harness = ScenarioHarness()
        let ui = harness.keepUIModel()
        try harness.coordinate(parent, with: OneStepper(withSingleStep: Step("a")))
        #expect(harness.takeLog().only("command") == ["command setRoot P.root (flow#1)"])
        #expect(!harness.machine.isAtRest)
        harness.deepLink("done")

        #expect(harness.takeLog().only("command") == ["command push C.first onto C.root (flow#2)"])
        #expect(ui.ui.presentables.sorted() == ["P.root"])
        #expect(harness.machine.isAtRest)
    }
}

extension RxFlowCodeTests {
    // RxFlow Presentable.swift, Reactive+UIViewController.swift: a flow rooted in the window never ends by dismissal
    // (UIWindow's rxDismissed is `Single.never()`), and one rooted in the window's root view controller is not
    // dismissed when the window gets a new root (`rx.dismissed` is viewDidDisappear while isBeingDismissed, or
    // didMove(toParent: nil): neither happens). The root flow lives on, its stepper driving it. Flowd's D18 still ends
    // the child flows and detaches the contributors whose presentables the new root took out of the UI.
    @Test("D18: a new window root does not end the root flow; its child flows and contributors there go")
    func newWindowRootDoesNotEndTheRootFlow() throws {
        let flow = ScenarioFlow("F")
        let child = ScenarioFlow("C")
        let onRoot = ScenarioStepper("onRoot")
        let stepper = ScenarioStepper("F.stepper", initial: "a")
        flow.on("a") { _, navigator in
            navigator.present(child.root, over: "F.root")
            return .multiple(
                Contribute.screen("F.root", onRoot), Contribute.flow(child, OneStepper(withSingleStep: Step("c")))
            )
        }
        flow.on("dashboard") { _, navigator in
            navigator.setRoot(.tabs("dash"))
            return .none
        }
        flow.on("back") { _, navigator in
            navigator.setRoot(flow.root)
            return .none
        }
        let harness = ScenarioHarness()
        let ui = harness.keepUIModel()
        try harness.coordinate(flow, with: stepper)
        _ = harness.takeLog()

        harness.emit("dashboard", from: stepper)
        harness.emit("b", from: stepper)
        harness.deepLink("link")
        harness.emit("back", from: stepper)

        #expect(
            harness.takeLog().only("did navigate", "command", "detach", "end", "drop") == [
                "command setRoot dash (flow#1)",
                "did navigate flow=F step=dashboard",
                "detach att#2 (presentableDismissed)",
                "detach att#3 (flowEnded)",
                "end flow#2 (rootDismissed)",
                "did navigate flow=F step=b",
                "did navigate flow=F step=link",
                "command setRoot F.root (flow#1)",
                "did navigate flow=F step=back",
            ]
        )
        #expect(harness.machine.isAlive(FlowCoordinatorID(1)))
        #expect(harness.isListening(to: stepper))
        #expect(ui.ui.presentables == ["F.root"])
    }
}
