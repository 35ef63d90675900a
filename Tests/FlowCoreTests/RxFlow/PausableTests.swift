import FlowCore
import Testing

/// RxFlow 2.13.2 `RxFlowTests/ObservableType+PausableTests.swift` (tests 36-37 of `rxflow-semantics.md` §2),
/// translated.
///
/// RxFlow's `pausable(withPauser:)` is how it gates a contributor's steps by its presentable's visibility
/// (`withLatestFrom(pauser).filter { $0 }`): values emitted while the pauser is false are dropped, never buffered.
/// FlowCore has no operator; the same rule is the visibility gate of ``FlowCoordinatorStateMachine`` (R7): a
/// contributor's step emitted while its presentable is hidden is dropped (`stepDropped` reason `notVisible`). The
/// tests feed RxFlow's values 1...10 through a contributor's stepper, with the pauser "value is even" as the screen's
/// visibility, reported just before each value.
///
/// `pausable(afterCount:withPauser:)` lets the first `count` values through whatever the pauser says. RxFlow 1.x
/// used it (`afterCount: 1`) on a flow's own stepper, so its first (initial) step was never gated; 2.x dropped the
/// gate on flow steppers altogether. FlowCore has no counter; the two things `afterCount` stood for map to:
/// - a flow's own stepper is not gated by its root's visibility at all (R14): every value passes, as with an
///   unbounded `afterCount`;
/// - a contributor's initial step is not dropped while its presentable is hidden but held and delivered on the first
///   visibility (D8, RxFlow 1.x behaviour): the "first value passes" of `afterCount: 1`, delayed to that visibility;
///   the later steps are still dropped while hidden.
struct PausableTests {
    private static func value(_ number: Int) -> Step { Step("value", payload: .int(number)) }

    /// A root flow that, on `home`, contributes `presentable` with `stepper`.
    private static func parent(contributing presentable: any Presentable, with stepper: any Stepper) -> TestFlow {
        TestFlow("ParentFlow") { step, _ in
            guard step == FlowStep.home else { return .none }
            return .one(flowContributor: .contribute(withNextPresentable: presentable, withNextStepper: stepper))
        }
    }

    /// Reports `presentable` visible for even values and hidden for odd ones, then emits the value; returns the log.
    private static func feedEvenVisible(
        _ values: ClosedRange<Int>,
        to presentable: PresentableID,
        through stepper: TestStepper,
        driver: MachineDriver
    ) -> [String] {
        var log: [String] = []
        for number in values {
            log += driver.handle(.visibilityChanged(presentable, visible: number.isMultiple(of: 2)))
            log += driver.emit(value(number), from: stepper)
        }
        return log
    }

    @Test("RxFlow #36 testPausable: steps emitted while the screen is hidden are dropped, never buffered (R7)")
    func pausable() throws {
        let driver = MachineDriver()
        let screen = Screen.view("screen", type: "Screen")
        let stepper = TestStepper("ScreenStepper")
        let flow = Self.parent(contributing: screen, with: stepper)
        try driver.coordinate(flow: flow)

        var log = Self.feedEvenVisible(1...10, to: screen.id, through: stepper, driver: driver)
        // Never buffered: hiding and showing again brings nothing back.
        log += driver.handle(.visibilityChanged(screen.id, visible: false))
        log += driver.handle(.visibilityChanged(screen.id, visible: true))

        #expect(flow.navigatedSteps == [FlowStep.home] + [2, 4, 6, 8, 10].map(Self.value))
        var expected: [String] = []
        for number in 1...10 {
            if number.isMultiple(of: 2) {
                expected += [
                    "will navigate flow=ParentFlow step=value(\(number))",
                    "did navigate flow=ParentFlow step=value(\(number))",
                ]
            } else {
                expected.append("drop value(\(number)) reason=notVisible flow#1 att#2")
            }
        }
        #expect(log == expected)
    }

    @Test("RxFlow #37 testPausableAfterCount, flow stepper: a flow's own stepper is never gated by its root (R14)")
    func pausableAfterCountFlowStepper() throws {
        let driver = MachineDriver()
        let child = TestFlow("ChildFlow")
        let childStepper = TestStepper("ChildStepper")
        try driver.coordinate(flow: Self.parent(contributing: child, with: childStepper))

        let log = Self.feedEvenVisible(1...10, to: child.root.id, through: childStepper, driver: driver)

        #expect(child.navigatedSteps == (1...10).map(Self.value))
        var expected: [String] = []
        for number in 1...10 {
            expected += [
                "will navigate flow=ChildFlow step=value(\(number))",
                "did navigate flow=ChildFlow step=value(\(number))",
            ]
            // The child's first navigation makes it ready, and with it its parent.
            if number == 1 { expected += ["ready flow#2", "ready flow#1"] }
        }
        #expect(log == expected)
    }

    @Test("RxFlow #37 testPausableAfterCount, initial step: held until the first visibility, later steps gated (D8)")
    func pausableAfterCountInitialStep() throws {
        let driver = MachineDriver()
        let screen = Screen.view("screen", type: "Screen")
        let stepper = TestStepper("ScreenStepper", initialStep: Self.value(0))
        let flow = Self.parent(contributing: screen, with: stepper)
        try driver.coordinate(flow: flow)
        #expect(driver.machine.snapshot().root?.steppers.last?.pendingInitialStep == Self.value(0))

        let log = Self.feedEvenVisible(1...10, to: screen.id, through: stepper, driver: driver)

        #expect(flow.navigatedSteps == [FlowStep.home] + [0, 2, 4, 6, 8, 10].map(Self.value))
        var expected = ["drop value(1) reason=notVisible flow#1 att#2"]
        // The first visibility (before value 2) delivers the held initial step.
        expected += [
            "will navigate flow=ParentFlow step=value(0)",
            "did navigate flow=ParentFlow step=value(0)",
        ]
        for number in 2...10 {
            if number.isMultiple(of: 2) {
                expected += [
                    "will navigate flow=ParentFlow step=value(\(number))",
                    "did navigate flow=ParentFlow step=value(\(number))",
                ]
            } else {
                expected.append("drop value(\(number)) reason=notVisible flow#1 att#2")
            }
        }
        #expect(log == expected)
        #expect(driver.machine.snapshot().root?.steppers.last?.pendingInitialStep == nil)
    }
}
