import FlowCore
import Testing

/// Steps a stepper emits synchronously run in the same call, in RxFlow's order (`docs/SEMANTICS.md`, scheduling model,
/// R1, R6, R15): each test drives the machine alone, so what is not in the actions a call returns did not happen in
/// that call.
struct BurstTests {
    @Test("R15 (S1): readyToEmitSteps runs as the stepper is attached, before its initial step is navigated")
    func readyToEmitStepsBeforeTheInitialStep() throws {
        let order = LockedLog<String>()
        let stepper = TestStepper("F.stepper", initialStep: Step("a")) { stepper in
            order.append("readyToEmitSteps")
            stepper.emit("b")
        }
        let flow = TestFlow("F") { step, _ in
            order.append("navigate \(step)")
            return .none
        }
        var machine = FlowCoordinatorStateMachine()

        let actions = try machine.coordinate(flow: flow, with: stepper)

        // RxFlow: stepper.readyToEmitSteps, F.navigate(a), F.navigate(b), coordinate() returned.
        #expect(order.elements == ["readyToEmitSteps", "navigate a", "navigate b"])
        #expect(actions.log.navigations == ["F: a", "F: b"])
        #expect(stepper.readyToEmitStepsCalls == 1)
    }

    @Test("R6: a step emitted in readyToEmitSteps runs before the flow's forwardToCurrentFlow")
    func forwardToCurrentFlowAfterTheStartUpSteps() throws {
        let flow = ScenarioFlow("F").on("a") { .one(flowContributor: .forwardToCurrentFlow(withStep: Step("c"))) }
        let stepper = ScenarioStepper("F.stepper", initial: "a", whenReady: ["b"])
        var machine = FlowCoordinatorStateMachine()

        let actions = try machine.coordinate(flow: flow, with: stepper)

        // RxFlow: a, b (the trampoline), then c (the next main-queue turn).
        #expect(actions.log.navigations == ["F: a", "F: b", "F: c"])
    }

    @Test("R1: a child's forward waits behind the parent's start-up step (P.a, C.c, P.b, P.y)")
    func childForwardWaitsBehindTheParentsStartUpStep() throws {
        let child = ScenarioFlow("C").on("c") { .one(flowContributor: .forwardToParentFlow(withStep: Step("y"))) }
        let parent = ScenarioFlow("P").on("a") {
            .one(flowContributor: Contribute.flow(child, OneStepper(withSingleStep: Step("c"))))
        }
        let stepper = ScenarioStepper("P.stepper", initial: "a", whenReady: ["b"])
        var machine = FlowCoordinatorStateMachine()

        let actions = try machine.coordinate(flow: parent, with: stepper)

        // RxFlow: P's queue holds a, b; C's queue c; they take turns: P.a, C.c, P.b, then y (queued to P behind b).
        #expect(actions.log.navigations == ["P: a", "C: c", "P: b", "P: y"])
    }

    @Test("R1: coordinators take turns, one step each (P.a, C.c, P.b, C.d)")
    func coordinatorsTakeTurns() throws {
        let child = ScenarioFlow("C")
        let parent = ScenarioFlow("P").on("a") {
            .one(flowContributor: Contribute.flow(child, ScenarioStepper("C.stepper", initial: "c", whenReady: ["d"])))
        }
        let stepper = ScenarioStepper("P.stepper", initial: "a", whenReady: ["b"])
        var machine = FlowCoordinatorStateMachine()

        let actions = try machine.coordinate(flow: parent, with: stepper)

        // One FIFO shared by the tree would give P.a, P.b, C.c, C.d.
        #expect(actions.log.navigations == ["P: a", "C: c", "P: b", "C: d"])
    }

    @Test("R1 (S10): a step emitted inside navigate joins its coordinator's queue in the same call")
    func stepEmittedInsideNavigateJoinsTheBurst() throws {
        let child = ScenarioFlow("C")
        let parentStepper = ScenarioStepper("P.stepper", initial: "a")
        let parent = ScenarioFlow("P").on("a") {
            parentStepper.steps.accept(Step("b"))
            return .one(flowContributor: Contribute.flow(child, OneStepper(withSingleStep: Step("c"))))
        }
        var machine = FlowCoordinatorStateMachine()

        let actions = try machine.coordinate(flow: parent, with: parentStepper)

        #expect(actions.log.navigations == ["P: a", "C: c", "P: b"])
    }

    @Test("R7: a contributor's step emitted in readyToEmitSteps goes through the visibility gate")
    func contributorStartUpStepIsGated() throws {
        let hidden = ScenarioStepper("hidden", whenReady: ["h"])
        let shown = ScenarioStepper("shown", whenReady: ["s"])
        let flow = ScenarioFlow("F").on("a") {
            .multiple(flowContributors: [Contribute.screen("hidden", hidden), Contribute.screen("shown", shown, notPresented: true)])
        }
        var machine = FlowCoordinatorStateMachine()

        let actions = try machine.coordinate(flow: flow, with: OneStepper(withSingleStep: Step("a")))

        #expect(actions.log.only("drop", "did navigate") == [
            "did navigate flow=F step=a",
            "drop h reason=notVisible flow#1 att#2",
            "did navigate flow=F step=s",
        ])
    }

    @Test("A stepper's step emitted outside the machine's calls reaches the relay's listeners, not the machine")
    func laterStepsGoToTheDriver() throws {
        let stepper = TestStepper("F.stepper", initialStep: Step("a"))
        var machine = FlowCoordinatorStateMachine()
        let heard = LockedLog<String>()
        machine.attachmentObserver = { attachment in
            attachment.stepper.steps.subscribe { heard.append("\(attachment.id) \($0)") }
        }
        _ = try machine.coordinate(flow: TestFlow("F"), with: stepper)
        #expect(heard.elements == [])

        stepper.emit("later")

        #expect(heard.elements == ["att#1 later"])
    }
}
