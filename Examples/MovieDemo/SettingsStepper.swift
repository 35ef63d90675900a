import FlowCore
import MovieVocabulary

/// SettingsFlow's flow stepper: starts with `settingsAreRequired`; its Done button emits `settingsAreComplete`.
public final class SettingsStepper: Stepper, CustomStringConvertible {
    public let steps = StepRelay()

    /// A settings stepper.
    public init() {}

    public var initialStep: Step { DemoStep.settingsAreRequired.step }

    /// The Done button of the settings: `settingsAreComplete`.
    public func settingsDone() { steps.accept(DemoStep.settingsAreComplete) }

    public var description: String { "SettingsStepper" }
}
