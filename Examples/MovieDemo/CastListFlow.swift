import FlowCore

/// Trending's cast page: its root is the list of every cast; a cast's detail is pushed on TrendingFlow's stack.
///
/// - `castListAreRequired`: contributes its root with a ``CastListViewModel`` (nothing is pushed).
/// - `castIsPicked(id)`: pushes the cast's detail on the trending stack; `.none`.
public final class CastListFlow: Flow {
    public let root = DemoScreens.trendingCasts
    private let services: AppServices
    private let navigationStack: PresentableID

    /// `navigationStack` is the stack the page lives in, where details are pushed.
    public init(services: AppServices, navigationStack: PresentableID) {
        self.services = services
        self.navigationStack = navigationStack
    }

    public func navigate(to step: Step, with navigator: Navigator) -> FlowContributors {
        switch DemoStep(step: step) {
        case .castListAreRequired:
            let viewModel = CastListViewModel(services: services)
            return .one(flowContributor: .contribute(withNextPresentable: root, withNextStepper: viewModel))
        case .castIsPicked(let castId):
            navigator.push(DemoScreens.castDetail(castId, in: "trending"), onto: navigationStack)
            return .none
        default:
            return .none
        }
    }
}

@available(*, unavailable)
extension CastListFlow: Sendable {}
