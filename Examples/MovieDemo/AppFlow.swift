import FlowCore
import MovieVocabulary

/// The root flow: the window's navigation stack, holding the dashboard, with the onboarding presented over it.
///
/// - `dashboardIsRequired`: a new ``DashboardFlow`` whose tab bar is pushed (`Flows.use(.created)`), contributed
///   with `OneStepper(dashboardIsRequired)`.
/// - `onboardingIsRequired`: a new ``OnboardingFlow`` presented modally (`Flows.use(.created)`), contributed with
///   `OneStepper(loginIsRequired)`.
/// - `onboardingIsComplete`: dismisses what is presented (the onboarding, when there is one); `.none`.
public final class AppFlow: Flow {
    public let root = DemoScreens.app
    private let steppers: any DemoSteppers

    /// The root flow; it and the flows it creates get their steppers from `steppers`. Coordinate it with
    /// `steppers.app()`.
    public init(steppers: any DemoSteppers) {
        self.steppers = steppers
    }

    /// The root flow with the in-process view models over `services` (``LocalDemoSteppers``).
    public convenience init(services: AppServices) {
        self.init(steppers: LocalDemoSteppers(services: services))
    }

    public func navigate(to step: Step, with navigator: Navigator) -> FlowContributors {
        switch DemoStep(step: step) {
        case .dashboardIsRequired:
            let dashboardFlow = DashboardFlow(steppers: steppers)
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
            let onboardingFlow = OnboardingFlow(steppers: steppers)
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

extension AppFlow: RestorableFlow {
    /// Nothing: the flow decides with its steppers' factory alone, which restoration gives again.
    public var state: NoState { NoState() }
}
