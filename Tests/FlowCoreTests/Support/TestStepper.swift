import FlowCore
import Synchronization

/// A stepper driven by hand: ``emit(_:)`` accepts a step on its relay; it counts ``readyToEmitSteps()`` calls and
/// runs an optional hook there (to emit synchronously from inside it, or to log the call).
///
/// `Sendable`: its state is immutable or behind a `Mutex`, and the hook is `@Sendable`.
final class TestStepper: Stepper, CustomStringConvertible {
    let steps = StepRelay()
    let initialStep: Step
    /// The name used in logs and trees.
    let name: String
    private let readyCalls = Mutex(0)
    private let onReady: @Sendable (TestStepper) -> Void

    init(
        _ name: String = "TestStepper",
        initialStep: Step = .none,
        onReady: @escaping @Sendable (TestStepper) -> Void = { _ in }
    ) {
        self.name = name
        self.initialStep = initialStep
        self.onReady = onReady
    }

    func readyToEmitSteps() {
        readyCalls.withLock { $0 += 1 }
        onReady(self)
    }

    /// How many times ``readyToEmitSteps()`` was called.
    var readyToEmitStepsCalls: Int { readyCalls.withLock { $0 } }

    /// Emits `step` to the relay's current listeners.
    func emit(_ step: Step) { steps.accept(step) }

    /// Emits a step without payload named `name`.
    func emit(_ name: String) { steps.accept(Step(name)) }

    var description: String { name }
}
