import FlowCore
import MovieVocabulary

/// The demo in `flowd`: services behind ``FlowCore/RemoteStepper``s, plain buttons behind
/// ``FlowCore/ActionStepper``s handled in the daemon, and the flows' own starting steppers.
///
/// | role | stepper |
/// |---|---|
/// | app | `RemoteStepper(login.app, initialStep: dashboardIsRequired)` |
/// | wishlist list | `RemoteStepper(movies.wishlist)` and `RemoteStepper(login.logout)` (`.multiple`) |
/// | watched list | `RemoteStepper(movies.watched)` |
/// | trending movies | `RemoteStepper(movies.trending)` |
/// | cast list | `RemoteStepper(movies.castList)` |
/// | movie detail | `RemoteStepper(movies.detail)`, context `{"movie": id}` |
/// | login form, API key | `RemoteStepper(login.form)`, `RemoteStepper(login.apiKey)` |
/// | settings list | `ActionStepper(login → loginIsRequired, apiKey → apiKeyIsRequired, about → aboutIsRequired)` |
/// | settings Done | `ActionStepper(done → settingsAreComplete)` on the settings' split view |
/// | About | `ActionStepper(done → aboutIsComplete)` |
/// | wishlist flow | `OneStepper(moviesAreRequired)` (the gear is the wishlist list's `settings` action) |
/// | trending flow | ``TrendingStepper`` |
/// | settings flow | `OneStepper(settingsAreRequired)` |
///
/// `Sendable`: no state.
public struct RemoteDemoSteppers: DemoSteppers {
    /// The factory; it holds nothing.
    public init() {}

    public func app() -> any Stepper {
        RemoteStepper(kind: DemoStepperKind.loginApp, initialStep: DemoStep.dashboardIsRequired.step)
    }

    public func wishlistFlow() -> any Stepper { OneStepper(withSingleStep: DemoStep.moviesAreRequired) }

    public func wishlistList(on screen: Screen) -> [any Stepper] {
        [RemoteStepper(kind: DemoStepperKind.moviesWishlist), RemoteStepper(kind: DemoStepperKind.loginLogout)]
    }

    public func watchedList(on screen: Screen) -> any Stepper { RemoteStepper(kind: DemoStepperKind.moviesWatched) }

    public func trendingFlow() -> any Stepper { TrendingStepper() }

    public func trendingMovies(on screen: Screen) -> any Stepper {
        RemoteStepper(kind: DemoStepperKind.moviesTrending)
    }

    public func castList(on screen: Screen) -> any Stepper { RemoteStepper(kind: DemoStepperKind.moviesCastList) }

    public func movieDetail(_ movieId: Int, on screen: Screen) -> any Stepper {
        RemoteStepper(kind: DemoStepperKind.moviesDetail, context: ["movie": .int(movieId)])
    }

    public func login(on screen: Screen) -> any Stepper { RemoteStepper(kind: DemoStepperKind.loginForm) }

    public func apiKey(on screen: Screen) -> any Stepper { RemoteStepper(kind: DemoStepperKind.loginApiKey) }

    public func settingsFlow() -> any Stepper { OneStepper(withSingleStep: DemoStep.settingsAreRequired) }

    public func settingsList(on screen: Screen) -> any Stepper {
        ActionStepper([
            DemoAction.login: DemoStep.loginIsRequired.step,
            DemoAction.apiKey: DemoStep.apiKeyIsRequired.step,
            DemoAction.about: DemoStep.aboutIsRequired.step,
        ])
    }

    public func settingsDone(on screen: Screen) -> (any Stepper)? {
        ActionStepper([DemoAction.done: DemoStep.settingsAreComplete.step])
    }

    public func about(on screen: Screen) -> any Stepper {
        ActionStepper([DemoAction.done: DemoStep.aboutIsComplete.step])
    }
}
