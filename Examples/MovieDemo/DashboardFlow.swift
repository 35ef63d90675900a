import FlowCore
import MovieVocabulary

/// The dashboard: a tab bar with the Wishlist, Watched and Trending flows.
///
/// - `dashboardIsRequired`: creates the three tab flows, sets them as tabs (`Flows.use(.created)` + `setTabs`) and
///   returns `.multiple`: WishlistFlow with ``DemoSteppers/wishlistFlow()`` (in one process
///   `CompositeStepper([OneStepper(moviesAreRequired), WishlistStepper])`), WatchedFlow with
///   `OneStepper(moviesAreRequired)`, TrendingFlow with ``DemoSteppers/trendingFlow()``.
public final class DashboardFlow: Flow {
    public let root = DemoScreens.dashboard
    private let steppers: any DemoSteppers

    /// The dashboard, handing `steppers` to its tab flows.
    public init(steppers: any DemoSteppers) {
        self.steppers = steppers
    }

    public func navigate(to step: Step, with navigator: Navigator) -> FlowContributors {
        guard DemoStep(step: step) == .dashboardIsRequired else { return .none }
        let wishlistFlow = WishlistFlow(steppers: steppers)
        let watchedFlow = WatchedFlow(steppers: steppers)
        let trendingFlow = TrendingFlow(steppers: steppers)
        Flows.use(wishlistFlow, watchedFlow, trendingFlow, when: .created, in: navigator) { [root] navigator in
            navigator.setTabs(root.id, [wishlistFlow.root, watchedFlow.root, trendingFlow.root], selected: 0)
        }
        return .multiple(
            .contribute(withNextPresentable: wishlistFlow, withNextStepper: steppers.wishlistFlow()),
            .contribute(
                withNextPresentable: watchedFlow,
                withNextStepper: OneStepper(withSingleStep: DemoStep.moviesAreRequired)
            ),
            .contribute(withNextPresentable: trendingFlow, withNextStepper: steppers.trendingFlow())
        )
    }
}

@available(*, unavailable)
extension DashboardFlow: Sendable {}

extension DashboardFlow: RestorableFlow {
    /// Nothing: the flow decides with its steppers' factory alone, which restoration gives again.
    public var state: NoState { NoState() }
}
