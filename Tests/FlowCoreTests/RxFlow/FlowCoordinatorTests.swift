import Dispatch
import FlowCore
import Logging
import Testing

/// RxFlow 2.13.2 `RxFlowTests/FlowCoordinatorTests.swift` (tests 1-10 of `rxflow-semantics.md` §2), translated.
///
/// Most tests drive ``FlowCoordinatorStateMachine`` through ``MachineDriver`` (synchronous, deterministic); #1 and #3
/// also run through the ``FlowCoordinator`` actor, #10 only through it.
struct FlowCoordinatorTests {
    private static let one = Step("one")
    private static let two = Step("two")
    private static let three = Step("three")
    private static let unauthorized = Step("unauthorized")

    /// RxFlow's `adapt` in tests #4 and #5: `.one` becomes `.unauthorized`, anything else passes.
    private static func adaptOneToUnauthorized(_ step: Step) -> Adaptation {
        .step(step == one ? unauthorized : step)
    }

    // MARK: - #1

    @Test("RxFlow #1 testCoordinateWithOneStepper: navigate runs before coordinate returns")
    func coordinateWithOneStepper() throws {
        let driver = MachineDriver()
        let flow = TestFlow("TestFlow")

        let log = try driver.coordinate(flow: flow, with: OneStepper(withSingleStep: Self.one))

        #expect(flow.navigatedSteps == [Self.one])
        #expect(
            log == [
                "start TestFlow flow#1",
                "command setRoot TestFlow.root (flow#1)",
                "attach att#1 OneStepper(one) on TestFlow.root (flow)",
                "will navigate flow=TestFlow step=one",
                "did navigate flow=TestFlow step=one",
                "ready flow#1",
            ]
        )
    }

    @Test("RxFlow #1 testCoordinateWithOneStepper, through the actor: navigated before coordinate returns")
    func coordinateWithOneStepperThroughTheActor() async throws {
        let coordinator = FlowCoordinator(logger: Logger(label: "RxFlowTests"))
        let recorded = LockedLog<Step>()
        let log = ActionLogRecorder()
        await coordinator.observe { log.record($0) }
        let flow = TestFlow("TestFlow") { step, _ in
            recorded.append(step)
            return .none
        }

        // No `run()`: the initial step is handled inside `coordinate`, as RxFlow's synchronous cascade.
        try await coordinator.coordinate(flow: flow, with: OneStepper(withSingleStep: Self.one))

        #expect(recorded.elements == [Self.one])
        #expect(
            log.elements == [
                "start TestFlow flow#1",
                "command setRoot TestFlow.root (flow#1)",
                "attach att#1 OneStepper(one) on TestFlow.root (flow)",
                "will navigate flow=TestFlow step=one",
                "did navigate flow=TestFlow step=one",
                "ready flow#1",
            ]
        )
    }

    // MARK: - #2

    @Test("RxFlow #2 testCoordinateWhenAllowStepWhenNotPresented_doEmitAStep: a hidden contributor's step is navigated")
    func coordinateWhenAllowStepWhenNotPresentedDoEmitAStep() throws {
        let driver = MachineDriver()
        let hidden = Screen.view("hidden", type: "Hidden")
        let flow = TestFlow("TestFlow") { step, _ in
            guard step == Self.one else { return .none }
            return .one(
                flowContributor: .contribute(
                    withNextPresentable: hidden, withNextStepper: OneStepper(withSingleStep: Self.two),
                    allowStepWhenNotPresented: true
                )
            )
        }

        let log = try driver.coordinate(flow: flow, with: OneStepper(withSingleStep: Self.one))

        #expect(!driver.machine.isVisible(hidden.id))
        #expect(flow.navigatedSteps == [Self.one, Self.two])
        #expect(
            log == [
                "start TestFlow flow#1",
                "command setRoot TestFlow.root (flow#1)",
                "attach att#1 OneStepper(one) on TestFlow.root (flow)",
                "will navigate flow=TestFlow step=one",
                "did navigate flow=TestFlow step=one",
                "attach att#2 OneStepper(two) on hidden (contributor)",
                "ready flow#1",
                "will navigate flow=TestFlow step=two",
                "did navigate flow=TestFlow step=two",
            ]
        )
    }

    @Test("RxFlow #2 counterpart: without allowStepWhenNotPresented the hidden contributor's initial step waits (D8)")
    func coordinateWithoutAllowStepWhenNotPresentedHoldsTheInitialStep() throws {
        let driver = MachineDriver()
        let hidden = Screen.view("hidden", type: "Hidden")
        let flow = TestFlow("TestFlow") { step, _ in
            guard step == Self.one else { return .none }
            return .one(
                flowContributor: .contribute(
                    withNextPresentable: hidden, withNextStepper: OneStepper(withSingleStep: Self.two)
                )
            )
        }

        try driver.coordinate(flow: flow, with: OneStepper(withSingleStep: Self.one))
        #expect(flow.navigatedSteps == [Self.one])

        let log = driver.handle(.visibilityChanged(hidden.id, visible: true))
        #expect(flow.navigatedSteps == [Self.one, Self.two])
        #expect(log == ["will navigate flow=TestFlow step=two", "did navigate flow=TestFlow step=two"])
    }

    // MARK: - #3

    /// RxFlow's flow of test #3: `.multiple` navigates to a visible contributor with `OneStepper(.two)` and forwards
    /// `.one` to itself.
    private static func multipleSideEffectsFlow(screen: Screen, recorded: LockedLog<Step>? = nil) -> TestFlow {
        TestFlow("TestFlow") { step, _ in
            recorded?.append(step)
            guard step == Step("multiple") else { return .none }
            return .multiple(
                .contribute(withNextPresentable: screen, withNextStepper: OneStepper(withSingleStep: Self.two)),
                .forwardToCurrentFlow(withStep: Self.one)
            )
        }
    }

    private static let multipleSideEffectsLog = [
        "start TestFlow flow#1",
        "command setRoot TestFlow.root (flow#1)",
        "attach att#1 OneStepper(multiple) on TestFlow.root (flow)",
        "will navigate flow=TestFlow step=multiple",
        "did navigate flow=TestFlow step=multiple",
        "attach att#2 OneStepper(two) on visible (contributor)",
        "ready flow#1",
        "will navigate flow=TestFlow step=two",
        "did navigate flow=TestFlow step=two",
        "will navigate flow=TestFlow step=one",
        "did navigate flow=TestFlow step=one",
    ]

    @Test("RxFlow #3 testMultipleSideEffectsPerformed: .multiple gives [multiple, two, one]")
    func multipleSideEffectsPerformed() throws {
        let driver = MachineDriver()
        let screen = Screen.view("visible", type: "Visible")
        // RxFlow's presentable is displayed from the start.
        #expect(driver.handle(.visibilityChanged(screen.id, visible: true)) == [])
        let flow = Self.multipleSideEffectsFlow(screen: screen)

        let log = try driver.coordinate(flow: flow, with: OneStepper(withSingleStep: Step("multiple")))

        #expect(flow.navigatedSteps == [Step("multiple"), Self.two, Self.one])
        #expect(log == Self.multipleSideEffectsLog)
    }

    @Test("RxFlow #3 testMultipleSideEffectsPerformed, through the FlowCoordinator actor")
    func multipleSideEffectsPerformedThroughTheActor() async throws {
        let coordinator = FlowCoordinator(logger: Logger(label: "RxFlowTests"))
        let screen = Screen.view("visible", type: "Visible")
        await coordinator.reportVisibility(of: screen.id, visible: true)
        let recorded = LockedLog<Step>()
        let log = ActionLogRecorder()
        await coordinator.observe { log.record($0) }

        try await coordinator.coordinate(
            flow: Self.multipleSideEffectsFlow(screen: screen, recorded: recorded),
            with: OneStepper(withSingleStep: Step("multiple"))
        )

        #expect(recorded.elements == [Step("multiple"), Self.two, Self.one])
        #expect(log.elements == Self.multipleSideEffectsLog)
    }

    // MARK: - #4, #5

    @Test("RxFlow #4 testStepHasBeenFilteredBeforeNavigateForAFlowStepper: the flow stepper's step is adapted")
    func stepHasBeenFilteredBeforeNavigateForAFlowStepper() throws {
        let driver = MachineDriver()
        let stepper = TestStepper("FlowStepper")
        let flow = TestFlow("TestFlow", adapt: Self.adaptOneToUnauthorized) { _, _ in .none }
        try driver.coordinate(flow: flow, with: stepper)

        let log = driver.emit(Self.one, from: stepper)

        #expect(flow.navigatedSteps == [Self.unauthorized])
        #expect(
            log == [
                "will navigate flow=TestFlow step=unauthorized",
                "did navigate flow=TestFlow step=unauthorized",
                "ready flow#1",
            ]
        )
    }

    @Test("RxFlow #5 testStepHasBeenFilteredBeforeNavigateForAPresentableStepper: a contributor's step is adapted")
    func stepHasBeenFilteredBeforeNavigateForAPresentableStepper() throws {
        let driver = MachineDriver()
        let neverVisible = Screen.view("neverVisible", type: "Hidden")
        let flow = TestFlow("TestFlow", adapt: Self.adaptOneToUnauthorized) { step, _ in
            guard step == Self.two else { return .none }
            return .one(
                flowContributor: .contribute(
                    withNextPresentable: neverVisible, withNextStepper: OneStepper(withSingleStep: Self.one),
                    allowStepWhenNotPresented: true
                )
            )
        }

        let log = try driver.coordinate(flow: flow, with: OneStepper(withSingleStep: Self.two))

        #expect(flow.navigatedSteps == [Self.two, Self.unauthorized])
        #expect(
            log == [
                "start TestFlow flow#1",
                "command setRoot TestFlow.root (flow#1)",
                "attach att#1 OneStepper(two) on TestFlow.root (flow)",
                "will navigate flow=TestFlow step=two",
                "did navigate flow=TestFlow step=two",
                "attach att#2 OneStepper(one) on neverVisible (contributor)",
                "ready flow#1",
                "will navigate flow=TestFlow step=unauthorized",
                "did navigate flow=TestFlow step=unauthorized",
            ]
        )
    }

    // MARK: - #6

    @Test("RxFlow #6 testStepIsReceivedInEveryFlowsWhenNavigateToIsCalled: a deep link reaches root and both children")
    func stepIsReceivedInEveryFlowsWhenNavigateToIsCalled() throws {
        let driver = MachineDriver()
        let recorded = LockedLog<String>()
        let childA = TestFlow("ChildFlowA") { step, _ in
            recorded.append("ChildFlowA:\(step)")
            return .none
        }
        let childB = TestFlow("ChildFlowB") { step, _ in
            recorded.append("ChildFlowB:\(step)")
            return .none
        }
        let childRoots = [childA.root, childB.root]
        let rootFlow = TestFlow("RootFlow", root: .tabs("RootFlow.root")) { [childA, childB] step, navigator in
            recorded.append("RootFlow:\(step)")
            guard step == Self.one else { return .none }
            Flows.use(childA, childB, when: .ready, in: navigator) { navigator in
                navigator.setTabs("RootFlow.root", childRoots)
            }
            return .multiple(
                .contribute(withNextPresentable: childA, withNextStepper: OneStepper(withSingleStep: Self.two)),
                .contribute(withNextPresentable: childB, withNextStepper: OneStepper(withSingleStep: Self.two))
            )
        }

        let coordinateLog = try driver.coordinate(flow: rootFlow, with: OneStepper(withSingleStep: Self.one))
        #expect(
            coordinateLog == [
                "start RootFlow flow#1",
                "command setRoot RootFlow.root (flow#1)",
                "attach att#1 OneStepper(one) on RootFlow.root (flow)",
                "will navigate flow=RootFlow step=one",
                "did navigate flow=RootFlow step=one",
                "start ChildFlowA flow#2 parent=flow#1",
                "attach att#2 OneStepper(two) on ChildFlowA.root (flow)",
                "start ChildFlowB flow#3 parent=flow#1",
                "attach att#3 OneStepper(two) on ChildFlowB.root (flow)",
                "will navigate flow=ChildFlowA step=two",
                "did navigate flow=ChildFlowA step=two",
                "ready flow#2",
                "will navigate flow=ChildFlowB step=two",
                "did navigate flow=ChildFlowB step=two",
                "ready flow#3",
                "command setTabs RootFlow.root [ChildFlowA.root, ChildFlowB.root] selected=0 (flow#1)",
                "ready flow#1",
            ]
        )
        // RxFlow waits with `Flows.use(root, when: .ready)`; here the tree is ready when `coordinate` returns.
        #expect(driver.machine.coordinatorIDs.map(driver.machine.isReady) == [true, true, true])
        _ = recorded.takeAll()

        let deepLinkLog = driver.handle(.deepLink(Self.three))

        #expect(recorded.elements == ["RootFlow:three", "ChildFlowA:three", "ChildFlowB:three"])
        #expect(
            deepLinkLog == [
                "will navigate flow=RootFlow step=three",
                "did navigate flow=RootFlow step=three",
                "will navigate flow=ChildFlowA step=three",
                "did navigate flow=ChildFlowA step=three",
                "will navigate flow=ChildFlowB step=three",
                "did navigate flow=ChildFlowB step=three",
            ]
        )
    }

    // MARK: - #7

    @Test("RxFlow #7 testStepIsReceivedAfterDismissed: allowStepWhenDismissed keeps the root flow after its dismissal")
    func stepIsReceivedAfterDismissed() throws {
        let driver = MachineDriver()
        let flow = TestFlow("TestFlow")
        try driver.coordinate(flow: flow, with: OneStepper(withSingleStep: Self.one), allowStepWhenDismissed: true)

        #expect(driver.handle(.dismissed(flow.presentableID)) == [])
        #expect(driver.machine.isDismissed(flow.presentableID))
        let log = driver.handle(.deepLink(Self.two)) + driver.handle(.deepLink(Self.three))

        #expect(flow.navigatedSteps == [Self.one, Self.two, Self.three])
        #expect(
            log == [
                "will navigate flow=TestFlow step=two",
                "did navigate flow=TestFlow step=two",
                "will navigate flow=TestFlow step=three",
                "did navigate flow=TestFlow step=three",
            ]
        )
    }

    @Test("RxFlow #7 counterpart: without allowStepWhenDismissed the dismissed root flow ends and gets no step")
    func stepIsNotReceivedAfterDismissedWithoutTheFlag() throws {
        let driver = MachineDriver()
        let flow = TestFlow("TestFlow")
        try driver.coordinate(flow: flow, with: OneStepper(withSingleStep: Self.one))

        let log = driver.handle(.dismissed(flow.presentableID)) + driver.handle(.deepLink(Self.two))

        #expect(flow.navigatedSteps == [Self.one])
        #expect(
            log == [
                "detach att#1 (flowEnded)",
                "end flow#1 (rootDismissed)",
                "drop two reason=noRootFlow",
            ]
        )
    }

    // MARK: - #8, #9

    @Test("RxFlow #8 testFlowIsNotLeakingWhenHasOneStep: the machine releases a flow once its root is dismissed")
    func flowIsNotLeakingWhenHasOneStep() throws {
        let driver = MachineDriver()
        weak var weakFlow: TestFlow?
        weak var weakContributedStepper: DefaultStepper?
        do {
            let flow = TestFlow("TestFlow") { _, _ in
                let stepper = DefaultStepper()
                weakContributedStepper = stepper
                return .one(
                    flowContributor: .contribute(
                        withNextPresentable: Screen.view("screen", type: "Screen"), withNextStepper: stepper
                    )
                )
            }
            weakFlow = flow
            try driver.coordinate(flow: flow)
        }
        // Alive while coordinated: the machine owns the flow and the contributed stepper.
        #expect(weakFlow != nil)
        #expect(weakContributedStepper != nil)

        let log = driver.handle(.dismissed("TestFlow.root"))

        #expect(
            log == [
                "detach att#1 (flowEnded)",
                "detach att#2 (flowEnded)",
                // The screen was never shown: its stepper's initial step, held (D8), goes with it (D13).
                "drop home reason=flowEnded flow#1 att#2",
                "end flow#1 (rootDismissed)",
            ]
        )
        #expect(weakFlow == nil)
        #expect(weakContributedStepper == nil)
        // The machine (RxFlow: the coordinator object) still exists.
        #expect(driver.machine.hasRoot)
    }

    @Test(
        "RxFlow #9 testChildViewControllerIsNotLeakingWhenParentFlowAllowsStepWhenDismissed: stepper released"
    )
    func childViewControllerIsNotLeakingWhenParentFlowAllowsStepWhenDismissed() throws {
        let driver = MachineDriver()
        let child = Screen.view("child", type: "Child")
        weak var weakChildStepper: TestStepper?
        let flow = TestFlow("ParentFlow") { _, _ in
            let stepper = TestStepper("ChildStepper")
            weakChildStepper = stepper
            return .one(flowContributor: .contribute(withNextPresentable: child, withNextStepper: stepper))
        }
        try driver.coordinate(flow: flow, allowStepWhenDismissed: true)
        #expect(weakChildStepper != nil)

        let log = driver.handle(.dismissed(child.id))

        #expect(log == ["detach att#2 (presentableDismissed)"])
        #expect(weakChildStepper == nil)
        #expect(driver.machine.coordinatorIDs == [FlowCoordinatorID(1)])
        #expect(driver.machine.liveAttachments.map(\.id) == [AttachmentID(1)])
    }
}
