import FlowCore
import Logging
import Testing

/// RxFlow 2.13.2 `RxFlowTests/SyncronizableTests.swift` (test 38 of `rxflow-semantics.md` §2), translated.
///
/// RxFlow's `Synchronizable.synchronized` serialises blocks on one object with `objc_sync_enter`. FlowCore's
/// ``FlowCoordinator`` is an actor: concurrent calls into it (direct calls, and stepper emissions pumped by `run()`)
/// are handled one at a time, each navigation running to completion. Two concurrent tasks each emit a series of
/// steps; the log must show every navigation's will/did pair together, and each task's steps in its own order.
struct SynchronizeTests {
    private static let count = 200

    @Test(
        "RxFlow #38 testSynchronize: concurrent calls into the FlowCoordinator actor are serialised",
        .timeLimit(.minutes(1))
    )
    func synchronize() async throws {
        let coordinator = FlowCoordinator(logger: Logger(label: "RxFlowTests"))
        let log = ActionLogRecorder()
        await coordinator.observe { action in
            if action.isNavigationEvent { log.record(action) }
        }
        let events = await coordinator.didNavigate()
        let stepper = TestStepper("ScreenStepper")
        let count = Self.count

        await withDiscardingTaskGroup { group in
            group.addTask { await coordinator.run() }
            let flow = TestFlow("TestFlow") { step, _ in
                guard step == FlowStep.home else { return .none }
                return .one(
                    flowContributor: .contribute(
                        withNextPresentable: Screen.view("screen", type: "Screen"), withNextStepper: stepper,
                        allowStepWhenNotPresented: true
                    )
                )
            }
            do {
                try await coordinator.coordinate(flow: flow)
            } catch {
                Issue.record(error)
            }
            // Task A emits through the contributor's stepper (handled by `run()`), task B calls the actor directly.
            group.addTask {
                for number in 1...count { stepper.emit(Step("a", payload: .int(number))) }
            }
            group.addTask {
                for number in 1...count { await coordinator.navigate(to: Step("b", payload: .int(number))) }
            }
            var seen = 0
            for await _ in events {
                seen += 1
                if seen == 1 + 2 * count { break }
            }
            await coordinator.finish()
        }

        let lines = log.elements
        #expect(lines.count == 2 * (1 + 2 * count))
        // Every navigation is `will` immediately followed by its own `did`.
        let pairs = stride(from: 0, to: lines.count - 1, by: 2).map { (lines[$0], lines[$0 + 1]) }
        let broken = pairs.filter { will, did in
            !will.hasPrefix("will navigate ") || did != "did navigate " + will.dropFirst("will navigate ".count)
        }
        #expect(broken.map { "\($0.0) | \($0.1)" } == [])
        // Each task's steps arrive in the order it emitted them.
        let steps = pairs.map { $0.0.dropFirst("will navigate flow=TestFlow step=".count) }
        #expect(steps.first == "home")
        #expect(steps.filter { $0.hasPrefix("a(") } == (1...count).map { "a(\($0))"[...] })
        #expect(steps.filter { $0.hasPrefix("b(") } == (1...count).map { "b(\($0))"[...] })
    }
}
