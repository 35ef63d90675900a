import FlowCore

/// The dashboard: a tab bar with the Wishlist, Watched and Trending flows.
///
/// - `dashboardIsRequired`: creates the three tab flows, sets them as tabs (`Flows.use(.created)` + `setTabs`) and
///   returns `.multiple`: WishlistFlow with `CompositeStepper([OneStepper(moviesAreRequired), WishlistStepper])`,
///   WatchedFlow with `OneStepper(moviesAreRequired)`, TrendingFlow with a ``TrendingStepper``.
public final class DashboardFlow: Flow {
    public let root = DemoScreens.dashboard
    private let services: AppServices

    /// The dashboard, sharing `services` with its tab flows.
    public init(services: AppServices) {
        self.services = services
    }

    public func navigate(to step: Step, with navigator: Navigator) -> FlowContributors {
        guard DemoStep(step: step) == .dashboardIsRequired else { return .none }
        let wishlistStepper = WishlistStepper()
        let trendingStepper = TrendingStepper()
        let wishlistFlow = WishlistFlow(services: services, wishlistStepper: wishlistStepper)
        let watchedFlow = WatchedFlow(services: services)
        let trendingFlow = TrendingFlow(services: services)
        Flows.use(wishlistFlow, watchedFlow, trendingFlow, when: .created, in: navigator) { [root] navigator in
            navigator.setTabs(root.id, [wishlistFlow.root, watchedFlow.root, trendingFlow.root], selected: 0)
        }
        return .multiple(
            .contribute(
                withNextPresentable: wishlistFlow,
                withNextStepper: CompositeStepper(steppers: [
                    OneStepper(withSingleStep: DemoStep.moviesAreRequired), wishlistStepper,
                ])
            ),
            .contribute(
                withNextPresentable: watchedFlow,
                withNextStepper: OneStepper(withSingleStep: DemoStep.moviesAreRequired)
            ),
            .contribute(withNextPresentable: trendingFlow, withNextStepper: trendingStepper)
        )
    }
}

@available(*, unavailable)
extension DashboardFlow: Sendable {}
