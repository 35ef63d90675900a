import FlowCore
import Testing

/// RxFlow 2.13.2 `RxFlowTests/Flow+PresentableTests.swift` (tests 30-31) and
/// `RxFlowTests/UIViewController+PresentableTests.swift` (tests 32-34) of `rxflow-semantics.md` §2, translated.
///
/// RxFlow's `Presentable` exposes `rxVisible` / `rxDismissed` observables fed by UIKit. In FlowCore visibility and
/// dismissal are reported to the coordinator (`visibilityChanged`, `dismissed`); what a presentable "emits" is what
/// ``FlowCoordinatorStateMachine/isVisible(_:)`` and ``FlowCoordinatorStateMachine/isDismissed(_:)`` say after each
/// report, and what it does is the gating: steps dropped while hidden (R7), steppers detached on dismissal (R8),
/// flows ended with their root (R9).
struct PresentableTests {
    /// RxFlow's 3 appear/disappear cycles: visible, hidden, visible, hidden, visible, hidden.
    private static let cycles = [true, false, true, false, true, false]
    /// The visibility RxFlow's tests record: the initial value, then one per report.
    private static let visibilitySequence = [false, true, false, true, false, true, false]

    /// A root flow that, on `home`, contributes `child` with `stepper` (a child flow when `child` is a ``Flow``).
    private static func parent(contributing child: any Presentable, with stepper: any Stepper) -> TestFlow {
        TestFlow("ParentFlow") { step, _ in
            guard step == FlowStep.home else { return .none }
            return .one(flowContributor: .contribute(withNextPresentable: child, withNextStepper: stepper))
        }
    }

    // MARK: - Flow, 30-31

    @Test("RxFlow #30 testFlowVisible: a flow's visibility is its root's; its own stepper is not gated by it (R14)")
    func flowVisible() throws {
        let driver = MachineDriver()
        let child = TestFlow("ChildFlow")
        let childStepper = TestStepper("ChildStepper")
        try driver.coordinate(flow: Self.parent(contributing: child, with: childStepper))

        var visibility = [driver.machine.isVisible(child.presentableID)]
        var log = driver.emit(Step("phase", payload: 0), from: childStepper)
        for (phase, visible) in Self.cycles.enumerated() {
            log += driver.handle(.visibilityChanged(child.root.id, visible: visible))
            visibility.append(driver.machine.isVisible(child.presentableID))
            log += driver.emit(Step("phase", payload: .int(phase + 1)), from: childStepper)
        }

        #expect(visibility == Self.visibilitySequence)
        #expect(child.navigatedSteps == (0...6).map { Step("phase", payload: .int($0)) })
        var expected: [String] = []
        for phase in 0...6 {
            expected += [
                "will navigate flow=ChildFlow step=phase(\(phase))",
                "did navigate flow=ChildFlow step=phase(\(phase))",
            ]
            // The child's first navigation makes it ready, and with it its parent.
            if phase == 0 { expected += ["ready flow#2", "ready flow#1"] }
        }
        #expect(log == expected)
    }

    @Test("RxFlow #31 testFlowDismissed: dismissing a flow's root dismisses the flow once and ends it (R9)")
    func flowDismissed() throws {
        let driver = MachineDriver()
        let child = TestFlow("ChildFlow")
        let childStepper = TestStepper("ChildStepper")
        try driver.coordinate(flow: Self.parent(contributing: child, with: childStepper))
        #expect(driver.machine.coordinatorIDs == [FlowCoordinatorID(1), FlowCoordinatorID(2)])
        #expect(!driver.machine.isDismissed(child.presentableID))

        let log = driver.handle(.dismissed(child.root.id))

        #expect(log == ["detach att#2 (flowEnded)", "end flow#2 (rootDismissed)"])
        #expect(driver.machine.isDismissed(child.presentableID))
        #expect(!driver.machine.isVisible(child.presentableID))
        #expect(driver.machine.coordinatorIDs == [FlowCoordinatorID(1)])
        // Dismissal happens once (RxFlow's Single: success, then completion).
        #expect(driver.handle(.dismissed(child.root.id)) == [])
        // The flow's stepper is cut: unsubscribed, and a late emission reported anyway is dropped.
        #expect(driver.emit("late", from: childStepper) == [])
        let lateLog = driver.handle(.stepperEmitted(AttachmentID(2), Step("late")))
        #expect(lateLog == ["drop late reason=attachmentEnded att#2"])
        #expect(child.navigatedSteps == [])
    }

    // MARK: - Screen, 32-34

    @Test("RxFlow #32 testUIViewControllerVisible: a screen's visibility follows reports and gates its stepper (R7)")
    func uiViewControllerVisible() throws {
        let driver = MachineDriver()
        let screen = Screen.view("screen", type: "Screen")
        let stepper = TestStepper("ScreenStepper")
        let flow = Self.parent(contributing: screen, with: stepper)
        try driver.coordinate(flow: flow)

        var visibility = [driver.machine.isVisible(screen.id)]
        var log = driver.emit(Step("phase", payload: 0), from: stepper)
        for (phase, visible) in Self.cycles.enumerated() {
            log += driver.handle(.visibilityChanged(screen.id, visible: visible))
            visibility.append(driver.machine.isVisible(screen.id))
            log += driver.emit(Step("phase", payload: .int(phase + 1)), from: stepper)
        }

        #expect(visibility == Self.visibilitySequence)
        #expect(flow.navigatedSteps == [FlowStep.home] + [1, 3, 5].map { Step("phase", payload: .int($0)) })
        #expect(
            log == [
                "drop phase(0) reason=notVisible flow#1 att#2",
                "will navigate flow=ParentFlow step=phase(1)",
                "did navigate flow=ParentFlow step=phase(1)",
                "drop phase(2) reason=notVisible flow#1 att#2",
                "will navigate flow=ParentFlow step=phase(3)",
                "did navigate flow=ParentFlow step=phase(3)",
                "drop phase(4) reason=notVisible flow#1 att#2",
                "will navigate flow=ParentFlow step=phase(5)",
                "did navigate flow=ParentFlow step=phase(5)",
                "drop phase(6) reason=notVisible flow#1 att#2",
            ]
        )
    }

    @Test("RxFlow #33 testUIViewControllerVisibleStartsVisible: a screen shown before it is contributed starts visible")
    func uiViewControllerVisibleStartsVisible() throws {
        let driver = MachineDriver()
        let screen = Screen.view("screen", type: "Screen")
        let stepper = TestStepper("ScreenStepper", initialStep: Step("initial"))
        let flow = Self.parent(contributing: screen, with: stepper)
        #expect(driver.handle(.visibilityChanged(screen.id, visible: true)) == [])

        let log = try driver.coordinate(flow: flow)

        #expect(driver.machine.isVisible(screen.id))
        // Visible from the start, so its stepper's initial step is not held (D8) but handled at once.
        #expect(flow.navigatedSteps == [FlowStep.home, Step("initial")])
        #expect(
            log == [
                "start ParentFlow flow#1",
                "command setRoot ParentFlow.root (flow#1)",
                "attach att#1 DefaultStepper on ParentFlow.root (flow)",
                "will navigate flow=ParentFlow step=home",
                "did navigate flow=ParentFlow step=home",
                "attach att#2 ScreenStepper on screen (contributor)",
                "ready flow#1",
                "will navigate flow=ParentFlow step=initial",
                "did navigate flow=ParentFlow step=initial",
            ]
        )
    }

    @Test("RxFlow #34 testUIViewControllerDismissed: a screen is dismissed once and its stepper detached (R8)")
    func uiViewControllerDismissed() throws {
        let driver = MachineDriver()
        let screen = Screen.view("screen", type: "Screen")
        let stepper = TestStepper("ScreenStepper")
        let flow = Self.parent(contributing: screen, with: stepper)
        try driver.coordinate(flow: flow)
        driver.handle(.visibilityChanged(screen.id, visible: true))

        let log = driver.handle(.dismissed(screen.id))

        #expect(log == ["detach att#2 (presentableDismissed)"])
        #expect(driver.machine.isDismissed(screen.id))
        #expect(!driver.machine.isVisible(screen.id))
        // Once only; later visibility reports are ignored (D11).
        #expect(driver.handle(.dismissed(screen.id)) == [])
        #expect(driver.handle(.visibilityChanged(screen.id, visible: true)) == [])
        #expect(!driver.machine.isVisible(screen.id))
        // Its stepper no longer reaches the flow.
        #expect(driver.emit("late", from: stepper) == [])
        let lateLog = driver.handle(.stepperEmitted(AttachmentID(2), Step("late")))
        #expect(lateLog == ["drop late reason=attachmentEnded att#2"])
        #expect(flow.navigatedSteps == [FlowStep.home])
        // The flow goes on.
        #expect(driver.machine.coordinatorIDs == [FlowCoordinatorID(1)])
    }
}
