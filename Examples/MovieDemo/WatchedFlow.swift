import FlowCore

/// The Watched tab: the watched-movie list and details.
///
/// - `moviesAreRequired`: pushes the list with a ``WatchedViewModel``.
/// - `movieIsPicked(id)`: pushes the movie's detail with a ``MovieDetailViewModel``.
/// - `castIsPicked(id)`: pushes the cast's detail; `.none`.
public final class WatchedFlow: Flow {
    public let root = DemoScreens.watched
    private let services: AppServices

    /// The Watched tab, sharing `services` with its screens.
    public init(services: AppServices) {
        self.services = services
    }

    public func navigate(to step: Step, with navigator: Navigator) -> FlowContributors {
        switch DemoStep(step: step) {
        case .moviesAreRequired:
            navigator.push(DemoScreens.watchedList, onto: root.id)
            return .one(
                flowContributor: .contribute(
                    withNextPresentable: DemoScreens.watchedList, withNextStepper: WatchedViewModel(services: services)
                )
            )
        case .movieIsPicked(let movieId):
            let detail = DemoScreens.movieDetail(movieId, in: "watched")
            navigator.push(detail, onto: root.id)
            return .one(
                flowContributor: .contribute(
                    withNextPresentable: detail,
                    withNextStepper: MovieDetailViewModel(movieId: movieId, services: services)
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
