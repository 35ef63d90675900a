import FlowCore

/// The Wishlist tab: the movie list, details, the settings and the About screen.
///
/// ``adapt(step:)`` counts `aboutIsRequired`: the 1st, 3rd, 5th… become `unauthorized`, the others go through.
///
/// - `moviesAreRequired`: pushes the list; contributes it with a ``WishlistViewModel``,
///   `allowStepWhenNotPresented: true` (as RxFlowDemo).
/// - `movieIsPicked(id)`: pushes the movie's detail with a ``MovieDetailViewModel``.
/// - `castIsPicked(id)`: pushes the cast's detail; `.none`.
/// - `settingsAreRequired`: a new ``SettingsFlow`` presented modally (`Flows.use(.created)`), contributed with a
///   new ``SettingsStepper``.
/// - `settingsAreComplete`, `aboutIsComplete`: dismisses what is presented; `.none`.
/// - `aboutIsRequired`: presents the About screen, `.contribute(withNext:)` an ``AboutViewModel``.
/// - `unauthorized`: presents an alert; `.none`.
/// - `fakeStep`: nothing (RxFlowDemo prints it); `.none`.
public final class WishlistFlow: Flow {
    public let root = DemoScreens.wishlist
    private let services: AppServices
    private let wishlistStepper: WishlistStepper
    private var aboutRequests = 0

    /// `wishlistStepper` is the gear button's stepper, part of this flow's flow stepper.
    public init(services: AppServices, wishlistStepper: WishlistStepper) {
        self.services = services
        self.wishlistStepper = wishlistStepper
    }

    public func adapt(step: Step) -> Adaptation {
        guard DemoStep(step: step) == .aboutIsRequired else { return .step(step) }
        aboutRequests += 1
        return .step(aboutRequests % 2 == 1 ? DemoStep.unauthorized.step : step)
    }

    public func navigate(to step: Step, with navigator: Navigator) -> FlowContributors {
        switch DemoStep(step: step) {
        case .moviesAreRequired:
            navigator.push(DemoScreens.wishlistList, onto: root.id)
            return .one(
                flowContributor: .contribute(
                    withNextPresentable: DemoScreens.wishlistList,
                    withNextStepper: WishlistViewModel(services: services),
                    allowStepWhenNotPresented: true
                )
            )
        case .movieIsPicked(let movieId):
            let detail = DemoScreens.movieDetail(movieId, in: "wishlist")
            navigator.push(detail, onto: root.id)
            return .one(
                flowContributor: .contribute(
                    withNextPresentable: detail,
                    withNextStepper: MovieDetailViewModel(movieId: movieId, services: services)
                )
            )
        case .castIsPicked(let castId):
            navigator.push(DemoScreens.castDetail(castId, in: "wishlist"), onto: root.id)
            return .none
        case .settingsAreRequired:
            let settingsStepper = SettingsStepper()
            let settingsFlow = SettingsFlow(services: services)
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
            navigator.present(DemoScreens.wishlistAbout, over: root.id)
            let about = AboutViewModel(presentableID: DemoScreens.wishlistAbout.id)
            return .one(flowContributor: .contribute(withNext: about))
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
