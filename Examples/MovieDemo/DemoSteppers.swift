import FlowCore
import MovieVocabulary

/// Where the demo's flows get their steppers: one method per stepper role.
///
/// The flows decide what is shown and which stepper role goes with it; the factory decides what stands behind the
/// role. ``LocalDemoSteppers`` gives today's in-process view models (the RxFlow demo in one process);
/// ``RemoteDemoSteppers`` gives ``FlowCore/RemoteStepper``s served by the login and movie services and
/// ``FlowCore/ActionStepper``s for plain buttons (the demo in `flowd`). The same flows run with either.
///
/// A method is called when its flow navigates, once per contribution; the stepper it returns is used for that
/// contribution only.
public protocol DemoSteppers: Sendable {
    /// AppFlow's flow stepper: starts with `dashboardIsRequired`, then follows the login state
    /// (`onboardingIsRequired` / `onboardingIsComplete`).
    func app() -> any Stepper

    /// WishlistFlow's flow stepper: starts with `moviesAreRequired`.
    func wishlistFlow() -> any Stepper

    /// The wishlist's movie list: pick a movie, About, Settings, Logout. Several steppers make a `.multiple`
    /// contribution on the same screen.
    func wishlistList(on screen: Screen) -> [any Stepper]

    /// The Watched tab's movie list: pick a movie.
    func watchedList(on screen: Screen) -> any Stepper

    /// TrendingFlow's flow stepper: starts with `trendingsAreRequired`.
    func trendingFlow() -> any Stepper

    /// Trending's movie page: pick a movie.
    func trendingMovies(on screen: Screen) -> any Stepper

    /// Trending's cast page: pick a cast.
    func castList(on screen: Screen) -> any Stepper

    /// A movie's detail: pick one of its casts.
    func movieDetail(_ movieId: Int, on screen: Screen) -> any Stepper

    /// A login form (onboarding and settings): Proceed emits `userIsLoggedIn` once the user is checked.
    func login(on screen: Screen) -> any Stepper

    /// The API key form: setting the key completes the onboarding (AppFlow's stepper then emits
    /// `onboardingIsComplete`).
    func apiKey(on screen: Screen) -> any Stepper

    /// SettingsFlow's flow stepper: starts with `settingsAreRequired`.
    func settingsFlow() -> any Stepper

    /// The settings list: its rows ask for the login, API key or About detail.
    func settingsList(on screen: Screen) -> any Stepper

    /// The settings' Done button, as a contributor on the settings' root, when ``settingsFlow()`` does not emit
    /// `settingsAreComplete` itself; `nil` otherwise.
    func settingsDone(on screen: Screen) -> (any Stepper)?

    /// The About screen: Done emits `aboutIsComplete`.
    func about(on screen: Screen) -> any Stepper
}

extension FlowContributors {
    /// `.one` contribution of `presentable` with a single stepper, `.multiple` with several (in order), `.none` with
    /// none.
    static func contribute(
        _ presentable: any Presentable,
        with steppers: [any Stepper],
        allowStepWhenNotPresented: Bool = false
    ) -> FlowContributors {
        let contributors = steppers.map { stepper in
            FlowContributor.contribute(
                withNextPresentable: presentable, withNextStepper: stepper,
                allowStepWhenNotPresented: allowStepWhenNotPresented
            )
        }
        switch contributors.count {
        case 0: return .none
        case 1: return .one(flowContributor: contributors[0])
        default: return .multiple(flowContributors: contributors)
        }
    }
}

/// The demo in one process: RxFlowDemo's view models and steppers, sharing ``AppServices``.
///
/// `Sendable`: the services are.
public struct LocalDemoSteppers: DemoSteppers {
    /// The services the view models use.
    public let services: AppServices

    /// View models over `services`.
    public init(services: AppServices) {
        self.services = services
    }

    /// An ``AppStepper`` following the onboarding flag.
    public func app() -> any Stepper { AppStepper(preferencesService: services.preferencesService) }

    /// `CompositeStepper([OneStepper(moviesAreRequired), WishlistStepper])`: the gear button is part of the flow's
    /// stepper, as in RxFlowDemo.
    public func wishlistFlow() -> any Stepper {
        CompositeStepper(steppers: [OneStepper(withSingleStep: DemoStep.moviesAreRequired), WishlistStepper()])
    }

    /// A ``WishlistViewModel`` (pick, About, Logout).
    public func wishlistList(on screen: Screen) -> [any Stepper] { [WishlistViewModel(services: services)] }

    /// A ``WatchedViewModel``.
    public func watchedList(on screen: Screen) -> any Stepper { WatchedViewModel(services: services) }

    /// A ``TrendingStepper``.
    public func trendingFlow() -> any Stepper { TrendingStepper() }

    /// A ``WatchedViewModel`` (RxFlowDemo reuses the watched list).
    public func trendingMovies(on screen: Screen) -> any Stepper { WatchedViewModel(services: services) }

    /// A ``CastListViewModel``.
    public func castList(on screen: Screen) -> any Stepper { CastListViewModel(services: services) }

    /// A ``MovieDetailViewModel``.
    public func movieDetail(_ movieId: Int, on screen: Screen) -> any Stepper {
        MovieDetailViewModel(movieId: movieId, services: services)
    }

    /// A ``LoginViewModel`` for `screen`.
    public func login(on screen: Screen) -> any Stepper { LoginViewModel(presentableID: screen.id) }

    /// An ``ApiKeyViewModel``.
    public func apiKey(on screen: Screen) -> any Stepper { ApiKeyViewModel(services: services) }

    /// A ``SettingsStepper`` (its Done button emits `settingsAreComplete`).
    public func settingsFlow() -> any Stepper { SettingsStepper() }

    /// A ``SettingsListViewModel`` for `screen`.
    public func settingsList(on screen: Screen) -> any Stepper { SettingsListViewModel(presentableID: screen.id) }

    /// `nil`: ``SettingsStepper`` has the Done button.
    public func settingsDone(on screen: Screen) -> (any Stepper)? { nil }

    /// An ``AboutViewModel`` for `screen`.
    public func about(on screen: Screen) -> any Stepper { AboutViewModel(presentableID: screen.id) }
}
