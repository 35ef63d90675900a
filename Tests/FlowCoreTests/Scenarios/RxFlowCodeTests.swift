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

extension RxFlowCodeTests {
    // RxFlow Stepper.swift CompositeStepper.readyToEmitSteps: the inner initial steps are ordinary `steps`, so a
    // contributor's pausable(rxVisible) drops them while hidden; D8 holds only the stepper's own initialStep.
    @Test("D8: a CompositeStepper's inner initial steps are ordinary steps, dropped while its screen is hidden")
    func compositeContributorInnerInitialStepsAreNotHeld() throws {
        let flow = ScenarioFlow("F")
        let composite = CompositeStepper(steppers: [
            OneStepper(withSingleStep: Step("x1")), OneStepper(withSingleStep: Step("x2")),
        ])
        let shownComposite = CompositeStepper(steppers: [OneStepper(withSingleStep: Step("y1"))])
        flow.on("a") {
            .multiple(
                Contribute.screen("hidden", composite),
                Contribute.screen("free", shownComposite, notPresented: true)
            )
        }
        let harness = ScenarioHarness()
        try harness.coordinate(flow, with: OneStepper(withSingleStep: Step("a")))
        harness.show("hidden")

        #expect(
            harness.takeLog().only("drop", "did navigate", "attach att#2", "attach att#3", "attach att#4") == [
                "did navigate flow=F step=a",
                "attach att#2 OneStepper(x1) on hidden (contributor)",
                "attach att#3 OneStepper(x2) on hidden (contributor)",
                "drop x1 reason=notVisible flow#1 att#2",
                "drop x2 reason=notVisible flow#1 att#3",
                "attach att#4 OneStepper(y1) on free (contributor)",
                "did navigate flow=F step=y1",
            ]
        )
        // Nothing was held for the first visibility: the composite's own initial step is none.
        #expect(harness.machine.snapshot().root?.steppers.map(\.pendingInitialStep) == [nil, nil, nil, nil])
    }

    // RxFlow FlowCoordinator.navigate(to:): children are enumerated after the parent handled the step; a child whose
    // pipeline ended meanwhile (its root dismissed) hears nothing.
    @Test("D3: a deep link skips a coordinator that an earlier coordinator's handling of it ended")
    func deepLinkSkipsCoordinatorsEndedDuringTheBroadcast() throws {
        let root = ScenarioFlow("R")
        let first = ScenarioFlow("A")
        let firstChild = ScenarioFlow("A1")
        let second = ScenarioFlow("B")
        root.on("a") { _, navigator in
            navigator.push(Screen.view("R.home", type: "view"), onto: "R.root")
            return .multiple(
                Contribute.flow(first, OneStepper(withSingleStep: Step("b"))),
                Contribute.flow(second, OneStepper(withSingleStep: Step("c")))
            )
        }
        first.on("b") { .one(flowContributor: Contribute.flow(firstChild, OneStepper(withSingleStep: Step("d")))) }
        first.on("z") { .end(forwardToParentFlowWithStep: Step("y")) }
        let harness = ScenarioHarness()
        let ui = harness.keepUIModel()
        try harness.coordinate(root, with: OneStepper(withSingleStep: Step("a")))
        // R shows B's root in its stack, then pops it on y: B ends (D18) before its turn for z.
        root.on("y") { _, navigator in
            navigator.pop("R.root")
            return .none
        }
        root.on("z") { _, navigator in
            navigator.push(second.root, onto: "R.root")
            return .none
        }
        _ = harness.takeLog()

        harness.deepLink("z")

        // A got z and ended (A1 with it); R handled the forwarded y, which popped B's root: neither A1 nor B gets z.
        #expect(
            harness.takeLog().only("did navigate", "end") == [
                "did navigate flow=R step=z",
                "did navigate flow=A step=z",
                "end flow#4 (parentEnded)",
                "end flow#2 (ended)",
                "did navigate flow=R step=y",
                "end flow#3 (rootDismissed)",
            ]
        )
        #expect(!ui.ui.contains("B.root"))
    }
}

extension RxFlowCodeTests {
    // RxFlow FlowCoordinator.coordinate: setReadiness runs before `Signal.from(items)` subscribes the contributors;
    // Flowd decides readiness once the navigation's contributors are applied (D6). Navigations come in the same order.
    @Test("D6: a flow is marked ready after its navigation's contributors are attached; navigation order is RxFlow's")
    func readinessAfterTheNavigationsContributors() throws {
        let flow = ScenarioFlow("F", root: .tabs("F.tabs"))
        let stepper = ScenarioStepper("s.stepper", initial: "x", whenReady: ["y"])
        flow.on("a") { _, navigator in
            Flows.use(flow, when: .ready, in: navigator) { navigator in navigator.selectTab("F.tabs", index: 0) }
            return .one(flowContributor: Contribute.screen("s", stepper, notPresented: true))
        }
        let harness = ScenarioHarness()
        try harness.coordinate(flow, with: OneStepper(withSingleStep: Step("a")))

        // RxFlow: ready, the block's selectTab, then the stepper subscribed (x queued, readyToEmitSteps: y), x, y.
        #expect(
            harness.takeLog() == [
                "start F flow#1",
                "command setRoot F.tabs (flow#1)",
                "attach att#1 OneStepper(a) on F.tabs (flow)",
                "will navigate flow=F step=a",
                "did navigate flow=F step=a",
                "attach att#2 s.stepper on s (contributor)",
                "ready flow#1",
                "command selectTab F.tabs 0 (flow#1)",
                "will navigate flow=F step=x",
                "did navigate flow=F step=x",
                "will navigate flow=F step=y",
                "did navigate flow=F step=y",
            ]
        )
    }

    // RxFlow FlowCoordinator.steps(from:): the dismissal cuts the stepper's stream, not a step already in the
    // pipeline; `flatMap { flow.adapt }` delivers it when the adaptation completes.
    @Test("R8: a step whose adaptation is pending is navigated even if its screen is dismissed meanwhile")
    func pendingAdaptationOutlivesItsScreensDismissal() async throws {
        let flow = ScenarioFlow("F")
        let stepper = ScenarioStepper("s.stepper")
        flow.on("a") { .one(flowContributor: Contribute.screen("s", stepper, notPresented: true)) }
        flow.adaptation = { step in step.name == "slow" ? .later { step } : .step(step) }
        let harness = ScenarioHarness()
        try harness.coordinate(flow, with: OneStepper(withSingleStep: Step("a")))
        _ = harness.takeLog()

        harness.emit("slow", from: stepper)
        harness.dismiss("s")
        harness.emit("late", from: stepper)
        await harness.runAdapt("slow")

        #expect(
            harness.takeLog() == [
                "adapt adapt#1 flow#1 slow",
                "detach att#2 (presentableDismissed)",
                "will navigate flow=F step=slow",
                "did navigate flow=F step=slow",
            ]
        )
    }
}

extension RxFlowCodeTests {
    // RxFlow FlowCoordinator.steps(from:): a stepper kept past its page's dismissal (allowStepWhenDismissed) stays
    // gated by that page's rxVisible, whatever else is later contributed on the same page: it is heard once it is back.
    @Test("D11: a stepper that survived its page's dismissal is heard again after the page is contributed again")
    func survivingStepperOutlivesANewContributionOnItsPage() throws {
        let kept = ScenarioStepper("kept")
        let next = ScenarioStepper("next")
        let flow = ScenarioFlow("F")
        flow.on("a") { .one(flowContributor: Contribute.screen("page", kept, dismissed: true)) }
        flow.on("b") { .one(flowContributor: Contribute.screen("page", next)) }
        let harness = ScenarioHarness()
        try harness.coordinate(flow, with: OneStepper(withSingleStep: Step("a")))
        harness.show("page")
        harness.dismiss("page")  // swiped away: kept survives
        harness.emit("b", from: kept)  // dropped: the page is not visible
        harness.handle(.deepLink(Step("b")))  // the page is contributed again, with another stepper
        harness.show("page")
        harness.dismiss("page")  // swiped away again: next goes, kept survives
        harness.show("page")  // and back
        harness.emit("z", from: kept)

        #expect(
            harness.takeLog().only("did navigate", "drop", "detach") == [
                "did navigate flow=F step=a",
                "drop b reason=notVisible flow#1 att#2",
                "did navigate flow=F step=b",
                "detach att#3 (presentableDismissed)",
                "did navigate flow=F step=z",
            ]
        )
        #expect(harness.machine.attachments(on: "page").map(\.id) == [AttachmentID(2)])
    }
}

extension RxFlowCodeTests {
    // RxFlow FlowCoordinator.setReadiness: the parent waits on `Single.zip` of its child flows' first ready; a child
    // that fired ready and ended later has given its part, so the parent is ready once the others are. (RxFlow
    // Flows.use discards its zip subscription, `_ =`, so the ended child's block would run too; Flowd drops it.)
    @Test("D6: a child that was ready and ended still counts for its parent's readiness; its own .ready block is gone")
    func childReadyThenEndedStillCountsForItsParent() throws {
        let parent = ScenarioFlow("P")
        let first = ScenarioFlow("C1")
        let second = ScenarioFlow("C2")
        let secondStepper = ScenarioStepper("C2.stepper")
        parent.on("a") { _, navigator in
            Flows.use(parent, when: .ready, in: navigator) { navigator in
                navigator.push(.view("P.ready", type: "View"), onto: "P.root")
            }
            return .multiple(
                Contribute.flow(first, OneStepper(withSingleStep: Step("b"))),
                Contribute.flow(second, secondStepper)
            )
        }
        first.on("b") { _, navigator in
            Flows.use(parent, when: .ready, in: navigator) { navigator in
                navigator.push(.view("C1.saw", type: "View"), onto: "P.root")
            }
            return .none
        }
        let harness = ScenarioHarness()
        try harness.coordinate(parent, with: OneStepper(withSingleStep: Step("a")))
        harness.dismiss("C1.root")  // C1 was ready; it ends
        harness.emit("c", from: secondStepper)

        #expect(
            harness.takeLog().only("ready", "end", "command push", "did navigate") == [
                "did navigate flow=P step=a",
                "did navigate flow=C1 step=b",
                "ready flow#2",
                "end flow#2 (rootDismissed)",
                "did navigate flow=C2 step=c",
                "ready flow#3",
                "ready flow#1",
                "command push P.ready onto P.root (flow#1)",
            ]
        )
    }
}

extension RxFlowCodeTests {
    // RxFlow FlowCoordinator.coordinate: NoneStep is filtered on steppers only; a forwarded or deep-linked NoneStep
    // goes through `adapt` and reaches `navigate(to:)`. Flowd adapts it too but never navigates to it (D1).
    @Test("D1: a forwarded or deep-linked Step.none is adapted, then dropped (adaptedToNone), never navigated")
    func forwardedOrDeepLinkedNoneIsAdaptedButNotNavigated() throws {
        let parent = ScenarioFlow("P")
        let child = ScenarioFlow("C")
        parent.on("a") { .one(flowContributor: Contribute.flow(child, OneStepper(withSingleStep: Step("b")))) }
        child.on("b") {
            .multiple(.forwardToParentFlow(withStep: .none), .forwardToCurrentFlow(withStep: .none))
        }
        let harness = ScenarioHarness()
        try harness.coordinate(parent, with: OneStepper(withSingleStep: Step("a")))
        harness.handle(.deepLink(.none))

        #expect(
            harness.takeLog().only("drop", "did navigate") == [
                "did navigate flow=P step=a",
                "did navigate flow=C step=b",
                "drop NoneStep reason=adaptedToNone flow#1",
                "drop NoneStep reason=adaptedToNone flow#2",
                "drop NoneStep reason=adaptedToNone flow#1",
                "drop NoneStep reason=adaptedToNone flow#2",
            ]
        )
        #expect(parent.calls == ["adapt a", "navigate a", "adapt NoneStep", "adapt NoneStep"])
        #expect(child.calls == ["adapt b", "navigate b", "adapt NoneStep", "adapt NoneStep"])
    }
}

extension RxFlowCodeTests {
    // RxFlow Flows.use zips the flows' own rxFlowReady: a flow never coordinated never fires it, so the block never
    // runs. Flowd's waiter holds its flows while it waits, so no flow made later can take the address of one let go.
    @Test("D6: a .ready block waiting on a flow that is never coordinated never runs; the flow is held until then")
    func readyBlockOnAFlowNeverCoordinatedNeverRuns() throws {
        let parent = ScenarioFlow("P")
        weak var lost: ScenarioFlow?
        parent.on("a") { _, navigator in
            let flow = ScenarioFlow("Lost")
            lost = flow
            Flows.use(flow, when: .ready, in: navigator) { navigator in
                navigator.push(.view("P.lost", type: "View"), onto: "P.root")
            }
            return .none
        }
        parent.on("b") {
            .one(flowContributor: Contribute.flow(ScenarioFlow("C"), OneStepper(withSingleStep: Step("c"))))
        }
        let harness = ScenarioHarness()
        try harness.coordinate(parent, with: OneStepper(withSingleStep: Step("a")))
        #expect(lost != nil, "held by the waiting block")
        harness.deepLink("b")

        let log = harness.takeLog()
        #expect(log.only("ready").count == 2)  // P and its child
        #expect(log.only("command push").isEmpty)
        harness.dismiss("P.root")  // the registrant ends: its block is dropped, and the flow let go
        #expect(lost == nil)
    }
}

extension RxFlowCodeTests {
    // RxFlow Flows.use(_:_:when: .ready) zips each flow's rxFlowReady (`take(1).asSingle()`): a flow that fired ready
    // while the block waited has given its part, and the block runs once the others fire, whatever became of it.
    @Test("D6: a .ready block counts a flow that was ready while it waited, even if that flow has ended since")
    func readyBlockCountsAFlowThatWasReadyAndEnded() throws {
        let parent = ScenarioFlow("P")
        let first = ScenarioFlow("A")
        let second = ScenarioFlow("B")
        let secondStepper = ScenarioStepper("B.stepper")
        parent.on("a") { _, navigator in
            Flows.use(first, second, when: .ready, in: navigator) { navigator in
                navigator.push(.view("P.both", type: "View"), onto: "P.root")
            }
            return .multiple(
                Contribute.flow(first, OneStepper(withSingleStep: Step("b"))),
                Contribute.flow(second, secondStepper)
            )
        }
        let harness = ScenarioHarness()
        try harness.coordinate(parent, with: OneStepper(withSingleStep: Step("a")))
        harness.dismiss("A.root")  // A was ready; it ends
        harness.emit("c", from: secondStepper)

        #expect(
            harness.takeLog().only("ready", "end", "command push", "did navigate") == [
                "did navigate flow=P step=a",
                "did navigate flow=A step=b",
                "ready flow#2",
                "end flow#2 (rootDismissed)",
                "did navigate flow=B step=c",
                "ready flow#3",
                "command push P.both onto P.root (flow#1)",
                "ready flow#1",
            ]
        )
    }
}

extension RxFlowCodeTests {
    // RxFlow compares view controller instances: a second flow on "the same" root is coordinated, becomes ready, and a
    // `Flows.use(second, when: .ready)` block runs. Flowd refuses that child (D17, `rootInUse`), so it is never
    // coordinated and the block waits for it as for any flow never coordinated (D6): it never runs.
    @Test("D17, D6: a .ready block waiting for a child refused rootInUse never runs")
    func readyBlockOnAChildRefusedRootInUseNeverRuns() throws {
        let parent = ScenarioFlow("P")
        let first = ScenarioFlow("C1", root: .stack("shared"))
        let second = ScenarioFlow("C2", root: .stack("shared"))
        parent.on("a") { _, navigator in
            Flows.use(second, when: .ready, in: navigator) { navigator in
                navigator.push(.view("P.second", type: "View"), onto: "P.root")
            }
            return .multiple(
                Contribute.flow(first, OneStepper(withSingleStep: Step("c1"))),
                Contribute.flow(second, OneStepper(withSingleStep: Step("c2")))
            )
        }
        let harness = ScenarioHarness()
        try harness.coordinate(parent, with: OneStepper(withSingleStep: Step("a")))

        #expect(
            harness.takeLog().only("did navigate", "drop", "ready", "command push") == [
                "did navigate flow=P step=a",
                "drop c2 reason=rootInUse flow#1",
                "did navigate flow=C1 step=c1",
                "ready flow#2",
                "ready flow#1",
            ]
        )
    }
}
