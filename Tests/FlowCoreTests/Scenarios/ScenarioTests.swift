import FlowCore
import Testing

/// RxFlow's scenarios S1-S15 (`docs/rxflow-semantics.md`, Appendix A) translated to the state machine.
///
/// Where Flowd decided differently from what RxFlow 2.13.2 does (`docs/SEMANTICS.md`), the test asserts Flowd's
/// order and quotes RxFlow's observed output in a comment.
struct ScenarioTests {
    @Test("S1 (R15): flow stepper start-up: attach, initial step, then the step emitted in readyToEmitSteps")
    func s1StartUpOrder() throws {
        let flow = ScenarioFlow("F")
        let stepper = ScenarioStepper("F.stepper", initial: "a", whenReady: ["b"])
        let harness = ScenarioHarness()

        try harness.coordinate(flow, with: stepper)

        // RxFlow: stepper.readyToEmitSteps, F.navigate(a), F.navigate(b), coordinate() returned.
        #expect(
            harness.takeLog() == [
                "start F flow#1",
                "command setRoot F.root (flow#1)",
                "attach att#1 F.stepper on F.root (flow)",
                "will navigate flow=F step=a",
                "did navigate flow=F step=a",
                "ready flow#1",
                "will navigate flow=F step=b",
                "did navigate flow=F step=b",
            ]
        )
        #expect(stepper.readyToEmitStepsCount == 1)
    }

    @Test("S2 (D4): .multiple: contributors' initial steps in array order, forwardToCurrentFlow last")
    func s2MultipleOrdering() throws {
        let flow = ScenarioFlow("F")
        flow.on("a") {
            .multiple(
                Contribute.screen("P1", OneStepper(withSingleStep: Step("b")), notPresented: true),
                .forwardToCurrentFlow(withStep: Step("x")),
                Contribute.screen("P2", OneStepper(withSingleStep: Step("c")), notPresented: true),
                Contribute.screen("P3", OneStepper(withSingleStep: Step("d")), notPresented: true)
            )
        }
        let harness = ScenarioHarness()

        try harness.coordinate(flow, with: OneStepper(withSingleStep: Step("a")))

        // RxFlow spreads the contributors over main-queue turns: a, b (before coordinate() returns), then x, c, and
        // d on a later turn. Flowd (D4): everything in one turn, a, b, c, d, then x.
        #expect(
            harness.takeLog() == [
                "start F flow#1",
                "command setRoot F.root (flow#1)",
                "attach att#1 OneStepper(a) on F.root (flow)",
                "will navigate flow=F step=a",
                "did navigate flow=F step=a",
                "attach att#2 OneStepper(b) on P1 (contributor)",
                "attach att#3 OneStepper(c) on P2 (contributor)",
                "attach att#4 OneStepper(d) on P3 (contributor)",
                "ready flow#1",
                "will navigate flow=F step=b",
                "did navigate flow=F step=b",
                "will navigate flow=F step=c",
                "did navigate flow=F step=c",
                "will navigate flow=F step=d",
                "did navigate flow=F step=d",
                "will navigate flow=F step=x",
                "did navigate flow=F step=x",
            ]
        )
    }

    @Test("S3 (D6, R15): child flows and readiness: Flows.use(.ready) before and after the flows are ready")
    func s3ChildFlowsAndReadiness() throws {
        let parent = ScenarioFlow("P", root: .tabs("P.tabs"))
        let child1 = ScenarioFlow("C1")
        let child2 = ScenarioFlow("C2")
        parent.on("a") { _, navigator in
            Flows.use(child1, child2, when: .created, in: navigator) { navigator in
                navigator.setTabs("P.tabs", [child1.root, child2.root])
            }
            Flows.use(child1, when: .ready, in: navigator) { navigator in
                navigator.selectTab("P.tabs", index: 0)
            }
            return .multiple(
                Contribute.flow(child1, OneStepper(withSingleStep: Step("b"))),
                Contribute.flow(child2, OneStepper(withSingleStep: Step("c")))
            )
        }
        // "Registered after coordinate": in Flowd Flows.use needs a navigation, so P registers it on a later step.
        parent.on("z") { _, navigator in
            Flows.use(parent, when: .ready, in: navigator) { navigator in
                navigator.selectTab("P.tabs", index: 1)
            }
            return .none
        }
        let parentStepper = ScenarioStepper("P.stepper", initial: "a")
        let harness = ScenarioHarness()

        try harness.coordinate(parent, with: parentStepper)

        // RxFlow: P.navigate(a), C1.navigate(b), Flows.use(C1,.ready) fired, coordinate() returned; children=1,
        // C2.navigate(c) (a later main turn), Flows.use(P,.ready) fired (registered after coordinate, it only fires
        // because P's readiness comes on that later turn). Flowd: all in one turn (D4), readiness latched (D6).
        #expect(
            harness.takeLog() == [
                "start P flow#1",
                "command setRoot P.tabs (flow#1)",
                "attach att#1 P.stepper on P.tabs (flow)",
                "will navigate flow=P step=a",
                "command setTabs P.tabs [C1.root, C2.root] selected=0 (flow#1)",
                "did navigate flow=P step=a",
                "start C1 flow#2 parent=flow#1",
                "attach att#2 OneStepper(b) on C1.root (flow)",
                "start C2 flow#3 parent=flow#1",
                "attach att#3 OneStepper(c) on C2.root (flow)",
                "will navigate flow=C1 step=b",
                "did navigate flow=C1 step=b",
                "ready flow#2",
                "command selectTab P.tabs 0 (flow#1)",
                "will navigate flow=C2 step=c",
                "did navigate flow=C2 step=c",
                "ready flow#3",
                "ready flow#1",
            ]
        )
        #expect(harness.machine.snapshot().root?.children.map(\.flow) == ["C1", "C2"])

        // P is ready already: with RxFlow's edge-triggered readiness this block would never run; latched, it runs at
        // once (D6).
        harness.emit("z", from: parentStepper)
        #expect(
            harness.takeLog() == [
                "will navigate flow=P step=z",
                "did navigate flow=P step=z",
                "command selectTab P.tabs 1 (flow#1)",
            ]
        )
    }

    @Test("S4 (R10): .end from a child: the child is removed, then the parent handles the step and does the UI work")
    func s4EndFromChild() throws {
        let parent = ScenarioFlow("P")
        let child = ScenarioFlow("C")
        let childStepper = ScenarioStepper("C.stepper", initial: "b")
        parent.on("a") { _, navigator in
            navigator.present(child.root, over: "P.root")
            return .one(flowContributor: Contribute.flow(child, childStepper))
        }
        parent.on("y") { _, navigator in
            navigator.dismiss(presentedOver: "P.root")
            return .none
        }
        child.on("x") { .end(forwardToParentFlowWithStep: Step("y")) }
        let harness = ScenarioHarness()

        try harness.coordinate(parent, with: OneStepper(withSingleStep: Step("a")))
        #expect(
            harness.takeLog() == [
                "start P flow#1",
                "command setRoot P.root (flow#1)",
                "attach att#1 OneStepper(a) on P.root (flow)",
                "will navigate flow=P step=a",
                "command present C.root over P.root (flow#1)",
                "did navigate flow=P step=a",
                "start C flow#2 parent=flow#1",
                "attach att#2 C.stepper on C.root (flow)",
                "will navigate flow=C step=b",
                "did navigate flow=C step=b",
                "ready flow#2",
                "ready flow#1",
            ]
        )

        harness.emit("x", from: childStepper)

        // RxFlow: C.navigate(x), FlowCoordinator(C).deinit, P.navigate(y) (children=0). Same in Flowd.
        #expect(
            harness.takeLog() == [
                "will navigate flow=C step=x",
                "did navigate flow=C step=x",
                "detach att#2 (flowEnded)",
                "end flow#2 (ended)",
                "will navigate flow=P step=y",
                "command dismiss over P.root (flow#1)",
                "did navigate flow=P step=y",
            ]
        )
        #expect(harness.machine.snapshot().root?.children == [])
        #expect(!harness.isListening(to: childStepper))
    }

    @Test("S5 (D3): a deep link does not reach the child flow created by that same deep link")
    func s5DeepLinkSkipsFlowsItCreates() throws {
        let root = ScenarioFlow("R")
        let existing = ScenarioFlow("Existing")
        let newChild = ScenarioFlow("NewChild")
        root.on("a") { .one(flowContributor: Contribute.flow(existing, OneStepper(withSingleStep: Step("b")))) }
        root.on("deep") { .one(flowContributor: Contribute.flow(newChild, OneStepper(withSingleStep: Step("c")))) }
        let harness = ScenarioHarness()
        try harness.coordinate(root, with: OneStepper(withSingleStep: Step("a")))
        #expect(harness.takeLog().navigations == ["R: a", "Existing: b"])

        harness.deepLink("deep")

        // RxFlow (issue #162): R.navigate(deep), NewChild.navigate(c), Existing.navigate(deep),
        // NewChild.navigate(deep). Flowd (D3): NewChild, created by the deep link, does not receive it.
        #expect(
            harness.takeLog() == [
                "will navigate flow=R step=deep",
                "did navigate flow=R step=deep",
                "start NewChild flow#3 parent=flow#1",
                "attach att#3 OneStepper(c) on NewChild.root (flow)",
                "will navigate flow=NewChild step=c",
                "did navigate flow=NewChild step=c",
                "ready flow#3",
                "will navigate flow=Existing step=deep",
                "did navigate flow=Existing step=deep",
            ]
        )
        #expect(newChild.calls == ["adapt c", "navigate c"])
    }

    @Test("S6 (R7, D8): a hidden contributor's steps are dropped; its initial step waits for its first visibility")
    func s6VisibilityGate() throws {
        let flow = ScenarioFlow("F")
        let screenStepper = ScenarioStepper("vc.stepper", initial: "b")
        flow.on("a") { .one(flowContributor: Contribute.screen("vc", screenStepper)) }
        let harness = ScenarioHarness()
        try harness.coordinate(flow, with: OneStepper(withSingleStep: Step("a")))
        #expect(
            harness.takeLog() == [
                "start F flow#1",
                "command setRoot F.root (flow#1)",
                "attach att#1 OneStepper(a) on F.root (flow)",
                "will navigate flow=F step=a",
                "did navigate flow=F step=a",
                "attach att#2 vc.stepper on vc (contributor)",
                "ready flow#1",
            ]
        )
        #expect(screenStepper.readyToEmitStepsCount == 1)

        harness.emit("c", from: screenStepper)
        #expect(harness.takeLog() == ["drop c reason=notVisible flow#1 att#2"])

        harness.show("vc")
        // RxFlow 2.x drops the initial step b (the screen was hidden when subscribed); Flowd delivers it now (D8).
        #expect(harness.takeLog() == ["will navigate flow=F step=b", "did navigate flow=F step=b"])

        harness.emit("d", from: screenStepper)
        #expect(harness.takeLog() == ["will navigate flow=F step=d", "did navigate flow=F step=d"])

        harness.dismiss("vc")
        #expect(harness.takeLog() == ["detach att#2 (presentableDismissed)"])

        harness.emit("x", from: screenStepper)
        #expect(harness.takeLog() == [])
        // RxFlow's observed navigations: a, d. Flowd: a, b (on first visibility), d.
        #expect(flow.calls.filter { $0.hasPrefix("navigate") } == ["navigate a", "navigate b", "navigate d"])
    }

    @Test("S7 (R14, R7, R8): allow flags pass hidden and dismissed steps; a flow stepper is never gated")
    func s7AllowFlagsAndFlowStepper() throws {
        let flow = ScenarioFlow("F")
        let flowStepper = ScenarioStepper("F.stepper", initial: "a")
        let screenStepper = ScenarioStepper("vc.stepper", initial: "b")
        flow.on("a") {
            .one(flowContributor: Contribute.screen("vc", screenStepper, notPresented: true, dismissed: true))
        }
        let harness = ScenarioHarness()

        try harness.coordinate(flow, with: flowStepper)
        #expect(
            harness.takeLog() == [
                "start F flow#1",
                "command setRoot F.root (flow#1)",
                "attach att#1 F.stepper on F.root (flow)",
                "will navigate flow=F step=a",
                "did navigate flow=F step=a",
                "attach att#2 vc.stepper on vc (contributor)",
                "ready flow#1",
                "will navigate flow=F step=b",
                "did navigate flow=F step=b",
            ]
        )

        // F's root was never reported visible.
        harness.emit("w", from: flowStepper)
        #expect(harness.takeLog() == ["will navigate flow=F step=w", "did navigate flow=F step=w"])

        harness.dismiss("vc")
        #expect(harness.takeLog() == [])

        harness.emit("c", from: screenStepper)
        // RxFlow: F.navigate(a), F.navigate(b), F.navigate(w), F.navigate(c). Same in Flowd.
        #expect(harness.takeLog() == ["will navigate flow=F step=c", "did navigate flow=F step=c"])
    }
}
