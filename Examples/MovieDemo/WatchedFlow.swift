import FlowCore
import MovieVocabulary

/// The Watched tab: the watched-movie list and details.
///
/// - `moviesAreRequired`: pushes the list with ``DemoSteppers/watchedList(on:)``.
/// - `movieIsPicked(id)`: pushes the movie's detail with ``DemoSteppers/movieDetail(_:on:)``.
/// - `castIsPicked(id)`: pushes the cast's detail; `.none`.
public final class WatchedFlow: Flow {
    public let root = DemoScreens.watched
    private let steppers: any DemoSteppers

    /// The Watched tab; its screens get their steppers from `steppers`.
    public init(steppers: any DemoSteppers) {
        self.steppers = steppers
    }

    public func navigate(to step: Step, with navigator: Navigator) -> FlowContributors {
        switch DemoStep(step: step) {
        case .moviesAreRequired:
            let list = DemoScreens.watchedList
            navigator.push(list, onto: root.id)
            return .one(
                flowContributor: .contribute(withNextPresentable: list, withNextStepper: steppers.watchedList(on: list))
            )
        case .movieIsPicked(let movieId):
            let detail = DemoScreens.movieDetail(movieId, in: "watched")
            navigator.push(detail, onto: root.id)
            return .one(
                flowContributor: .contribute(
                    withNextPresentable: detail,
                    withNextStepper: steppers.movieDetail(movieId, on: detail)
                )
            )
        case .castIsPicked(let castId):
            navigator.push(DemoScreens.castDetail(castId, in: "watched"), onto: root.id)
            return .none
        default:
            return .none
        }
    }
}

@available(*, unavailable)
extension WatchedFlow: Sendable {}

extension WatchedFlow: RestorableFlow {
    /// Nothing: the flow decides with its steppers' factory alone, which restoration gives again.
    public var state: NoState { NoState() }
}
