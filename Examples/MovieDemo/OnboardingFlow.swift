import FlowCore
import MovieVocabulary

/// The onboarding, presented over the app: login, then API key.
///
/// - `loginIsRequired`: pushes the login screen, contributed with ``DemoSteppers/login(on:)``.
/// - `userIsLoggedIn`: pushes the API key screen with ``DemoSteppers/apiKey(on:)``.
/// - `apiKeyIsFilledIn`: `.end(forwardToParentFlowWithStep: onboardingIsComplete)` (nothing emits it in the demo:
///   the onboarding ends when AppStepper sees the onboarding flag and AppFlow dismisses it).
/// - `alert(message)`: presents an alert over the onboarding (the login service's answer to a wrong password).
public final class OnboardingFlow: Flow {
    public let root = DemoScreens.onboarding
    private let steppers: any DemoSteppers

    /// The onboarding; its screens get their steppers from `steppers`.
    public init(steppers: any DemoSteppers) {
        self.steppers = steppers
    }

    public func navigate(to step: Step, with navigator: Navigator) -> FlowContributors {
        switch DemoStep(step: step) {
        case .loginIsRequired:
            let login = DemoScreens.onboardingLogin
            navigator.push(login, onto: root.id)
            return .one(
                flowContributor: .contribute(withNextPresentable: login, withNextStepper: steppers.login(on: login))
            )
        case .userIsLoggedIn:
            let apiKey = DemoScreens.onboardingApiKey
            navigator.push(apiKey, onto: root.id)
            return .one(
                flowContributor: .contribute(withNextPresentable: apiKey, withNextStepper: steppers.apiKey(on: apiKey))
            )
        case .apiKeyIsFilledIn:
            return .end(forwardToParentFlowWithStep: DemoStep.onboardingIsComplete.step)
        case .alert(let message):
            navigator.present(DemoScreens.onboardingAlert(message), over: root.id)
            return .none
        default:
            return .none
        }
    }
}

@available(*, unavailable)
extension OnboardingFlow: Sendable {}

extension OnboardingFlow: RestorableFlow {
    /// Nothing: the flow decides with its steppers' factory alone, which restoration gives again.
    public var state: NoState { NoState() }
}
