import FlowCore
import Testing

// Rules R9 to R15 of docs/SEMANTICS.md: dismissals and ends, NoneStep, the steppers, deep links, start-up.
extension RuleTests {
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
                // Each inner stepper attached on its own, with the composite's presentable and flags.
                "attach att#3 OneStepper(one) on composite (contributor)",
                "attach att#4 NoneStepper on composite (contributor)",
                "attach att#5 inner on composite (contributor)",
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
