import FlowCore

/// The root flow: the window's navigation stack, holding the dashboard, with the onboarding presented over it.
///
/// - `dashboardIsRequired`: a new ``DashboardFlow`` whose tab bar is pushed (`Flows.use(.created)`), contributed
///   with `OneStepper(dashboardIsRequired)`.
/// - `onboardingIsRequired`: a new ``OnboardingFlow`` presented modally (`Flows.use(.created)`), contributed with
///   `OneStepper(loginIsRequired)`.
/// - `onboardingIsComplete`: dismisses what is presented (the onboarding, when there is one); `.none`.
public final class AppFlow: Flow {
    public let root = DemoScreens.app
    private let services: AppServices

    /// The root flow, sharing `services` with the flows it creates.
    public init(services: AppServices) {
        self.services = services
    }

    public func navigate(to step: Step, with navigator: Navigator) -> FlowContributors {
        switch DemoStep(step: step) {
        case .dashboardIsRequired:
            let dashboardFlow = DashboardFlow(services: services)
            Flows.use(dashboardFlow, when: .created, in: navigator) { [root] navigator in
                navigator.push(dashboardFlow.root, onto: root.id)
            }
            return .one(
                flowContributor: .contribute(
                    withNextPresentable: dashboardFlow,
                    withNextStepper: OneStepper(withSingleStep: DemoStep.dashboardIsRequired)
                )
            )
        case .onboardingIsRequired:
            let onboardingFlow = OnboardingFlow(services: services)
            Flows.use(onboardingFlow, when: .created, in: navigator) { [root] navigator in
                navigator.present(onboardingFlow.root, over: root.id)
            }
            return .one(
                flowContributor: .contribute(
                    withNextPresentable: onboardingFlow,
                    withNextStepper: OneStepper(withSingleStep: DemoStep.loginIsRequired)
                )
            )
        case .onboardingIsComplete:
            navigator.dismiss(presentedOver: root.id)
            return .none
        default:
            return .none
        }
    }
}

@available(*, unavailable)
extension AppFlow: Sendable {}
