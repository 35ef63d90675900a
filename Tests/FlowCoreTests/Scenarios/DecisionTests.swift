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

    @Test("D1: an adaptation asked of a stepper kind fails where no stepper process can be asked")
    func d1AnAdaptationAskedOfAStepperKindFailsWithoutProcesses() async throws {
        let flow = ScenarioFlow("F")
        flow.adaptation = { step in step.name == "about" ? .asked(of: "guard") : .step(step) }
        let stepper = ScenarioStepper("F.stepper", initial: "a")
        let harness = ScenarioHarness()
        try harness.coordinate(flow, with: stepper)
        _ = harness.takeLog()
        harness.emit("about", from: stepper)
        #expect(harness.pendingAdapts.map(\.operation.stepperKind) == ["guard"])
        await harness.runAdapt("about")
        #expect(harness.takeLog() == ["adapt adapt#1 flow#1 about", "drop about reason=adaptFailed flow#1"])
        #expect(flow.calls.filter { $0.hasPrefix("navigate") } == ["navigate a"])
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
}
