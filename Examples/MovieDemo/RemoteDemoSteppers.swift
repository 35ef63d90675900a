import FlowCore

/// The stepper kinds the demo's services serve (`serves` in their `HELLO`).
public enum DemoStepperKind: Sendable {
    /// AppFlow's flow stepper (login service): `onboardingIsRequired` without a valid session token,
    /// `onboardingIsComplete` once logged in and onboarded; on attach and on every change.
    public static let loginApp = "login.app"
    /// A login form (login service): ``DemoAction/proceed`` checks the user and emits `userIsLoggedIn`.
    public static let loginForm = "login.form"
    /// The API key form (login service): ``DemoAction/setApiKey`` completes the onboarding.
    public static let loginApiKey = "login.apiKey"
    /// The wishlist's Logout button (login service): ``DemoAction/logout`` revokes the session token.
    public static let loginLogout = "login.logout"

    /// The wishlist (movie service): ``DemoAction/pick``, ``DemoAction/about``, ``DemoAction/settings``.
    public static let moviesWishlist = "movies.wishlist"
    /// The watched list (movie service): ``DemoAction/pick``.
    public static let moviesWatched = "movies.watched"
    /// Trending's movie page (movie service): ``DemoAction/pick``.
    public static let moviesTrending = "movies.trending"
    /// A movie's detail (movie service): ``DemoAction/pickCast``; the attachment's context is `{"movie": <id>}`.
    public static let moviesDetail = "movies.detail"
    /// Trending's cast page (movie service): ``DemoAction/pick``.
    public static let moviesCastList = "movies.castList"

    /// The kinds the login service serves.
    public static let login = [loginApp, loginForm, loginApiKey, loginLogout]
    /// The kinds the movie service serves.
    public static let movies = [moviesWishlist, moviesWatched, moviesTrending, moviesDetail, moviesCastList]
}

/// The names of the actions a presenter sends (`USER_ACTION`) on the demo's screens.
public enum DemoAction: Sendable {
    /// Pick a movie (payload: its id) on a movie list, or a cast (payload: its id) on Trending's cast page.
    public static let pick = "pick"
    /// Pick a cast (payload: its id) on a movie detail.
    public static let pickCast = "pickCast"
    /// The wishlist's About button.
    public static let about = "about"
    /// The wishlist's Settings (gear) button.
    public static let settings = "settings"
    /// The wishlist's Logout button.
    public static let logout = "logout"
    /// A login form's Proceed button (payload: `{"user": …, "password": …}`).
    public static let proceed = "proceed"
    /// The API key form's Validate button (payload: `{"key": …}`).
    public static let setApiKey = "setApiKey"
    /// Done: on the settings' split view and on the About screen.
    public static let done = "done"
    /// The settings list's Login row.
    public static let login = "login"
    /// The settings list's API key row.
    public static let apiKey = "apiKey"
}

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
