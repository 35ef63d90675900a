import FlowCore
import MovieVocabulary

/// TrendingFlow's flow stepper: only its initial step, `trendingsAreRequired`.
public final class TrendingStepper: Stepper, CustomStringConvertible {
    public let steps = StepRelay()

    /// A trending stepper.
    public init() {}

    public var initialStep: Step { DemoStep.trendingsAreRequired.step }

    public var description: String { "TrendingStepper" }
}

extension TrendingStepper: RestorableStepper {
    public var state: NoState { NoState() }
}
