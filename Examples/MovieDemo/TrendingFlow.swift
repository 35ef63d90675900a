import FlowCore
import MovieVocabulary

/// The Trending tab: a page host whose two pages are nested flows, TrendingMovieFlow and CastListFlow.
///
/// - `trendingsAreRequired`: pushes the page host, creates the two page flows, sets them as the host's pages once
///   both are ready (`Flows.use(.ready)`), and returns `.multiple` with both, each with a `OneStepper` and
///   `allowStepWhenDismissed: true` (pages may be "dismissed" when swiped away, RxFlow S14).
public final class TrendingFlow: Flow {
    public let root = DemoScreens.trending
    private let steppers: any DemoSteppers

    /// The Trending tab, handing `steppers` to its page flows.
    public init(steppers: any DemoSteppers) {
        self.steppers = steppers
    }

    public func navigate(to step: Step, with navigator: Navigator) -> FlowContributors {
        guard DemoStep(step: step) == .trendingsAreRequired else { return .none }
        let pages = DemoScreens.trendingPages
        navigator.push(pages, onto: root.id)
        let trendingMovieFlow = TrendingMovieFlow(steppers: steppers, navigationStack: root.id)
        let castListFlow = CastListFlow(steppers: steppers, navigationStack: root.id)
        Flows.use(trendingMovieFlow, castListFlow, when: .ready, in: navigator) { navigator in
            navigator.setTabs(pages.id, [trendingMovieFlow.root, castListFlow.root], selected: 0)
        }
        return .multiple(
            .contribute(
                withNextPresentable: trendingMovieFlow,
                withNextStepper: OneStepper(withSingleStep: DemoStep.moviesAreRequired),
                allowStepWhenDismissed: true
            ),
            .contribute(
                withNextPresentable: castListFlow,
                withNextStepper: OneStepper(withSingleStep: DemoStep.castListAreRequired),
                allowStepWhenDismissed: true
            )
        )
    }
}

@available(*, unavailable)
extension TrendingFlow: Sendable {}

extension TrendingFlow: RestorableFlow {
    /// Nothing: the flow decides with its steppers' factory alone, which restoration gives again.
    public var state: NoState { NoState() }
}
