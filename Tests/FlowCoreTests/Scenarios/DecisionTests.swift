import FlowCore
import Testing

/// Where RxFlow's behaviour is accidental, Flowd decided (D1-D14 in `docs/SEMANTICS.md`); one test per decision.
struct DecisionTests {
    @Test("D1: a failed async adaptation drops the step (adaptFailed); adapting to Step.none drops it (adaptedToNone)")
    func d1AdaptFailureAndNoneDropTheStep() async throws {
        let flow = ScenarioFlow("F")
        flow.adaptation = { step in
            switch step.name {
            case "fails": return .later { throw ScenarioAdaptError() }
            case "none": return .step(.none)
            case "laterNone": return .later { .none }
            default: return .step(step)
            }
        }
        let stepper = ScenarioStepper("F.stepper", initial: "a")
        let harness = ScenarioHarness()
        try harness.coordinate(flow, with: stepper)
        _ = harness.takeLog()

        harness.emit("fails", from: stepper)
        harness.emit("none", from: stepper)
        harness.emit("laterNone", from: stepper)
        harness.emit("ok", from: stepper)
        await harness.runAdapt("fails")
        await harness.runAdapt("laterNone")

        // RxFlow passes NoneStep to navigate(to:) when adapt errors; Flowd never calls navigate for these steps.
        #expect(
            harness.takeLog() == [
                "adapt adapt#1 flow#1 fails",
                "drop none reason=adaptedToNone flow#1 att#1",
                "adapt adapt#2 flow#1 laterNone",
                "will navigate flow=F step=ok",
                "did navigate flow=F step=ok",
                "drop fails reason=adaptFailed flow#1",
                "drop laterNone reason=adaptedToNone flow#1",
            ]
        )
        #expect(flow.calls.filter { $0.hasPrefix("navigate") } == ["navigate a", "navigate ok"])
    }

    @Test("D2: async adaptations complete in completion order, other steps go on meanwhile, an ended flow's is dropped")
    func d2AsyncAdaptationsInCompletionOrder() async throws {
        let parent = ScenarioFlow("P")
        let child = ScenarioFlow("C")
        let parentStepper = ScenarioStepper("P.stepper", initial: "a")
        let childStepper = ScenarioStepper("C.stepper", initial: "c")
        parent.on("a") { .one(flowContributor: Contribute.flow(child, childStepper)) }
        child.adaptation = { step in step.name.hasPrefix("slow") ? .later { step } : .step(step) }
        let harness = ScenarioHarness()
        try harness.coordinate(parent, with: parentStepper)
        _ = harness.takeLog()

        harness.emit("slow1", from: childStepper)
        harness.emit("slow2", from: childStepper)
        harness.emit("p", from: parentStepper)
        harness.emit("c2", from: childStepper)
        await harness.runAdapt("slow2")
        await harness.runAdapt("slow1")
        #expect(
            harness.takeLog() == [
                "adapt adapt#1 flow#2 slow1",
                "adapt adapt#2 flow#2 slow2",
                "will navigate flow=P step=p",
                "did navigate flow=P step=p",
                "will navigate flow=C step=c2",
                "did navigate flow=C step=c2",
                "will navigate flow=C step=slow2",
                "did navigate flow=C step=slow2",
                "will navigate flow=C step=slow1",
                "did navigate flow=C step=slow1",
            ]
        )

        harness.emit("slow3", from: childStepper)
        harness.dismiss("C.root")
        await harness.runAdapt("slow3")
        #expect(
            harness.takeLog() == [
                "adapt adapt#3 flow#2 slow3",
                "detach att#2 (flowEnded)",
                "end flow#2 (rootDismissed)",
                "drop slow3 reason=flowEnded flow#2",
            ]
        )
        #expect(harness.machine.pendingAdaptRequests == [])
    }

    @Test("D3: a deep link reaches the coordinators alive when injected, parent first, each one's consequences first")
    func d3DeepLinkReachesLiveCoordinatorsInOrder() throws {
        let root = ScenarioFlow("R")
        let first = ScenarioFlow("A")
        let second = ScenarioFlow("B")
        let created = ScenarioFlow("New")
        root.on("start") {
            .multiple(
                Contribute.flow(first, OneStepper(withSingleStep: Step("a"))),
                Contribute.flow(second, OneStepper(withSingleStep: Step("b")))
            )
        }
        root.on("deep") {
            .multiple(
                Contribute.flow(created, OneStepper(withSingleStep: Step("n"))),
                .forwardToCurrentFlow(withStep: Step("later"))
            )
        }
        first.on("deep") { .one(flowContributor: .forwardToParentFlow(withStep: Step("up"))) }
        created.on("deep") { .end(forwardToParentFlowWithStep: Step("never")) }
        let harness = ScenarioHarness()
        try harness.coordinate(root, with: OneStepper(withSingleStep: Step("start")))
        _ = harness.takeLog()

        harness.deepLink("deep")

        // New (created by R for this deep link) does not get it (RxFlow #162 would give it). A's forward to R runs
        // before B gets the deep link; R's forwardToCurrentFlow waits until every coordinator had it.
        #expect(
            harness.takeLog() == [
                "will navigate flow=R step=deep",
                "did navigate flow=R step=deep",
                "start New flow#4 parent=flow#1",
                "attach att#4 OneStepper(n) on New.root (flow)",
                "will navigate flow=New step=n",
                "did navigate flow=New step=n",
                "ready flow#4",
                "will navigate flow=A step=deep",
                "did navigate flow=A step=deep",
                "will navigate flow=R step=up",
                "did navigate flow=R step=up",
                "will navigate flow=B step=deep",
                "did navigate flow=B step=deep",
                "will navigate flow=R step=later",
                "did navigate flow=R step=later",
            ]
        )
        #expect(created.calls == ["adapt n", "navigate n"])
    }

    @Test("D4: .multiple in one turn: forwards to the parent first, contributors in array order, current flow last")
    func d4MultipleInOneTurn() throws {
        let parent = ScenarioFlow("P")
        let child = ScenarioFlow("C")
        parent.on("a") { .one(flowContributor: Contribute.flow(child, OneStepper(withSingleStep: Step("b")))) }
        child.on("b") {
            .multiple(
                Contribute.screen("s1", OneStepper(withSingleStep: Step("b1")), notPresented: true),
                .forwardToCurrentFlow(withStep: Step("x")),
                .forwardToParentFlow(withStep: Step("p1")),
                Contribute.screen("s2", OneStepper(withSingleStep: Step("b2")), notPresented: true),
                .forwardToParentFlow(withStep: Step("p2"))
            )
        }
        let harness = ScenarioHarness()

        try harness.coordinate(parent, with: OneStepper(withSingleStep: Step("a")))

        // RxFlow issues the forwards first too, but handles s2's initial step on a later main-queue turn, after x
        // (S2: b, x, c, d). Flowd: P's queue p1, p2 and C's b1, b2 take turns, then x.
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
                "attach att#3 OneStepper(b1) on s1 (contributor)",
                "attach att#4 OneStepper(b2) on s2 (contributor)",
                "ready flow#2",
                "ready flow#1",
                "will navigate flow=P step=p1",
                "did navigate flow=P step=p1",
                "will navigate flow=C step=b1",
                "did navigate flow=C step=b1",
                "will navigate flow=P step=p2",
                "did navigate flow=P step=p2",
                "will navigate flow=C step=b2",
                "did navigate flow=C step=b2",
                "will navigate flow=C step=x",
                "did navigate flow=C step=x",
            ]
        )
    }

    @Test("D5: CompositeStepper listens to its inner steppers before their readyToEmitSteps, so nothing is lost")
    func d5CompositeStepperLosesNothing() throws {
        let inner = ScenarioStepper("inner", initial: "c", whenReady: ["e"])
        let composite = CompositeStepper(steppers: [OneStepper(withSingleStep: Step("b")), inner])
        let received = ScenarioStepLog()
        composite.steps.subscribe { received.append($0) }

        composite.readyToEmitSteps()
        inner.steps.accept(Step("f"))

        // RxFlow inside a coordinator: b, c, f (e, emitted in inner.readyToEmitSteps, is lost: S12).
        #expect(received.steps == [Step("b"), Step("c"), Step("e"), Step("f")])

        // As a contributor's stepper, through the machine.
        let flow = ScenarioFlow("F")
        let contributed = CompositeStepper(steppers: [ScenarioStepper("x", initial: "x1", whenReady: ["x2"])])
        flow.on("a") { .one(flowContributor: Contribute.screen("s", contributed, notPresented: true)) }
        let harness = ScenarioHarness()
        try harness.coordinate(flow, with: OneStepper(withSingleStep: Step("a")))
        #expect(harness.takeLog().navigations == ["F: a", "F: x1", "F: x2"])
    }

    @Test("D6: readiness is latched: ready after the first navigation and its child flows; later use runs at once")
    func d6ReadinessIsLatched() throws {
        let parent = ScenarioFlow("P", root: .tabs("P.tabs"))
        let first = ScenarioFlow("C1")
        let second = ScenarioFlow("C2")
        let parentStepper = ScenarioStepper("P.stepper", initial: "a")
        let secondStepper = ScenarioStepper("C2.stepper")
        parent.on("a") { _, navigator in
            Flows.use(parent, when: .ready, in: navigator) { navigator in navigator.selectTab("P.tabs", index: 0) }
            return .multiple(
                Contribute.flow(first, OneStepper(withSingleStep: Step("b"))),
                Contribute.flow(second, secondStepper)
            )
        }
        parent.on("z") { _, navigator in
            Flows.use(first, second, when: .ready, in: navigator) { navigator in
                navigator.selectTab("P.tabs", index: 1)
            }
            return .none
        }
        let harness = ScenarioHarness()

        try harness.coordinate(parent, with: parentStepper)
        // C2 has not navigated yet: P is not ready, its block waits.
        #expect(
            harness.takeLog().only("ready", "command selectTab", "did navigate") == [
                "did navigate flow=P step=a",
                "did navigate flow=C1 step=b",
                "ready flow#2",
            ]
        )
        #expect(!harness.machine.isReady(FlowCoordinatorID(1)))

        harness.emit("c", from: secondStepper)
        #expect(
            harness.takeLog() == [
                "will navigate flow=C2 step=c",
                "did navigate flow=C2 step=c",
                "ready flow#3",
                "ready flow#1",
                "command selectTab P.tabs 0 (flow#1)",
            ]
        )

        // RxFlow's readiness is edge-triggered: a block registered on flows already ready never runs (S3).
        harness.emit("z", from: parentStepper)
        #expect(
            harness.takeLog() == [
                "will navigate flow=P step=z",
                "did navigate flow=P step=z",
                "command selectTab P.tabs 1 (flow#1)",
            ]
        )
    }

    @Test("D7: .end after an async adaptation removes the child and its subtree before the parent handles the step")
    func d7EndAfterAsyncAdaptRemovesChildFirst() async throws {
        let parent = ScenarioFlow("P")
        let child = ScenarioFlow("C")
        let grandchild = ScenarioFlow("G")
        let childStepper = ScenarioStepper("C.stepper", initial: "c")
        let grandchildStepper = ScenarioStepper("G.stepper", initial: "g")
        parent.on("a") { .one(flowContributor: Contribute.flow(child, childStepper)) }
        child.on("c") { .one(flowContributor: Contribute.flow(grandchild, grandchildStepper)) }
        child.adaptation = { step in step.name == "x" ? .later { step } : .step(step) }
        child.on("x") { .end(forwardToParentFlowWithStep: Step("y")) }
        let harness = ScenarioHarness()
        try harness.coordinate(parent, with: OneStepper(withSingleStep: Step("a")))
        #expect(harness.takeLog().navigations == ["P: a", "C: c", "G: g"])

        harness.emit("x", from: childStepper)
        harness.emit("g2", from: grandchildStepper)
        await harness.runAdapt("x")

        // RxFlow (S15) runs P.navigate(y) re-entrantly while C is still its child.
        #expect(
            harness.takeLog() == [
                "adapt adapt#1 flow#2 x",
                "will navigate flow=G step=g2",
                "did navigate flow=G step=g2",
                "will navigate flow=C step=x",
                "did navigate flow=C step=x",
                "detach att#3 (flowEnded)",
                "end flow#3 (parentEnded)",
                "detach att#2 (flowEnded)",
                "end flow#2 (ended)",
                "will navigate flow=P step=y",
                "did navigate flow=P step=y",
            ]
        )
    }

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
