import FlowCore
import MovieVocabulary

/// Part of WishlistFlow's flow stepper: the settings (gear) button of the wishlist's navigation bar.
public final class WishlistStepper: Stepper, CustomStringConvertible {
    public let steps = StepRelay()

    /// A gear button stepper.
    public init() {}

    /// The gear button: `settingsAreRequired`.
    public func settingsAreRequired() { steps.accept(DemoStep.settingsAreRequired) }

    public var description: String { "WishlistStepper" }
}
