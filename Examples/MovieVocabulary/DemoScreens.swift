import FlowCore

/// The demo's screens and containers, with stable IDs: `<area>.<screen>[.<id>]`.
///
/// The containers stand for RxFlowDemo's view controllers: the app's and each tab's `UINavigationController`
/// (stacks), the dashboard's `UITabBarController` (tabs), Trending's page host (a tab bar whose pages are the two
/// nested flows' roots) and Settings' `UISplitViewController` (a split view whose master is a stack).
public enum DemoScreens: Sendable {
    // MARK: App and onboarding

    /// AppFlow's root: the window's navigation stack (bar hidden).
    public static let app = Screen.stack("app.stack")
    /// OnboardingFlow's root, presented over the app.
    public static let onboarding = Screen.stack("onboarding.stack")
    /// The onboarding's login screen.
    public static let onboardingLogin = Screen.view("onboarding.login", type: DemoScreenType.login)
    /// The onboarding's API key screen.
    public static let onboardingApiKey = Screen.view("onboarding.apikey", type: DemoScreenType.apiKey)
    /// The alert OnboardingFlow presents for `alert(message)` (the login service's answer to a wrong password).
    public static func onboardingAlert(_ message: String) -> Screen { .alert("onboarding.alert", message: message) }

    // MARK: Dashboard

    /// DashboardFlow's root: the tab bar, pushed on the app's stack.
    public static let dashboard = Screen.tabs("dashboard.tabs")

    /// WishlistFlow's root (tab 0).
    public static let wishlist = Screen.stack("wishlist.stack")
    /// The wishlist's movie list.
    public static let wishlistList = Screen.view("wishlist.list", type: DemoScreenType.wishlistList)
    /// The About screen, presented over the wishlist.
    public static let wishlistAbout = Screen.view("wishlist.about", type: DemoScreenType.about)
    /// The alert shown when the About screen is refused.
    public static let wishlistUnauthorized = Screen.alert(
        "wishlist.alert", message: "You are not authorized to see the About screen"
    )

    /// WatchedFlow's root (tab 1).
    public static let watched = Screen.stack("watched.stack")
    /// The watched movie list.
    public static let watchedList = Screen.view("watched.list", type: DemoScreenType.watchedList)

    /// TrendingFlow's root (tab 2).
    public static let trending = Screen.stack("trending.stack")
    /// Trending's page host, whose two pages are the roots of TrendingMovieFlow and CastListFlow.
    public static let trendingPages = Screen(id: "trending.pages", kind: .tabs, type: DemoScreenType.trendingPages)
    /// TrendingMovieFlow's root: a watched-movie list (RxFlowDemo reuses its `WatchedViewController`).
    public static let trendingMovies = Screen.view("trending.movies", type: DemoScreenType.watchedList)
    /// CastListFlow's root: the list of every cast.
    public static let trendingCasts = Screen.view("trending.casts", type: DemoScreenType.castList)

    // MARK: Settings

    /// SettingsFlow's root, presented over the wishlist.
    public static let settings = Screen.split("settings.split")
    /// The split view's master: a navigation stack holding the settings list.
    public static let settingsMaster = Screen.stack("settings.master")
    /// The settings list (rows: login, API key, about).
    public static let settingsList = Screen.view("settings.list", type: DemoScreenType.settingsList)
    /// The login screen shown as the split view's detail.
    public static let settingsLogin = Screen.view("settings.login", type: DemoScreenType.login)
    /// The API key screen shown as the split view's detail.
    public static let settingsApiKey = Screen.view("settings.apikey", type: DemoScreenType.apiKey)
    /// The About screen shown as the split view's detail.
    public static let settingsAbout = Screen.view("settings.about", type: DemoScreenType.about)

    /// The alert SettingsFlow presents for `alert(message)`.
    public static func settingsAlert(_ message: String) -> Screen { .alert("settings.alert", message: message) }

    // MARK: Details

    /// A movie's detail, pushed in an area (`wishlist`, `watched`, `trending`): `wishlist.movie.23452`.
    public static func movieDetail(_ movieId: Int, in area: String) -> Screen {
        .view(PresentableID("\(area).movie.\(movieId)"), type: DemoScreenType.movieDetail, data: .int(movieId))
    }

    /// A cast's detail, pushed in an area: `wishlist.cast.4`.
    public static func castDetail(_ castId: Int, in area: String) -> Screen {
        .view(PresentableID("\(area).cast.\(castId)"), type: DemoScreenType.castDetail, data: .int(castId))
    }
}
