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
