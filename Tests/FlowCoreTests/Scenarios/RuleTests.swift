import FlowCore
import Testing

/// The rules Flowd keeps from RxFlow (R1-R15 in `docs/SEMANTICS.md`), one test each, on the state machine alone.
struct RuleTests {
    @Test("R1: one step at a time per tree, FIFO, each step's cascade run to completion before the next step")
    func r1OneStepAtATimeFIFO() throws {
        let parent = ScenarioFlow("P")
        let child = ScenarioFlow("C")
        let parentStepper = ScenarioStepper("P.stepper", initial: "a")
        let childStepper = ScenarioStepper("C.stepper", initial: "c0")
        parent.on("a") { .one(flowContributor: Contribute.flow(child, childStepper)) }
        parent.on("p1") {
            .one(flowContributor: Contribute.screen("s", OneStepper(withSingleStep: Step("s1")), notPresented: true))
        }
        child.on("c1") { .one(flowContributor: .forwardToParentFlow(withStep: Step("up"))) }
        let harness = ScenarioHarness()
        try harness.coordinate(parent, with: parentStepper)
        _ = harness.takeLog()

        // Three emissions from two steppers of the tree before the driver gets to them.
        parentStepper.steps.accept(Step("p1"))
        childStepper.steps.accept(Step("c1"))
        parentStepper.steps.accept(Step("p2"))
        harness.pump()

        // p1's cascade (its contributor's initial step s1) runs before c1; c1's forward runs before p2.
        #expect(
            harness.takeLog() == [
                "will navigate flow=P step=p1",
                "did navigate flow=P step=p1",
                "attach att#3 OneStepper(s1) on s (contributor)",
                "will navigate flow=P step=s1",
                "did navigate flow=P step=s1",
                "will navigate flow=C step=c1",
                "did navigate flow=C step=c1",
                "will navigate flow=P step=up",
                "did navigate flow=P step=up",
                "will navigate flow=P step=p2",
                "did navigate flow=P step=p2",
            ]
        )
    }

    @Test("R2: adapt runs on every step before navigate: stepper, contributor, forwards and deep links")
    func r2AdaptOnEveryStep() throws {
        let parent = ScenarioFlow("P")
        let child = ScenarioFlow("C")
        // P adapts `raw.x` to `x`; its routes only know the adapted names.
        parent.adaptation = { step in
            .step(step.name.hasPrefix("raw.") ? Step(String(step.name.dropFirst(4))) : step)
        }
        parent.on("a") {
            .multiple(
                .forwardToCurrentFlow(withStep: Step("raw.f")),
                Contribute.screen("s", OneStepper(withSingleStep: Step("raw.s")), notPresented: true),
                Contribute.flow(child, OneStepper(withSingleStep: Step("c")))
            )
        }
        child.on("c") { .one(flowContributor: .forwardToParentFlow(withStep: Step("raw.up"))) }
        let harness = ScenarioHarness()

        try harness.coordinate(parent, with: OneStepper(withSingleStep: Step("raw.a")))
        harness.deepLink("raw.deep")

        // C's initial step has its turn before P's second step (s); C's forward joins P's queue behind s.
        #expect(
            harness.takeLog().navigations == [
                "P: a", "C: c", "P: s", "P: up", "P: f", "P: deep", "C: raw.deep",
            ]
        )
        #expect(
            parent.calls == [
                "adapt raw.a", "navigate a",
                "adapt raw.s", "navigate s",
                "adapt raw.up", "navigate up",
                "adapt raw.f", "navigate f",
                "adapt raw.deep", "navigate deep",
            ]
        )
        #expect(child.calls == ["adapt c", "navigate c", "adapt raw.deep", "navigate raw.deep"])
    }

    @Test("R3: willNavigate right before navigate, didNavigate right after, the navigation's commands in between")
    func r3WillAndDidNavigateAroundCommands() throws {
        let parent = ScenarioFlow("P")
        let child = ScenarioFlow("C")
        parent.adaptation = { step in .step(step.name == "go" ? Step("adapted") : step) }
        parent.on("adapted") { _, navigator in
            navigator.push(.view("list", type: "List"), onto: "P.root")
            navigator.present(child.root, over: "P.root")
            return .one(flowContributor: Contribute.flow(child, OneStepper(withSingleStep: Step("b"))))
        }
        child.on("b") { _, navigator in
            navigator.push(.view("detail", type: "Detail"), onto: "C.root")
            return .none
        }
        let harness = ScenarioHarness()

        try harness.coordinate(parent, with: OneStepper(withSingleStep: Step("go")))

        // The events carry the adapted step and the flow that navigated; the child's events share the stream.
        #expect(
            harness.takeLog() == [
                "start P flow#1",
                "command setRoot P.root (flow#1)",
                "attach att#1 OneStepper(go) on P.root (flow)",
                "will navigate flow=P step=adapted",
                "command push list onto P.root (flow#1)",
                "command present C.root over P.root (flow#1)",
                "did navigate flow=P step=adapted",
                "start C flow#2 parent=flow#1",
                "attach att#2 OneStepper(b) on C.root (flow)",
                "will navigate flow=C step=b",
                "command push detail onto C.root (flow#2)",
                "did navigate flow=C step=b",
                "ready flow#2",
                "ready flow#1",
            ]
        )
    }

    @Test("R4: FlowContributors .none, .one, .multiple and .end(forwardToParentFlowWithStep:)")
    func r4FlowContributorsCases() throws {
        let parent = ScenarioFlow("P")
        let child = ScenarioFlow("C")
        let stepper = ScenarioStepper("P.stepper", initial: "none")
        parent.on("none") { .none }
        parent.on("one") {
            .one(flowContributor: Contribute.screen("s1", OneStepper(withSingleStep: Step("s1")), notPresented: true))
        }
        parent.on("multiple") {
            .multiple(
                Contribute.screen("s2", OneStepper(withSingleStep: Step("s2")), notPresented: true),
                Contribute.flow(child, OneStepper(withSingleStep: Step("end")))
            )
        }
        child.on("end") { .end(forwardToParentFlowWithStep: Step("ended")) }
        let harness = ScenarioHarness()

        try harness.coordinate(parent, with: stepper)
        #expect(
            harness.takeLog() == [
                "start P flow#1",
                "command setRoot P.root (flow#1)",
                "attach att#1 P.stepper on P.root (flow)",
                "will navigate flow=P step=none",
                "did navigate flow=P step=none",
                "ready flow#1",
            ]
        )

        harness.emit("one", from: stepper)
        #expect(
            harness.takeLog() == [
                "will navigate flow=P step=one",
                "did navigate flow=P step=one",
                "attach att#2 OneStepper(s1) on s1 (contributor)",
                "will navigate flow=P step=s1",
                "did navigate flow=P step=s1",
            ]
        )

        harness.emit("multiple", from: stepper)
        #expect(
            harness.takeLog() == [
                "will navigate flow=P step=multiple",
                "did navigate flow=P step=multiple",
                "attach att#3 OneStepper(s2) on s2 (contributor)",
                "start C flow#2 parent=flow#1",
                "attach att#4 OneStepper(end) on C.root (flow)",
                "will navigate flow=C step=end",
                "did navigate flow=C step=end",
                "ready flow#2",
                "detach att#4 (flowEnded)",
                "end flow#2 (ended)",
                "will navigate flow=P step=s2",
                "did navigate flow=P step=s2",
                "will navigate flow=P step=ended",
                "did navigate flow=P step=ended",
            ]
        )
    }

    @Test("R5: .contribute(withNextPresentable:...), .contribute(withNext:), and a Flow presentable starts a child")
    func r5Contribute() throws {
        let parent = ScenarioFlow("P")
        let child = ScenarioFlow("C")
        let model = ScenarioScreenModel("model.screen", initial: "m")
        let childStepper = ScenarioStepper("C.stepper", initial: "c")
        parent.on("a") {
            .multiple(
                .contribute(
                    withNextPresentable: Screen.view("plain", type: "Plain"), withNextStepper: NoneStepper(),
                    allowStepWhenNotPresented: true, allowStepWhenDismissed: true
                ),
                .contribute(withNext: model),
                // allowStepWhenNotPresented does not apply to a flow: its stepper is the child's flow stepper.
                .contribute(
                    withNextPresentable: child, withNextStepper: childStepper, allowStepWhenNotPresented: false
                )
            )
        }
        let harness = ScenarioHarness()

        try harness.coordinate(parent, with: OneStepper(withSingleStep: Step("a")))
        #expect(
            harness.takeLog() == [
                "start P flow#1",
                "command setRoot P.root (flow#1)",
                "attach att#1 OneStepper(a) on P.root (flow)",
                "will navigate flow=P step=a",
                "did navigate flow=P step=a",
                "attach att#2 NoneStepper on plain (contributor)",
                "attach att#3 model(model.screen) on model.screen (contributor)",
                "start C flow#2 parent=flow#1",
                "attach att#4 C.stepper on C.root (flow)",
                "will navigate flow=C step=c",
                "did navigate flow=C step=c",
                "ready flow#2",
                "ready flow#1",
            ]
        )
        let steppers = try #require(harness.machine.snapshot().root?.steppers)
        #expect(steppers.map(\.role) == [.flow, .contributor, .contributor])
        #expect(steppers.map(\.allowStepWhenNotPresented) == [true, true, false])
        #expect(steppers.map(\.allowStepWhenDismissed) == [false, true, false])
        #expect(steppers.map(\.pendingInitialStep) == [nil, nil, Step("m")])

        // The child's flow stepper is not gated although C.root was never reported visible.
        harness.emit("c2", from: childStepper)
        // The model's steps are gated by model.screen's visibility: its initial step waits for it (D8).
        harness.emit("m2", from: model)
        harness.show("model.screen")
        #expect(
            harness.takeLog() == [
                "will navigate flow=C step=c2",
                "did navigate flow=C step=c2",
                "drop m2 reason=notVisible flow#1 att#3",
                "will navigate flow=P step=m",
                "did navigate flow=P step=m",
            ]
        )
    }

    @Test("R6: forwardToCurrentFlow runs after the cascade; forwardToParentFlow is queued to the parent at once")
    func r6Forwards() throws {
        let parent = ScenarioFlow("P")
        let child = ScenarioFlow("C")
        parent.on("a") {
            .multiple(
                .forwardToCurrentFlow(withStep: Step("f")),
                Contribute.flow(child, OneStepper(withSingleStep: Step("c"))),
                Contribute.screen("s", OneStepper(withSingleStep: Step("s")), notPresented: true)
            )
        }
        child.on("c") { .one(flowContributor: .forwardToParentFlow(withStep: Step("up"))) }
        let harness = ScenarioHarness()

        try harness.coordinate(parent, with: OneStepper(withSingleStep: Step("a")))

        // f waits for the whole cascade of a: the child's and the contributor's initial steps and the child's forward.
        #expect(harness.takeLog().navigations == ["P: a", "C: c", "P: s", "P: up", "P: f"])
    }

    @Test("R7: a hidden contributor's steps are dropped, never buffered, unless allowStepWhenNotPresented")
    func r7HiddenContributorDropsSteps() throws {
        let flow = ScenarioFlow("F")
        let gated = ScenarioStepper("gated")
        let free = ScenarioStepper("free")
        flow.on("a") {
            .multiple(Contribute.screen("gated", gated), Contribute.screen("free", free, notPresented: true))
        }
        let harness = ScenarioHarness()
        try harness.coordinate(flow, with: OneStepper(withSingleStep: Step("a")))
        _ = harness.takeLog()

        harness.emit("g1", from: gated)
        harness.emit("f1", from: free)
        harness.show("gated")
        harness.emit("g2", from: gated)
        harness.hide("gated")
        harness.emit("g3", from: gated)
        harness.emit("f2", from: free)

        #expect(
            harness.takeLog() == [
                "drop g1 reason=notVisible flow#1 att#2",
                "will navigate flow=F step=f1",
                "did navigate flow=F step=f1",
                "will navigate flow=F step=g2",
                "did navigate flow=F step=g2",
                "drop g3 reason=notVisible flow#1 att#2",
                "will navigate flow=F step=f2",
                "did navigate flow=F step=f2",
            ]
        )
    }

    @Test("R8: a dismissed presentable's stepper is detached unless allowStepWhenDismissed")
    func r8DismissalDetachesStepper() throws {
        let flow = ScenarioFlow("F")
        let cut = ScenarioStepper("cut")
        let kept = ScenarioStepper("kept")
        flow.on("a") {
            .multiple(
                Contribute.screen("cut", cut, notPresented: true),
                Contribute.screen("kept", kept, notPresented: true, dismissed: true)
            )
        }
        let harness = ScenarioHarness()
        try harness.coordinate(flow, with: OneStepper(withSingleStep: Step("a")))
        _ = harness.takeLog()

        harness.dismiss("cut")
        harness.dismiss("kept")
        #expect(harness.takeLog() == ["detach att#2 (presentableDismissed)"])
        #expect(!harness.isListening(to: cut))
        #expect(harness.isListening(to: kept))

        harness.emit("c1", from: cut)
        harness.handle(.stepperEmitted(AttachmentID(2), Step("c2")))
        harness.emit("k1", from: kept)
        #expect(
            harness.takeLog() == [
                "drop c2 reason=attachmentEnded att#2",
                "will navigate flow=F step=k1",
                "did navigate flow=F step=k1",
            ]
        )
    }
}
