import FlowCore

/// The onboarding, presented over the app: login, then API key.
///
/// - `loginIsRequired`: pushes the login screen, contributed with `.contribute(withNext:)`.
/// - `userIsLoggedIn`: pushes the API key screen with its ``ApiKeyViewModel``.
/// - `apiKeyIsFilledIn`: `.end(forwardToParentFlowWithStep: onboardingIsComplete)` (nothing emits it in the demo:
///   the onboarding ends when AppStepper sees the onboarding flag and AppFlow dismisses it).
public final class OnboardingFlow: Flow {
    public let root = DemoScreens.onboarding
    private let services: AppServices

    /// The onboarding, sharing `services` with its screens.
    public init(services: AppServices) {
        self.services = services
    }

    public func navigate(to step: Step, with navigator: Navigator) -> FlowContributors {
        switch DemoStep(step: step) {
        case .loginIsRequired:
            navigator.push(DemoScreens.onboardingLogin, onto: root.id)
            let login = LoginViewModel(presentableID: DemoScreens.onboardingLogin.id)
            return .one(flowContributor: .contribute(withNext: login))
        case .userIsLoggedIn:
            navigator.push(DemoScreens.onboardingApiKey, onto: root.id)
            return .one(
                flowContributor: .contribute(
                    withNextPresentable: DemoScreens.onboardingApiKey,
                    withNextStepper: ApiKeyViewModel(services: services)
                )
            )
        case .apiKeyIsFilledIn:
            return .end(forwardToParentFlowWithStep: DemoStep.onboardingIsComplete.step)
        default:
            return .none
        }
    }
}

@available(*, unavailable)
extension OnboardingFlow: Sendable {}
