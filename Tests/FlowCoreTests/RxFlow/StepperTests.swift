import FlowCore
import Testing

/// RxFlow 2.13.2 `RxFlowTests/StepperTests.swift` (tests 23-29 of `rxflow-semantics.md` §2), translated.
struct StepperTests {
    /// `Step("value", payload: n)`, shown as `value(n)`.
    private static func value(_ number: Int) -> Step { Step("value", payload: .int(number)) }

    /// Collects what `relay` emits from now on.
    private static func collect(_ relay: StepRelay) -> LockedLog<Step> {
        let received = LockedLog<Step>()
        relay.subscribe { received.append($0) }
        return received
    }

    @Test("RxFlow #23 testStepperEmitStep: a stepper's relay delivers accepted steps in order, without replay")
    func stepperEmitStep() {
        let stepper = TestStepper()
        stepper.emit("beforeSubscription")
        let received = Self.collect(stepper.steps)

        stepper.emit("one")
        stepper.emit("two")

        #expect(received.elements == [Step("one"), Step("two")])
    }

    @Test("RxFlow #24 testOneStepper: OneStepper's only step is its initial step")
    func oneStepper() {
        let stepper = OneStepper(withSingleStep: Step("one"))
        let received = Self.collect(stepper.steps)

        stepper.readyToEmitSteps()

        #expect(stepper.initialStep == Step("one"))
        #expect(received.elements == [])
    }

    @Test("RxFlow #25 testNoneStepper: NoneStepper's initial step is NoneStep, which never reaches a flow (R11)")
    func noneStepper() throws {
        let stepper = NoneStepper()
        #expect(stepper.initialStep == Step.none)
        #expect(stepper.initialStep.isNone)
        #expect(stepper.initialStep.description == "NoneStep")

        let driver = MachineDriver()
        let flow = TestFlow("TestFlow")
        let log = try driver.coordinate(flow: flow, with: stepper)

        #expect(flow.navigatedSteps == [])
        #expect(
            log == [
                "start TestFlow flow#1",
                "command setRoot TestFlow.root (flow#1)",
                "attach att#1 NoneStepper on TestFlow.root (flow)",
            ]
        )
        // A NoneStep a stepper emits later is dropped too.
        let noneLog = driver.handle(.stepperEmitted(AttachmentID(1), .none))
        #expect(noneLog == ["drop NoneStep reason=noneStep flow#1 att#1"])
    }

    @Test("RxFlow #26 testCompositeStepperInitialSteps: readyToEmitSteps emits the inner initial steps in order")
    func compositeStepperInitialSteps() {
        let composite = CompositeStepper(steppers: [
            OneStepper(withSingleStep: Self.value(1)),
            OneStepper(withSingleStep: Self.value(2)),
            OneStepper(withSingleStep: Self.value(3)),
        ])
        let received = Self.collect(composite.steps)

        composite.readyToEmitSteps()

        #expect(received.elements == [Self.value(1), Self.value(2), Self.value(3)])
    }

    @Test("RxFlow #27 testCompositeStepperReadyToEmitSteps: readyToEmitSteps reaches every inner stepper, in order")
    func compositeStepperReadyToEmitSteps() {
        let calls = LockedLog<String>()
        let inner = ["a", "b", "c"].map { name in TestStepper(name) { calls.append($0.name) } }
        let composite = CompositeStepper(steppers: inner)

        composite.readyToEmitSteps()

        #expect(calls.elements == ["a", "b", "c"])
        #expect(inner.map(\.readyToEmitStepsCalls) == [1, 1, 1])
    }

    @Test("RxFlow #28 testCompositeStepper: inner initial steps, then the inner steps emitted later, in order")
    func compositeStepper() {
        let inner = (1...3).map { TestStepper("inner\($0)", initialStep: Self.value($0)) }
        let composite = CompositeStepper(steppers: inner)
        let received = Self.collect(composite.steps)

        composite.readyToEmitSteps()
        for (stepper, number) in zip(inner, 4...6) { stepper.emit(Self.value(number)) }

        #expect(received.elements == (1...6).map(Self.value))
    }

    @Test("RxFlow S12 counterpart (D5): CompositeStepper keeps a step an inner stepper emits in readyToEmitSteps")
    func compositeStepperKeepsStepsEmittedInReadyToEmitSteps() {
        let inner = TestStepper("inner", initialStep: Self.value(1)) { $0.emit(Self.value(2)) }
        let composite = CompositeStepper(steppers: [inner])
        let received = Self.collect(composite.steps)

        composite.readyToEmitSteps()

        #expect(received.elements == [Self.value(1), Self.value(2)])
    }

    /// RxFlow's test subclasses `CompositeStepper` to give it an initial step. FlowCore's `CompositeStepper` is final,
    /// so the same stepper is a small type that composes one and has its own initial step.
    private final class CompositeStepperWithInitialStep: Stepper {
        let composite: CompositeStepper
        var steps: StepRelay { composite.steps }
        var initialStep: Step { Step("value", payload: .int(0)) }

        init(steppers: [any Stepper]) { composite = CompositeStepper(steppers: steppers) }

        func readyToEmitSteps() { composite.readyToEmitSteps() }
    }

    @Test("RxFlow #29 testCompositeStepperWithInitialStep: its own initial step, then the 6 inner steps (7 in order)")
    func compositeStepperWithInitialStep() throws {
        let inner = (1...3).map { TestStepper("inner\($0)", initialStep: Self.value($0)) }
        let stepper = CompositeStepperWithInitialStep(steppers: inner)
        let driver = MachineDriver()
        let flow = TestFlow("TestFlow")

        // Unlike RxFlow's subclass (`rxflow-semantics.md` §1.1), the coordinator does see this initial step.
        let log = try driver.coordinate(flow: flow, with: stepper)
        for (stepper, number) in zip(inner, 4...6) { stepper.emit(Self.value(number)) }
        let laterLog = driver.pump()

        #expect(flow.navigatedSteps == (0...6).map(Self.value))
        var expected = [
            "start TestFlow flow#1",
            "command setRoot TestFlow.root (flow#1)",
            "attach att#1 CompositeStepperWithInitialStep on TestFlow.root (flow)",
        ]
        for number in 0...3 {
            expected += [
                "will navigate flow=TestFlow step=value(\(number))",
                "did navigate flow=TestFlow step=value(\(number))",
            ]
            if number == 0 { expected.append("ready flow#1") }
        }
        #expect(log == expected)
        #expect(
            laterLog == (4...6).flatMap { number in
                [
                    "will navigate flow=TestFlow step=value(\(number))",
                    "did navigate flow=TestFlow step=value(\(number))",
                ]
            }
        )
    }
}
