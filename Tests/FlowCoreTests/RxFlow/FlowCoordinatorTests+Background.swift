import Dispatch
import FlowCore
import Logging
import Testing

// RxFlow #10: adaptations completed on a background queue.
extension FlowCoordinatorTests {
    // MARK: - #10

    /// Completes with `step` from a serial dispatch queue (RxFlow's test adapts on a background serial queue).
    private static func completeInBackground(_ step: Step, on queue: DispatchQueue) async -> Step {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: step) }
        }
    }

    /// The flows of #10: `AppFlow` adapts `home` to `dashboard` in the background, then contributes `ChildFlow`
    /// (which adapts in the background too) and registers a `Flows.use(.ready)` block on it. Both check that
    /// `navigate` runs in `coordinator`'s isolation.
    private static func backgroundAdaptingFlows(
        coordinator: FlowCoordinator,
        background: DispatchQueue,
        navigatedInIsolation: LockedLog<String>
    ) -> TestFlow {
        let childFlow = TestFlow(
            "ChildFlow",
            adapt: { step in .later { await Self.completeInBackground(step, on: background) } },
            navigate: { step, _ in
                // Traps (fails the run) if `navigate` is called outside the coordinator's isolation.
                coordinator.preconditionIsolated("ChildFlow.navigate outside the FlowCoordinator")
                navigatedInIsolation.append("ChildFlow:\(step)")
                return .none
            }
        )
        let childRoot = childFlow.root
        let appFlow = TestFlow(
            "AppFlow",
            adapt: { step in
                let adapted = step == FlowStep.home ? Step("dashboard") : step
                return .later { await Self.completeInBackground(adapted, on: background) }
            },
            navigate: { [childFlow] step, navigator in
                coordinator.preconditionIsolated("AppFlow.navigate outside the FlowCoordinator")
                navigatedInIsolation.append("AppFlow:\(step)")
                Flows.use(childFlow, when: .ready, in: navigator) { navigator in
                    navigator.showDetail("AppFlow.root", childRoot)
                }
                return .one(
                    flowContributor: .contribute(
                        withNextPresentable: childFlow,
                        withNextStepper: OneStepper(withSingleStep: Step("childHome"))
                    )
                )
            }
        )
        return appFlow
    }

    /// RxFlow checks that `navigate` runs on the main thread although `adapt` emits on a background queue. Flowd's
    /// equivalent of the main thread is the ``FlowCoordinator`` actor: the adaptations complete on a dispatch queue,
    /// their results come back through `run()`, and both flows' `navigate` must run in the actor's isolation
    /// (`preconditionIsolated` traps otherwise); the `Flows.use(.ready)` block must then fire. The test waits on the
    /// action stream for the root's readiness, never on time.
    @Test(
        "RxFlow #10 testNavigate_executes_on_mainThread: navigate in the actor after a background adapt; .ready fires",
        .timeLimit(.minutes(1))
    )
    func navigateExecutesInTheCoordinatorIsolation() async throws {
        let coordinator = FlowCoordinator(logger: Logger(label: "RxFlowTests"))
        let background = DispatchQueue(label: "RxFlowTests.adapt")
        let navigatedInIsolation = LockedLog<String>()
        let actions = await coordinator.actions()

        var log: [String] = []
        await withDiscardingTaskGroup { group in
            group.addTask { await coordinator.run() }
            do {
                try await coordinator.coordinate(
                    flow: Self.backgroundAdaptingFlows(
                        coordinator: coordinator, background: background, navigatedInIsolation: navigatedInIsolation
                    )
                )
            } catch {
                Issue.record(error)
            }
            // Wait for the `Flows.use(.ready)` block's command, then for the root's readiness.
            for await action in actions {
                log.append(action.description)
                if case .flowReady(FlowCoordinatorID(1)) = action { break }
            }
            await coordinator.finish()
        }

        #expect(navigatedInIsolation.elements == ["AppFlow:dashboard", "ChildFlow:childHome"])
        #expect(
            log == [
                "start AppFlow flow#1",
                "command setRoot AppFlow.root (flow#1)",
                "attach att#1 DefaultStepper on AppFlow.root (flow)",
                "adapt adapt#1 flow#1 home",
                "will navigate flow=AppFlow step=dashboard",
                "did navigate flow=AppFlow step=dashboard",
                "start ChildFlow flow#2 parent=flow#1",
                "attach att#2 OneStepper(childHome) on ChildFlow.root (flow)",
                "adapt adapt#2 flow#2 childHome",
                "will navigate flow=ChildFlow step=childHome",
                "did navigate flow=ChildFlow step=childHome",
                "ready flow#2",
                "command showDetail AppFlow.root ChildFlow.root (flow#1)",
                "ready flow#1",
            ]
        )
    }
}
