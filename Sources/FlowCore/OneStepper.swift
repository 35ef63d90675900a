/// A stepper that only has an initial step: RxFlow's `OneStepper(withSingleStep:)`.
public final class OneStepper: Stepper, CustomStringConvertible {
    public let steps = StepRelay()
    public let initialStep: Step

    /// Makes a stepper whose only step is `step`.
    public init(withSingleStep step: Step) {
        self.initialStep = step
    }

    /// Makes a stepper whose only step is an application step.
    public convenience init(withSingleStep step: some StepConvertible) {
        self.init(withSingleStep: step.step)
    }

    public var description: String { "OneStepper(\(initialStep))" }
}

/// The step a ``DefaultStepper`` starts with: RxFlow's `RxFlowStep.home`.
public enum FlowStep: Sendable {
    /// `"home"`, RxFlow's `RxFlowStep.home`.
    public static let home = Step("home")
}

/// The stepper a flow gets when none is given: a ``OneStepper`` with ``FlowStep/home``.
public final class DefaultStepper: Stepper, CustomStringConvertible {
    public let steps = StepRelay()
    public var initialStep: Step { FlowStep.home }

    public init() {}

    public var description: String { "DefaultStepper" }
}

/// A stepper that never emits: RxFlow's internal `NoneStepper`.
public final class NoneStepper: Stepper, CustomStringConvertible {
    public let steps = StepRelay()

    public init() {}

    public var description: String { "NoneStepper" }
}
