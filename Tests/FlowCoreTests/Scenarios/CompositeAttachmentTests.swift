import FlowCore
import Testing

/// R12: a contributed `CompositeStepper` is attached as its inner steppers, each on its own with the composite's
/// presentable and flags, so a driver can serve each (a `RemoteStepper`'s process, an `ActionStepper`'s actions).
struct CompositeAttachmentTests {
    @Test("R12: nested composites are attached stepper by stepper; their steps come in RxFlow's merge order")
    func nestedCompositesInMergeOrder() throws {
        let flow = ScenarioFlow("F")
        let late = ScenarioStepper("late", initial: "n2", whenReady: ["n3"])
        let nested = CompositeStepper(steppers: [OneStepper(withSingleStep: Step("n1")), late])
        let outerFirst = ScenarioStepper("first", initial: "o1", whenReady: ["o2"])
        let composite = CompositeStepper(steppers: [outerFirst, nested, OneStepper(withSingleStep: Step("o3"))])
        flow.on("a") { .one(flowContributor: Contribute.screen("s", composite, notPresented: true)) }
        let harness = ScenarioHarness()
        try harness.coordinate(flow, with: OneStepper(withSingleStep: Step("a")))
        harness.emit("n4", from: late)

        let log = harness.takeLog()
        #expect(
            log.only("attach") == [
                "attach att#1 OneStepper(a) on F.root (flow)",
                "attach att#2 first on s (contributor)",
                "attach att#3 OneStepper(n1) on s (contributor)",
                "attach att#4 late on s (contributor)",
                "attach att#5 OneStepper(o3) on s (contributor)",
            ]
        )
        // RxFlow: outer.readyToEmitSteps emits its inner initial steps (o1, o3; the nested composite's is none),
        // then readies each inner stepper in order: first (o2), the nested composite (n1, n2, then late's n3).
        #expect(log.navigations == ["F: a", "F: o1", "F: o3", "F: o2", "F: n1", "F: n2", "F: n3", "F: n4"])
        #expect(late.readyToEmitStepsCount == 1)
    }

    @Test("R12: the inner steppers share the contribution's gate and end: all detached when the screen is dismissed")
    func innerSteppersShareTheGateAndTheEnd() throws {
        let flow = ScenarioFlow("F")
        let remote = RemoteStepper(kind: "k", initialStep: Step("r0"))
        let buttons = ActionStepper(["tap": Step("tapped")])
        let composite = CompositeStepper(steppers: [remote, buttons])
        flow.on("a") { .one(flowContributor: Contribute.screen("s", composite)) }
        let harness = ScenarioHarness()
        try harness.coordinate(flow, with: OneStepper(withSingleStep: Step("a")))

        let attached = harness.machine.attachments(on: "s")
        #expect(attached.map(\.stepper.stepperDescription) == ["RemoteStepper(k)", "ActionStepper(tap)"])
        #expect(attached.allSatisfy { $0.role == .contributor && !$0.allowStepWhenNotPresented })
        // Hidden: the composite's inner initial step is an ordinary step, dropped (D8); so is an action's step.
        buttons.handle(action: Step("tap"))
        harness.pump()
        #expect(
            harness.takeLog().only("drop") == [
                "drop r0 reason=notVisible flow#1 att#2", "drop tapped reason=notVisible flow#1 att#3",
            ])
        harness.show("s")
        buttons.handle(action: Step("tap"))
        harness.pump()
        harness.handle(.stepperEmitted(attached[0].id, Step("remote")))
        #expect(harness.takeLog().navigations == ["F: tapped", "F: remote"])

        harness.dismiss("s")
        #expect(
            harness.takeLog().only("detach") == [
                "detach att#2 (presentableDismissed)", "detach att#3 (presentableDismissed)",
            ])
        #expect(!harness.isListening(to: buttons))
    }

    @Test("R12: an empty composite attaches nothing, and the contribution still shows its screen")
    func emptyCompositeAttachesNothing() throws {
        let flow = ScenarioFlow("F")
        flow.on("a") { .one(flowContributor: Contribute.screen("s", CompositeStepper(steppers: []))) }
        flow.on("b") { .none }
        let harness = ScenarioHarness()
        let own = OneStepper(withSingleStep: Step("a"))
        try harness.coordinate(flow, with: own)

        #expect(harness.takeLog().only("attach") == ["attach att#1 OneStepper(a) on F.root (flow)"])
        #expect(harness.machine.attachments(on: "s").isEmpty)
        // The next stepper attached takes the next number: the empty composite took none.
        flow.on("c") { .one(flowContributor: Contribute.screen("t", OneStepper(withSingleStep: Step("b")))) }
        harness.deepLink("c")
        #expect(harness.takeLog().only("attach") == ["attach att#2 OneStepper(b) on t (contributor)"])
    }

    @Test("R12: the same stepper twice in a composite is two attachments, and each of its steps is heard twice")
    func sameStepperTwiceIsTwoAttachments() throws {
        let flow = ScenarioFlow("F")
        let twice = ScenarioStepper("twice", initial: "i", whenReady: ["r"])
        flow.on("a") {
            .one(flowContributor: Contribute.screen("s", CompositeStepper(steppers: [twice, twice]), notPresented: true))
        }
        let harness = ScenarioHarness()
        try harness.coordinate(flow, with: OneStepper(withSingleStep: Step("a")))
        harness.emit("later", from: twice)

        let log = harness.takeLog()
        #expect(
            log.only("attach") == [
                "attach att#1 OneStepper(a) on F.root (flow)",
                "attach att#2 twice on s (contributor)",
                "attach att#3 twice on s (contributor)",
            ])
        // RxFlow's merge subscribes to it twice: its initial step, what it emits when ready (it is readied twice)
        // and its later steps all come once per subscription.
        #expect(log.navigations == ["F: a", "F: i", "F: i", "F: r", "F: r", "F: r", "F: r", "F: later", "F: later"])
        #expect(twice.readyToEmitStepsCount == 2)
    }

    @Test("R12: a step accepted on a contributed composite's own relay is not heard; its inner steppers' are")
    func compositesOwnRelayIsNotHeard() throws {
        let flow = ScenarioFlow("F")
        let inner = ScenarioStepper("inner")
        let composite = CompositeStepper(steppers: [inner])
        flow.on("a") { .one(flowContributor: Contribute.screen("s", composite, notPresented: true)) }
        let harness = ScenarioHarness()
        try harness.coordinate(flow, with: OneStepper(withSingleStep: Step("a")))
        _ = harness.takeLog()

        harness.emit("own", from: composite)
        #expect(harness.takeLog().isEmpty)
        harness.emit("inner", from: inner)
        #expect(harness.takeLog().navigations == ["F: inner"])
        #expect(!harness.isListening(to: composite))
    }
}
