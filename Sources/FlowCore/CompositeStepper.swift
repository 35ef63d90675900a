import Synchronization

/// Several steppers seen as one: RxFlow's `CompositeStepper(steppers:)`.
///
/// On ``readyToEmitSteps()`` it emits its inner steppers' initial steps in array order, then forwards every step they
/// emit. Unlike RxFlow (where a step an inner stepper emits synchronously inside its own `readyToEmitSteps()` is
/// lost, `docs/SEMANTICS.md` D5), it listens to the inner steppers *before* calling their `readyToEmitSteps()`, so
/// nothing is lost.
///
/// A coordinator does not attach a composite itself: it attaches each inner stepper (nested composites' too) on its
/// own, with the composite's presentable and `allowStep*` flags, and gives their steps the order above. So flowd
/// serves them as if each had been contributed alone: a ``RemoteStepper`` gets a stepper process, an
/// ``ActionHandlingStepper`` the person's actions. This type's own ``readyToEmitSteps()`` and ``steps`` merge them
/// only where the composite runs outside a coordinator (inside a stepper of your own); a step accepted on a
/// contributed composite's own relay is not heard (`docs/SEMANTICS.md` R12).
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
