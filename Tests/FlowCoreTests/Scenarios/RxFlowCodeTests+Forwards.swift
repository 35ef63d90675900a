import FlowCore
import Testing

extension RxFlowCodeTests {
    // RxFlow FlowCoordinator.coordinate: `.end` and `.forwardToParentFlow` are side effects run right after
    // `flow.navigate` returns, into the parent's inbox; the UI's dismissal of the flow's root that `navigate` started
    // comes later (rxDismissed is viewDidDisappear), so the parent gets the step whoever closed the screen.
    @Test("D18: a child flow that closes its own root and ends still hands the step to its parent")
    func childClosingItsOwnRootStillForwardsItsEnd() throws {
        let parent = ScenarioFlow("P")
        let child = ScenarioFlow("C")
        parent.on("a") { _, navigator in
            navigator.present(child.root, over: "P.root")
            return .one(flowContributor: Contribute.flow(child, OneStepper(withSingleStep: Step("b"))))
        }
        child.on("done") { _, navigator in
            navigator.dismiss(presentedOver: "P.root")
            return .end(forwardToParentFlowWithStep: Step("closed"))
        }
        child.on("up") { _, navigator in
            navigator.dismiss(presentedOver: "P.root")
            return .one(flowContributor: .forwardToParentFlow(withStep: Step("raised")))
        }
        for (step, forwarded) in [("done", "closed"), ("up", "raised")] {
            let harness = ScenarioHarness()
            _ = harness.keepUIModel()
            try harness.coordinate(parent, with: OneStepper(withSingleStep: Step("a")))
            _ = harness.takeLog()

            harness.deepLink(step)

            #expect(
                harness.takeLog().only("did navigate", "end", "drop") == [
                    "did navigate flow=P step=\(step)",
                    "did navigate flow=C step=\(step)",
                    "end flow#2 (rootDismissed)",
                    "did navigate flow=P step=\(forwarded)",
                ]
            )
        }
    }
}

extension RxFlowCodeTests {
    // RxFlow never marks a child ending on its first navigation ready (D16 differs); Flowd does, and a child whose
    // first navigation also closes its own root (D18) is such a child: its parent and the parent's block go on.
    @Test("D16, D18: a child whose first navigation closes its own root and ends is ready, and so is its parent")
    func childClosingItsOwnRootOnItsFirstNavigationIsReady() throws {
        #expect(
            try closingItsOwnRootOnItsFirstNavigation(returning: .end(forwardToParentFlowWithStep: Step("y")))
                .only("did navigate", "ready", "command push", "end") == [
                    "did navigate flow=P step=a",
                    "did navigate flow=C step=b",
                    "ready flow#2",
                    "ready flow#1",
                    "command push ready.screen onto P.root (flow#1)",
                    "end flow#2 (rootDismissed)",
                    "did navigate flow=P step=y",
                ]
        )
    }

    // RxFlow FlowCoordinator.coordinate: setReadiness runs right after `navigate` returns and its side effects, for
    // every FlowContributors (a child-less one fires ready at once); the dismissal that `navigate` started comes later
    // (rxDismissed is viewDidDisappear). So a child that closes its own root fires ready whatever it returns, and its
    // parent's zip completes: not only for `.end` (D16).
    @Test("D6, D18: a child whose first navigation closes its own root is ready, whatever it returns")
    func childClosingItsOwnRootIsReadyWhateverItReturns() throws {
        let returns: [(String, FlowContributors, [String])] = [
            ("none", .none, []),
            ("forward", .one(flowContributor: .forwardToParentFlow(withStep: Step("y"))), ["did navigate flow=P step=y"]),
            (
                "screen", .one(flowContributor: Contribute.screen("c.screen", OneStepper(withSingleStep: Step("z")))),
                ["drop z reason=flowEnded flow#2"]
            ),
        ]
        for (name, contributors, after) in returns {
            let log = try closingItsOwnRootOnItsFirstNavigation(returning: contributors)
            #expect(
                log.only("did navigate flow=P step=y", "ready", "command push", "end", "drop") == [
                    "ready flow#2",
                    "ready flow#1",
                    "command push ready.screen onto P.root (flow#1)",
                    "end flow#2 (rootDismissed)",
                ] + after,
                "\(name): \(log)"
            )
        }
    }

    /// The log of a parent P whose `a` presents child C and registers a `.ready` block on P, C's first step `b`
    /// dismissing C's own root and returning `contributors`, with the UI model kept (D18).
    private func closingItsOwnRootOnItsFirstNavigation(returning contributors: FlowContributors) throws -> [String] {
        let parent = ScenarioFlow("P")
        let child = ScenarioFlow("C")
        parent.on("a") { _, navigator in
            navigator.present(child.root, over: "P.root")
            Flows.use(parent, when: .ready, in: navigator) { navigator in
                navigator.push(.view("ready.screen", type: "View"), onto: "P.root")
            }
            return .one(flowContributor: Contribute.flow(child, OneStepper(withSingleStep: Step("b"))))
        }
        child.on("b") { _, navigator in
            navigator.dismiss(presentedOver: "P.root")
            return contributors
        }
        let harness = ScenarioHarness()
        _ = harness.keepUIModel()
        try harness.coordinate(parent, with: OneStepper(withSingleStep: Step("a")))
        return harness.takeLog()
    }
}

extension RxFlowCodeTests {
    // RxFlow FlowCoordinator.coordinate: `.end` accepts the step into the parent's stepsRelay as `navigate` returns,
    // before UIKit reports the dismissal `navigate` started, even when that dismissal takes the parent's root: the
    // parent navigates it on a UI it is losing, and what it hands its own parent goes up. Flowd ends the parent first
    // (its commands' removals are handled right after the navigation, D18), so the step finds no parent.
    @Test("D18: a step handed to a parent that the same navigation's commands ended is dropped noParentFlow")
    func stepHandedToAParentTheNavigationEndedIsDropped() throws {
        let app = ScenarioFlow("A")
        let checkout = ScenarioFlow("P")
        let payment = ScenarioFlow("C")
        let paymentStepper = ScenarioStepper("C.stepper", initial: "c")
        app.on("a") { _, navigator in
            navigator.present(checkout.root, over: "A.root")
            return .one(flowContributor: Contribute.flow(checkout, OneStepper(withSingleStep: Step("p"))))
        }
        checkout.on("p") { _, navigator in
            navigator.push(payment.root, onto: "P.root")
            return .one(flowContributor: Contribute.flow(payment, paymentStepper))
        }
        checkout.on("paid") { .end(forwardToParentFlowWithStep: Step("checkoutDone")) }
        payment.on("paid") { _, navigator in
            navigator.dismiss(presentedOver: "A.root")
            return .end(forwardToParentFlowWithStep: Step("paid"))
        }
        let harness = ScenarioHarness()
        _ = harness.keepUIModel()
        try harness.coordinate(app, with: OneStepper(withSingleStep: Step("a")))
        _ = harness.takeLog()

        harness.emit("paid", from: paymentStepper)

        #expect(
            harness.takeLog().only("did navigate", "end", "drop") == [
                "did navigate flow=C step=paid",
                "end flow#3 (parentEnded)",
                "end flow#2 (rootDismissed)",
                "drop paid reason=noParentFlow flow#3",
            ]
        )
    }
}

extension RxFlowCodeTests {
    // RxFlow Flows.use(when: .ready): the block subscribes to the flow's ready relay before `navigate` returns, and
    // setReadiness fires it as `navigate` returns, before UIKit reports the dismissal `navigate` started: a child's
    // block on itself, registered in the navigation that closes its own root, runs. Flowd marks the child ready before
    // it ends (D6, D18), so the block runs then, before the child's end; its commands come from the child. The
    // parent, waiting for that child, is ready too: its readiness is decided before the block's commands end the
    // child (it was left waiting forever, the child gone from its list before the check).
    @Test("D6, D18: a child's own .ready block, in the navigation closing its root, runs; its parent is ready")
    func childsReadyBlockOnItselfRunsBeforeItsRootClosingEndsIt() throws {
        let parent = ScenarioFlow("P")
        let child = ScenarioFlow("C")
        parent.on("a") { _, navigator in
            navigator.present(child.root, over: "P.root")
            return .one(flowContributor: Contribute.flow(child, OneStepper(withSingleStep: Step("b"))))
        }
        child.on("b") { _, navigator in
            navigator.dismiss(presentedOver: "P.root")
            Flows.use(child, when: .ready, in: navigator) { navigator in
                navigator.push(.view("P.note", type: "View"), onto: "P.root")
            }
            return .none
        }
        let harness = ScenarioHarness()
        _ = harness.keepUIModel()
        try harness.coordinate(parent, with: OneStepper(withSingleStep: Step("a")))

        #expect(
            harness.takeLog().only("ready", "command push", "end") == [
                "ready flow#2",
                "command push P.note onto P.root (flow#2)",
                "end flow#2 (rootDismissed)",
                "ready flow#1",
            ]
        )
    }
}
