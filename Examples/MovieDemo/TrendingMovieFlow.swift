import FlowCore

/// Trending's movie page: its root is a watched-movie list; details are pushed on TrendingFlow's stack (RxFlowDemo
/// pushes on `root.navigationController`).
///
/// - `moviesAreRequired`: contributes its root with a ``WatchedViewModel`` (nothing is pushed).
/// - `movieIsPicked(id)`: pushes the movie's detail on the trending stack with a ``MovieDetailViewModel``.
/// - `castIsPicked(id)`: pushes the cast's detail on the trending stack; `.none`.
public final class TrendingMovieFlow: Flow {
    public let root = DemoScreens.trendingMovies
    private let services: AppServices
    private let navigationStack: PresentableID

    /// `navigationStack` is the stack the page lives in, where details are pushed.
    public init(services: AppServices, navigationStack: PresentableID) {
        self.services = services
        self.navigationStack = navigationStack
    }

    public func navigate(to step: Step, with navigator: Navigator) -> FlowContributors {
        switch DemoStep(step: step) {
        case .moviesAreRequired:
            let viewModel = WatchedViewModel(services: services)
            return .one(flowContributor: .contribute(withNextPresentable: root, withNextStepper: viewModel))
        case .movieIsPicked(let movieId):
            let detail = DemoScreens.movieDetail(movieId, in: "trending")
            navigator.push(detail, onto: navigationStack)
            return .one(
                flowContributor: .contribute(
                    withNextPresentable: detail,
                    withNextStepper: MovieDetailViewModel(movieId: movieId, services: services)
                )
            )
        case .castIsPicked(let castId):
            navigator.push(DemoScreens.castDetail(castId, in: "trending"), onto: navigationStack)
            return .none
        default:
            return .none
        }
    }
}

@available(*, unavailable)
extension TrendingMovieFlow: Sendable {}
