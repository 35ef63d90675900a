import FlowCore
import Testing

// Decisions D8 to D14: visibility, deep links before a root, the root flow's forwards, reports, dropped steps.
extension DecisionTests {
    @Test("D8: a contributor's initial step waits for its first visibility; only the initial step is held")
    func d8InitialStepWaitsForFirstVisibility() throws {
        let flow = ScenarioFlow("F")
        let flowStepper = ScenarioStepper("F.stepper", initial: "start")
        let held = ScenarioStepper("held.stepper", initial: "h")
        let shown = ScenarioStepper("shown.stepper", initial: "v")
        flow.on("a") {
            .multiple(
                Contribute.screen("held", held),
                Contribute.screen("shown", shown),
                Contribute.screen("free", OneStepper(withSingleStep: Step("f")), notPresented: true)
            )
        }
        let harness = ScenarioHarness()
        try harness.coordinate(flow, with: flowStepper)
        harness.show("shown")
        _ = harness.takeLog()

        harness.emit("a", from: flowStepper)
        // Visible at contribution ("shown") or allowed when not presented ("free"): delivered at once.
        #expect(
            harness.takeLog() == [
                "will navigate flow=F step=a",
                "did navigate flow=F step=a",
                "attach att#2 held.stepper on held (contributor)",
                "attach att#3 shown.stepper on shown (contributor)",
                "attach att#4 OneStepper(f) on free (contributor)",
                "will navigate flow=F step=v",
                "did navigate flow=F step=v",
                "will navigate flow=F step=f",
                "did navigate flow=F step=f",
            ]
        )
        let pending = harness.machine.snapshot().root?.steppers.map(\.pendingInitialStep)
        #expect(pending == [nil, Step("h"), nil, nil])

        harness.emit("h2", from: held)
        harness.show("held")
        harness.hide("held")
        harness.show("held")
        harness.emit("h3", from: held)
        // RxFlow 2.x drops h (hidden when subscribed); 1.x waited for the first visibility, as Flowd does.
        #expect(
            harness.takeLog() == [
                "drop h2 reason=notVisible flow#1 att#2",
                "will navigate flow=F step=h",
                "did navigate flow=F step=h",
                "will navigate flow=F step=h3",
                "did navigate flow=F step=h3",
            ]
        )
        #expect(harness.machine.snapshot().root?.steppers.map(\.pendingInitialStep) == [nil, nil, nil, nil])
    }

    @Test("D9: a deep link before any root flow is dropped (noRootFlow), not buffered")
    func d9DeepLinkBeforeRootIsDropped() throws {
        let flow = ScenarioFlow("F")
        let harness = ScenarioHarness()

        harness.deepLink("early")
        #expect(harness.takeLog() == ["drop early reason=noRootFlow"])

        try harness.coordinate(flow, with: OneStepper(withSingleStep: Step("a")))
        #expect(harness.takeLog().navigations == ["F: a"])

        // Once the root flow has ended (its root dismissed), deep links have nowhere to go either.
        harness.dismiss("F.root")
        harness.deepLink("late")
        #expect(
            harness.takeLog() == [
                "detach att#1 (flowEnded)",
                "end flow#1 (rootDismissed)",
                "drop late reason=noRootFlow",
            ]
        )
        #expect(flow.calls == ["adapt a", "navigate a"])
    }

    @Test("D10: forwards and .end on the root flow are dropped (noParentFlow); .end removes its children; root goes on")
    func d10RootForwardsAndEnd() throws {
        let root = ScenarioFlow("R")
        let child = ScenarioFlow("C")
        let grandchild = ScenarioFlow("G")
        let stepper = ScenarioStepper("R.stepper", initial: "a")
        root.on("a") { .one(flowContributor: Contribute.flow(child, OneStepper(withSingleStep: Step("c")))) }
        root.on("up") { .one(flowContributor: .forwardToParentFlow(withStep: Step("nowhere"))) }
        root.on("end") { .end(forwardToParentFlowWithStep: Step("bye")) }
        child.on("c") { .one(flowContributor: Contribute.flow(grandchild, OneStepper(withSingleStep: Step("g")))) }
        let harness = ScenarioHarness()
        try harness.coordinate(root, with: stepper)
        #expect(harness.takeLog().navigations == ["R: a", "C: c", "G: g"])

        harness.emit("up", from: stepper)
        harness.emit("end", from: stepper)
        harness.emit("still", from: stepper)

        // RxFlow (S11): the same, silently.
        #expect(
            harness.takeLog() == [
                "will navigate flow=R step=up",
                "did navigate flow=R step=up",
                "drop nowhere reason=noParentFlow flow#1",
                "will navigate flow=R step=end",
                "did navigate flow=R step=end",
                "drop bye reason=noParentFlow flow#1",
                "detach att#3 (flowEnded)",
                "end flow#3 (parentEnded)",
                "detach att#2 (flowEnded)",
                "end flow#2 (parentEnded)",
                "will navigate flow=R step=still",
                "did navigate flow=R step=still",
            ]
        )
        #expect(harness.machine.coordinatorIDs == [FlowCoordinatorID(1)])
        #expect(harness.isListening(to: stepper))
    }

    @Test("D11: the machine remembers the last 256 dismissed presentables without steppers, and forgets older ones")
    func d11DismissedPresentablesAreRememberedBoundedly() throws {
        let flow = ScenarioFlow("F")
        let harness = ScenarioHarness()
        try harness.coordinate(flow, with: ScenarioStepper("F.stepper", initial: "a"))
        let remembered = FlowCoordinatorStateMachine.dismissedRemembered
        let opened = 4 * remembered
        for index in 0..<opened {
            let id = PresentableID("movie.\(index)")
            harness.show(id)
            harness.dismiss(id)
        }
        #expect(harness.machine.knownPresentableCount <= remembered + 1)
        let recent = PresentableID("movie.\(opened - remembered)")
        #expect(harness.machine.isDismissed(recent))
        harness.show(recent)
        #expect(!harness.machine.isVisible(recent), "a late report about a recent dismissal revived it")
        let old = PresentableID("movie.0")
        #expect(!harness.machine.isDismissed(old), "forgotten: a report about it now counts as news")
    }

    @Test("D11: visibility reports for a dismissed presentable are ignored; contributed again, it starts a new life")
    func d11DismissedPresentableNewLife() throws {
        let flow = ScenarioFlow("F")
        let flowStepper = ScenarioStepper("F.stepper", initial: "a")
        let firstLife = ScenarioStepper("first", initial: "i1")
        let secondLife = ScenarioStepper("second", initial: "i2")
        flow.on("a") { .one(flowContributor: Contribute.screen("s", firstLife)) }
        flow.on("again") { .one(flowContributor: Contribute.screen("s", secondLife)) }
        let harness = ScenarioHarness()
        try harness.coordinate(flow, with: flowStepper)
        harness.show("s")
        harness.dismiss("s")
        #expect(
            harness.takeLog().suffix(3) == [
                "will navigate flow=F step=i1",
                "did navigate flow=F step=i1",
                "detach att#2 (presentableDismissed)",
            ]
        )

        harness.show("s")
        #expect(harness.takeLog() == [])
        #expect(!harness.machine.isVisible("s"))
        #expect(harness.machine.isDismissed("s"))

        harness.emit("again", from: flowStepper)
        #expect(!harness.machine.isDismissed("s"))
        #expect(!harness.machine.isVisible("s"))
        harness.emit("x", from: secondLife)
        harness.show("s")
        #expect(
            harness.takeLog() == [
                "will navigate flow=F step=again",
                "did navigate flow=F step=again",
                "attach att#3 second on s (contributor)",
                "drop x reason=notVisible flow#1 att#3",
                "will navigate flow=F step=i2",
                "did navigate flow=F step=i2",
            ]
        )
    }

    @Test("D12: coordinate() outputs setRoot for the root flow's root, right after the root coordinator starts")
    func d12CoordinateSetsRoot() throws {
        let root = ScenarioFlow("App", root: .tabs("app.tabs"))
        let child = ScenarioFlow("C")
        root.on("home") { .one(flowContributor: Contribute.flow(child, OneStepper(withSingleStep: Step("c")))) }
        let harness = ScenarioHarness()

        try harness.coordinate(root)
        // RxFlow leaves showing the root (window.rootViewController) to the app; child flows get no setRoot.
        #expect(
            harness.takeLog().only("start", "command", "attach") == [
                "start App flow#1",
                "command setRoot app.tabs (flow#1)",
                "attach att#1 DefaultStepper on app.tabs (flow)",
                "start C flow#2 parent=flow#1",
                "attach att#2 OneStepper(c) on C.root (flow)",
            ]
        )

        #expect(throws: FlowError.alreadyCoordinating()) {
            try harness.coordinate(ScenarioFlow("Other"))
        }
        #expect(harness.takeLog() == [])
    }

    @Test("D13: every dropped step is output as stepDropped with its reason")
    func d13EveryDropIsReported() async throws {
        let flow = ScenarioFlow("F")
        let child = ScenarioFlow("C")
        let flowStepper = ScenarioStepper("F.stepper", initial: "a")
        let screenStepper = ScenarioStepper("s.stepper")
        let childStepper = ScenarioStepper("C.stepper", initial: "c")
        flow.on("a") {
            .multiple(Contribute.screen("s", screenStepper), Contribute.flow(child, childStepper))
        }
        flow.on("fwd") { .one(flowContributor: .forwardToParentFlow(withStep: Step("up"))) }
        flow.adaptation = { step in
            switch step.name {
            case "bad": return .later { throw ScenarioAdaptError() }
            case "nothing": return .step(.none)
            default: return .step(step)
            }
        }
        child.adaptation = { step in step.name == "slow" ? .later { step } : .step(step) }
        let harness = ScenarioHarness()

        harness.deepLink("early")
        try harness.coordinate(flow, with: flowStepper)
        harness.emit(.none, from: flowStepper)
        harness.emit("hidden", from: screenStepper)
        harness.emit("fwd", from: flowStepper)
        harness.emit("bad", from: flowStepper)
        await harness.runAdapt("bad")
        harness.emit("nothing", from: flowStepper)
        harness.emit("slow", from: childStepper)
        harness.dismiss("C.root")
        await harness.runAdapt("slow")
        harness.handle(.adaptCompleted(AdaptRequestID(2), Step("again")))
        harness.dismiss("s")
        harness.handle(.stepperEmitted(AttachmentID(2), Step("gone")))

        #expect(
            harness.takeLog().only("drop") == [
                "drop early reason=noRootFlow",
                "drop NoneStep reason=noneStep flow#1 att#1",
                "drop hidden reason=notVisible flow#1 att#2",
                "drop up reason=noParentFlow flow#1",
                "drop bad reason=adaptFailed flow#1",
                "drop nothing reason=adaptedToNone flow#1 att#1",
                "drop slow reason=flowEnded flow#2",
                "drop again reason=unknownAdaptRequest",
                "drop gone reason=attachmentEnded att#2",
            ]
        )
        let reasons = Set(harness.droppedReasons)
        let allReasons: Set<StepDropReason> = [
            .noneStep, .notVisible, .attachmentEnded, .flowEnded, .noParentFlow, .adaptFailed, .adaptedToNone,
            .noRootFlow, .unknownAdaptRequest,
        ]
        #expect(reasons == allReasons)
    }

    @Test("D14: presentablesLost makes presentables not visible, not dismissed; their attachments stay")
    func d14PresentablesLost() throws {
        let flow = ScenarioFlow("F")
        let shown = ScenarioStepper("shown.stepper")
        let waiting = ScenarioStepper("waiting.stepper", initial: "w0")
        flow.on("a") { .multiple(Contribute.screen("shown", shown), Contribute.screen("waiting", waiting)) }
        let harness = ScenarioHarness()
        try harness.coordinate(flow, with: OneStepper(withSingleStep: Step("a")))
        harness.show("shown")
        harness.emit("s1", from: shown)
        #expect(harness.takeLog().navigations == ["F: a", "F: s1"])

        // The presenter hosting both died: no detach, nothing dismissed.
        harness.handle(.presentablesLost(["shown", "waiting"]))
        #expect(harness.takeLog() == [])
        #expect(!harness.machine.isVisible("shown"))
        #expect(!harness.machine.isDismissed("shown"))
        #expect(harness.machine.attachments(on: "shown").map(\.id) == [AttachmentID(2)])
        #expect(harness.machine.snapshot().root?.steppers.map(\.pendingInitialStep) == [nil, nil, Step("w0")])

        harness.emit("s2", from: shown)
        // A restarted presenter reports them again.
        harness.show("shown")
        harness.emit("s3", from: shown)
        harness.show("waiting")
        #expect(
            harness.takeLog() == [
                "drop s2 reason=notVisible flow#1 att#2",
                "will navigate flow=F step=s3",
                "did navigate flow=F step=s3",
                "will navigate flow=F step=w0",
                "did navigate flow=F step=w0",
            ]
        )
    }
}
