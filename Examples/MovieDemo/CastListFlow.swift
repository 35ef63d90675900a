import FlowCore
import MovieVocabulary

/// Trending's cast page: its root is the list of every cast; a cast's detail is pushed on TrendingFlow's stack.
///
/// - `castListAreRequired`: contributes its root with ``DemoSteppers/castList(on:)`` (nothing is pushed).
/// - `castIsPicked(id)`: pushes the cast's detail on the trending stack; `.none`.
public final class CastListFlow: Flow {
    public let root = DemoScreens.trendingCasts
    private let steppers: any DemoSteppers
    private let navigationStack: PresentableID

    /// `navigationStack` is the stack the page lives in, where details are pushed; the page gets its stepper from
    /// `steppers`.
    public init(steppers: any DemoSteppers, navigationStack: PresentableID) {
        self.steppers = steppers
        self.navigationStack = navigationStack
    }

    public func navigate(to step: Step, with navigator: Navigator) -> FlowContributors {
        switch DemoStep(step: step) {
        case .castListAreRequired:
            let stepper = steppers.castList(on: root)
            return .one(flowContributor: .contribute(withNextPresentable: root, withNextStepper: stepper))
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

extension CastListFlow: RestorableFlow {
    /// The stack the page pushes details on.
    public var state: PresentableID { navigationStack }
}
