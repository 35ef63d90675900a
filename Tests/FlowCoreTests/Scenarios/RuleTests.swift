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

    @Test("R9: a flow whose root is dismissed tears down its whole subtree, children first")
    func r9RootDismissalTearsDownSubtree() throws {
        let parent = ScenarioFlow("P")
        let child = ScenarioFlow("C")
        let grandchild = ScenarioFlow("G")
        let sibling = ScenarioFlow("S")
        parent.on("a") {
            .multiple(
                Contribute.flow(child, OneStepper(withSingleStep: Step("b"))),
                Contribute.flow(sibling, NoneStepper())
            )
        }
        child.on("b") {
            .multiple(
                Contribute.screen("c.screen", ScenarioStepper("c.screen.stepper"), notPresented: true),
                Contribute.flow(grandchild, OneStepper(withSingleStep: Step("g")))
            )
        }
        grandchild.on("g") {
            .one(flowContributor: Contribute.screen("g.screen", ScenarioStepper("g.screen.stepper"), dismissed: true))
        }
        let harness = ScenarioHarness()
        try harness.coordinate(parent, with: OneStepper(withSingleStep: Step("a")))
        #expect(
            harness.takeLog().only("start", "attach") == [
                "start P flow#1",
                "attach att#1 OneStepper(a) on P.root (flow)",
                "start C flow#2 parent=flow#1",
                "attach att#2 OneStepper(b) on C.root (flow)",
                "start S flow#3 parent=flow#1",
                "attach att#3 NoneStepper on S.root (flow)",
                "attach att#4 c.screen.stepper on c.screen (contributor)",
                "start G flow#4 parent=flow#2",
                "attach att#5 OneStepper(g) on G.root (flow)",
                "attach att#6 g.screen.stepper on g.screen (contributor)",
            ]
        )

        harness.dismiss("C.root")

        // Even the contributor with allowStepWhenDismissed goes: its flow ended.
        #expect(
            harness.takeLog() == [
                "detach att#5 (flowEnded)",
                "detach att#6 (flowEnded)",
                "end flow#4 (parentEnded)",
                "detach att#2 (flowEnded)",
                "detach att#4 (flowEnded)",
                "end flow#2 (rootDismissed)",
            ]
        )
        #expect(harness.machine.coordinatorIDs == [FlowCoordinatorID(1), FlowCoordinatorID(3)])
        #expect(harness.machine.liveAttachments.map(\.id) == [AttachmentID(1), AttachmentID(3)])
    }

    @Test("R10: .end removes the child and its subtree, then the parent handles the step and does the UI work")
    func r10EndRemovesChildAndForwards() throws {
        let parent = ScenarioFlow("P")
        let child = ScenarioFlow("C")
        let grandchild = ScenarioFlow("G")
        parent.on("a") { _, navigator in
            navigator.present(child.root, over: "P.root")
            return .one(flowContributor: Contribute.flow(child, OneStepper(withSingleStep: Step("c"))))
        }
        parent.on("y") { _, navigator in
            navigator.dismiss(presentedOver: "P.root")
            return .none
        }
        child.on("c") {
            .multiple(
                Contribute.flow(grandchild, OneStepper(withSingleStep: Step("g"))),
                Contribute.screen("c.bye", OneStepper(withSingleStep: Step("bye")), notPresented: true),
                Contribute.screen("c.late", OneStepper(withSingleStep: Step("late")), notPresented: true)
            )
        }
        child.on("bye") { .end(forwardToParentFlowWithStep: Step("y")) }
        let harness = ScenarioHarness()

        try harness.coordinate(parent, with: OneStepper(withSingleStep: Step("a")))

        // `.end` does no UI work itself; P dismisses C's root; `late`, queued for C before it ended, is dropped when
        // C's turn comes, after P's.
        #expect(
            harness.takeLog() == [
                "start P flow#1",
                "command setRoot P.root (flow#1)",
                "attach att#1 OneStepper(a) on P.root (flow)",
                "will navigate flow=P step=a",
                "command present C.root over P.root (flow#1)",
                "did navigate flow=P step=a",
                "start C flow#2 parent=flow#1",
                "attach att#2 OneStepper(c) on C.root (flow)",
                "will navigate flow=C step=c",
                "did navigate flow=C step=c",
                "start G flow#3 parent=flow#2",
                "attach att#3 OneStepper(g) on G.root (flow)",
                "attach att#4 OneStepper(bye) on c.bye (contributor)",
                "attach att#5 OneStepper(late) on c.late (contributor)",
                "will navigate flow=G step=g",
                "did navigate flow=G step=g",
                "ready flow#3",
                "ready flow#2",
                "ready flow#1",
                "will navigate flow=C step=bye",
                "did navigate flow=C step=bye",
                "detach att#3 (flowEnded)",
                "end flow#3 (parentEnded)",
                "detach att#2 (flowEnded)",
                "detach att#4 (flowEnded)",
                "detach att#5 (flowEnded)",
                "end flow#2 (ended)",
                "will navigate flow=P step=y",
                "command dismiss over P.root (flow#1)",
                "did navigate flow=P step=y",
                "drop late reason=flowEnded flow#2 att#5",
            ]
        )
        #expect(harness.machine.coordinatorIDs == [FlowCoordinatorID(1)])
        #expect(harness.machine.liveAttachments.map(\.id) == [AttachmentID(1)])
    }

    @Test("R11: NoneStep never reaches a flow from a stepper")
    func r11NoneStepFiltered() throws {
        let flow = ScenarioFlow("F")
        let flowStepper = ScenarioStepper("F.stepper", whenReady: [""])
        let screenStepper = ScenarioStepper("s.stepper")
        flow.on("a") {
            .multiple(
                Contribute.screen("none", OneStepper(withSingleStep: .none), notPresented: true),
                Contribute.screen("s", screenStepper, notPresented: true)
            )
        }
        let harness = ScenarioHarness()

        // No initial step: nothing to navigate to; the NoneStep emitted in readyToEmitSteps is dropped.
        try harness.coordinate(flow, with: flowStepper)
        #expect(
            harness.takeLog() == [
                "start F flow#1",
                "command setRoot F.root (flow#1)",
                "attach att#1 F.stepper on F.root (flow)",
                "drop NoneStep reason=noneStep flow#1 att#1",
            ]
        )

        harness.emit("a", from: flowStepper)
        harness.emit(.none, from: screenStepper)
        harness.emit(.none, from: flowStepper)
        #expect(
            harness.takeLog() == [
                "will navigate flow=F step=a",
                "did navigate flow=F step=a",
                "attach att#2 OneStepper(NoneStep) on none (contributor)",
                "attach att#3 s.stepper on s (contributor)",
                "ready flow#1",
                "drop NoneStep reason=noneStep flow#1 att#3",
                "drop NoneStep reason=noneStep flow#1 att#1",
            ]
        )
        #expect(flow.calls == ["adapt a", "navigate a"])
    }

    @Test("R12: OneStepper, DefaultStepper and CompositeStepper behave as RxFlow's")
    func r12Steppers() throws {
        let flow = ScenarioFlow("F")
        let inner = ScenarioStepper("inner", initial: "two")
        let composite = CompositeStepper(steppers: [OneStepper(withSingleStep: Step("one")), NoneStepper(), inner])
        let single = OneStepper(withSingleStep: Step("single"))
        flow.on("home") {
            .multiple(
                Contribute.screen("single", single, notPresented: true),
                Contribute.screen("composite", composite, notPresented: true)
            )
        }
        let harness = ScenarioHarness()

        // DefaultStepper: RxFlow's RxFlowStep.home as the only step.
        try harness.coordinate(flow)
        // The composite emits its inner steppers' initial steps in order (NoneStepper has none), then their steps.
        harness.emit("three", from: inner)
        // A OneStepper emits nothing of its own after its initial step.
        #expect(
            harness.takeLog() == [
                "start F flow#1",
                "command setRoot F.root (flow#1)",
                "attach att#1 DefaultStepper on F.root (flow)",
                "will navigate flow=F step=home",
                "did navigate flow=F step=home",
                "attach att#2 OneStepper(single) on single (contributor)",
                "attach att#3 CompositeStepper[OneStepper(one), NoneStepper, inner] on composite (contributor)",
                "ready flow#1",
                "will navigate flow=F step=single",
                "did navigate flow=F step=single",
                "will navigate flow=F step=one",
                "did navigate flow=F step=one",
                "will navigate flow=F step=two",
                "did navigate flow=F step=two",
                "will navigate flow=F step=three",
                "did navigate flow=F step=three",
            ]
        )
        #expect(inner.readyToEmitStepsCount == 1)
    }

    @Test("R13: a deep link goes to the whole tree, parent first (pre-order), past visibility gates")
    func r13DeepLinkPreOrder() throws {
        let root = ScenarioFlow("R")
        let first = ScenarioFlow("A")
        let firstChild = ScenarioFlow("A1")
        let second = ScenarioFlow("B")
        root.on("start") {
            .multiple(
                Contribute.flow(first, OneStepper(withSingleStep: Step("start"))),
                Contribute.flow(second, OneStepper(withSingleStep: Step("start"))),
                Contribute.screen("hidden", ScenarioStepper("hidden.stepper"))
            )
        }
        first.on("start") {
            .one(flowContributor: Contribute.flow(firstChild, OneStepper(withSingleStep: Step("start"))))
        }
        let harness = ScenarioHarness()
        try harness.coordinate(root, with: OneStepper(withSingleStep: Step("start")))
        _ = harness.takeLog()

        harness.deepLink("d")

        #expect(
            harness.takeLog() == [
                "will navigate flow=R step=d",
                "did navigate flow=R step=d",
                "will navigate flow=A step=d",
                "did navigate flow=A step=d",
                "will navigate flow=A1 step=d",
                "did navigate flow=A1 step=d",
                "will navigate flow=B step=d",
                "did navigate flow=B step=d",
            ]
        )
    }

    @Test("R14: a flow's own stepper is not gated by visibility, only cut by the flow's root dismissal")
    func r14FlowStepperNotGated() throws {
        let parent = ScenarioFlow("P")
        let child = ScenarioFlow("C")
        let childStepper = ScenarioStepper("C.stepper")
        parent.on("a") { .one(flowContributor: Contribute.flow(child, childStepper)) }
        let harness = ScenarioHarness()
        try harness.coordinate(parent, with: OneStepper(withSingleStep: Step("a")))
        _ = harness.takeLog()

        harness.emit("never.shown", from: childStepper)
        harness.show("C.root")
        harness.hide("C.root")
        harness.emit("hidden", from: childStepper)
        harness.dismiss("C.root")
        harness.emit("after.dismissal", from: childStepper)
        harness.handle(.stepperEmitted(AttachmentID(2), Step("late")))

        #expect(
            harness.takeLog() == [
                "will navigate flow=C step=never.shown",
                "did navigate flow=C step=never.shown",
                "ready flow#2",
                "ready flow#1",
                "will navigate flow=C step=hidden",
                "did navigate flow=C step=hidden",
                "detach att#2 (flowEnded)",
                "end flow#2 (rootDismissed)",
                "drop late reason=attachmentEnded att#2",
            ]
        )
    }

    @Test("R15: Flows.use(.created) runs at once, inside the navigation, before the child flows start")
    func r15FlowsUseCreated() throws {
        let parent = ScenarioFlow("P", root: .split("P.split"))
        let master = ScenarioFlow("Master")
        let detail = ScenarioFlow("Detail")
        parent.on("a") { _, navigator in
            navigator.push(.view("before", type: "View"), onto: "P.split")
            Flows.use([master, detail], when: .created, in: navigator) { navigator in
                navigator.showMaster("P.split", master.root)
                navigator.showDetail("P.split", detail.root)
            }
            navigator.push(.view("after", type: "View"), onto: "P.split")
            return .multiple(
                Contribute.flow(master, OneStepper(withSingleStep: Step("m"))),
                Contribute.flow(detail, OneStepper(withSingleStep: Step("d")))
            )
        }
        let harness = ScenarioHarness()

        try harness.coordinate(parent, with: OneStepper(withSingleStep: Step("a")))

        #expect(
            harness.takeLog() == [
                "start P flow#1",
                "command setRoot P.split (flow#1)",
                "attach att#1 OneStepper(a) on P.split (flow)",
                "will navigate flow=P step=a",
                "command push before onto P.split (flow#1)",
                "command showMaster P.split Master.root (flow#1)",
                "command showDetail P.split Detail.root (flow#1)",
                "command push after onto P.split (flow#1)",
                "did navigate flow=P step=a",
                "start Master flow#2 parent=flow#1",
                "attach att#2 OneStepper(m) on Master.root (flow)",
                "start Detail flow#3 parent=flow#1",
                "attach att#3 OneStepper(d) on Detail.root (flow)",
                "will navigate flow=Master step=m",
                "did navigate flow=Master step=m",
                "ready flow#2",
                "will navigate flow=Detail step=d",
                "did navigate flow=Detail step=d",
                "ready flow#3",
                "ready flow#1",
            ]
        )
    }
}
