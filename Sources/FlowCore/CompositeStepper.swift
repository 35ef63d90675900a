import Synchronization

/// Several steppers seen as one: RxFlow's `CompositeStepper(steppers:)`.
///
/// On ``readyToEmitSteps()`` it emits its inner steppers' initial steps in array order, then forwards every step they
/// emit. Unlike RxFlow (where a step an inner stepper emits synchronously inside its own `readyToEmitSteps()` is
/// lost, `docs/SEMANTICS.md` D5), it listens to the inner steppers *before* calling their `readyToEmitSteps()`, so
/// nothing is lost.
///
/// Its inner steppers only emit steps: flowd attaches a ``RemoteStepper`` to a stepper process, and hands a person's
/// actions to an ``ActionHandlingStepper``, only when it is the contributed stepper itself, not inside a composite
/// (give the screen one contribution per such stepper, with `.multiple`).
///
/// `Sendable`: the subscriptions are behind a `Mutex`; the inner steppers are `Sendable`.
public final class CompositeStepper: Stepper, CustomStringConvertible {
    public let steps = StepRelay()
    /// The steppers combined, in order.
    public let innerSteppers: [any Stepper]
    private let subscriptions = Mutex<[StepRelay.Subscription]>([])

    /// Combines `steppers`.
    public init(steppers: [any Stepper]) {
        self.innerSteppers = steppers
    }

    public func readyToEmitSteps() {
        for stepper in innerSteppers where !stepper.initialStep.isNone {
            steps.accept(stepper.initialStep)
        }
        let relay = steps
        let added = innerSteppers.map { stepper in
            stepper.steps.subscribe { step in relay.accept(step) }
        }
        subscriptions.withLock { $0.append(contentsOf: added) }
        for stepper in innerSteppers { stepper.readyToEmitSteps() }
    }

    public var description: String {
        "CompositeStepper[" + innerSteppers.map(\.stepperDescription).joined(separator: ", ") + "]"
    }

    deinit {
        let subscriptions = self.subscriptions.withLock { $0 }
        for (stepper, subscription) in zip(innerSteppers, subscriptions) {
            stepper.steps.cancel(subscription)
        }
    }
}
