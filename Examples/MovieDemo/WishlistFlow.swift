import FlowCore
import MovieVocabulary

/// The Wishlist tab: the movie list, details, the settings and the About screen.
///
/// ``adapt(step:)`` counts `aboutIsRequired`: the 1st, 3rd, 5th… become `unauthorized`, the others go through.
///
/// - `moviesAreRequired`: pushes the list; contributes it with ``DemoSteppers/wishlistList(on:)`` (one
///   ``WishlistViewModel`` in one process; the movie and logout services in `flowd`, `.multiple`),
///   `allowStepWhenNotPresented: true` (as RxFlowDemo).
/// - `movieIsPicked(id)`: pushes the movie's detail with ``DemoSteppers/movieDetail(_:on:)``.
/// - `castIsPicked(id)`: pushes the cast's detail; `.none`.
/// - `settingsAreRequired`: a new ``SettingsFlow`` presented modally (`Flows.use(.created)`), contributed with
///   ``DemoSteppers/settingsFlow()``.
/// - `settingsAreComplete`, `aboutIsComplete`: dismisses what is presented; `.none`.
/// - `aboutIsRequired`: presents the About screen, contributed with ``DemoSteppers/about(on:)``.
/// - `unauthorized`: presents an alert; `.none`.
/// - `fakeStep`: nothing (RxFlowDemo prints it); `.none`.
public final class WishlistFlow: Flow {
    public let root = DemoScreens.wishlist
    private let steppers: any DemoSteppers
    private var aboutRequests = 0

    /// The Wishlist tab; its screens get their steppers from `steppers`. Its own flow stepper is
    /// ``DemoSteppers/wishlistFlow()`` (which, in one process, holds the gear button).
    public init(steppers: any DemoSteppers) {
        self.steppers = steppers
    }

    /// The tab as saved: `aboutRequests` About requests counted so far.
    init(steppers: any DemoSteppers, aboutRequests: Int) {
        self.steppers = steppers
        self.aboutRequests = aboutRequests
    }

    public func adapt(step: Step) -> Adaptation {
        guard DemoStep(step: step) == .aboutIsRequired else { return .step(step) }
        aboutRequests += 1
        return .step(aboutRequests % 2 == 1 ? DemoStep.unauthorized.step : step)
    }

    public func navigate(to step: Step, with navigator: Navigator) -> FlowContributors {
        switch DemoStep(step: step) {
        case .moviesAreRequired:
            let list = DemoScreens.wishlistList
            navigator.push(list, onto: root.id)
            return .contribute(list, with: steppers.wishlistList(on: list), allowStepWhenNotPresented: true)
        case .movieIsPicked(let movieId):
            let detail = DemoScreens.movieDetail(movieId, in: "wishlist")
            navigator.push(detail, onto: root.id)
            return .one(
                flowContributor: .contribute(
                    withNextPresentable: detail,
                    withNextStepper: steppers.movieDetail(movieId, on: detail)
                )
            )
        case .castIsPicked(let castId):
            navigator.push(DemoScreens.castDetail(castId, in: "wishlist"), onto: root.id)
            return .none
        case .settingsAreRequired:
            let settingsStepper = steppers.settingsFlow()
            let settingsFlow = SettingsFlow(steppers: steppers)
            Flows.use(settingsFlow, when: .created, in: navigator) { [root] navigator in
                navigator.present(settingsFlow.root, over: root.id)
            }
            return .one(
                flowContributor: .contribute(withNextPresentable: settingsFlow, withNextStepper: settingsStepper)
            )
        case .settingsAreComplete, .aboutIsComplete:
            navigator.dismiss(presentedOver: root.id)
            return .none
        case .aboutIsRequired:
            let about = DemoScreens.wishlistAbout
            navigator.present(about, over: root.id)
            return .one(
                flowContributor: .contribute(withNextPresentable: about, withNextStepper: steppers.about(on: about))
            )
        case .unauthorized:
            navigator.present(DemoScreens.wishlistUnauthorized, over: root.id)
            return .none
        default:
            return .none
        }
    }
}

@available(*, unavailable)
extension WishlistFlow: Sendable {}

extension WishlistFlow: RestorableFlow {
    /// What ``adapt(step:)`` decides with.
    public struct State: Codable, Hashable, Sendable {
        public var aboutRequests: Int
    }

    public var state: State { State(aboutRequests: aboutRequests) }
}
