import FlowCore
import MovieVocabulary

/// A login screen, presentable and stepper at once (RxFlowDemo's `SettingsLoginViewController`): its Proceed button
/// emits `userIsLoggedIn`. Used by the onboarding and by the settings.
public final class LoginViewModel: Stepper, Presentable, CustomStringConvertible {
    public let steps = StepRelay()
    public let presentableID: PresentableID

    /// The login screen shown as `presentableID`.
    public init(presentableID: PresentableID) {
        self.presentableID = presentableID
    }

    /// The Proceed button: `userIsLoggedIn`.
    public func proceed() { steps.accept(DemoStep.userIsLoggedIn) }

    public var description: String { "LoginViewModel" }
}
