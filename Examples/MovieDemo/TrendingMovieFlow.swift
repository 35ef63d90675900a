import FlowCore
import MovieVocabulary

/// Trending's movie page: its root is a watched-movie list; details are pushed on TrendingFlow's stack (RxFlowDemo
/// pushes on `root.navigationController`).
///
/// - `moviesAreRequired`: contributes its root with ``DemoSteppers/trendingMovies(on:)`` (nothing is pushed).
/// - `movieIsPicked(id)`: pushes the movie's detail on the trending stack with ``DemoSteppers/movieDetail(_:on:)``.
/// - `castIsPicked(id)`: pushes the cast's detail on the trending stack; `.none`.
public final class TrendingMovieFlow: Flow {
    public let root = DemoScreens.trendingMovies
    private let steppers: any DemoSteppers
    private let navigationStack: PresentableID

    /// `navigationStack` is the stack the page lives in, where details are pushed; screens get their steppers from
    /// `steppers`.
    public init(steppers: any DemoSteppers, navigationStack: PresentableID) {
        self.steppers = steppers
        self.navigationStack = navigationStack
    }

    public func navigate(to step: Step, with navigator: Navigator) -> FlowContributors {
        switch DemoStep(step: step) {
        case .moviesAreRequired:
            let stepper = steppers.trendingMovies(on: root)
            return .one(flowContributor: .contribute(withNextPresentable: root, withNextStepper: stepper))
        case .movieIsPicked(let movieId):
            let detail = DemoScreens.movieDetail(movieId, in: "trending")
            navigator.push(detail, onto: navigationStack)
            return .one(
                flowContributor: .contribute(
                    withNextPresentable: detail,
                    withNextStepper: steppers.movieDetail(movieId, on: detail)
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

extension TrendingMovieFlow: RestorableFlow {
    /// The stack the page pushes details on.
    public var state: PresentableID { navigationStack }
}
