/// What a presenter draws for each of the demo's views (their ``FlowCore/Screen/type``): the flows name them in
/// ``DemoScreens``, the presenter renders by them.
public enum DemoScreenType: Sendable {
    /// A login form (onboarding, settings' detail).
    public static let login = "Login"
    /// The API key form (onboarding, settings' detail).
    public static let apiKey = "ApiKey"
    /// The wishlist's movie list.
    public static let wishlistList = "WishlistList"
    /// A list of watched movies (the Watched tab, Trending's movie page).
    public static let watchedList = "WatchedList"
    /// Trending's page host.
    public static let trendingPages = "TrendingPages"
    /// Trending's list of every cast.
    public static let castList = "CastList"
    /// The settings list.
    public static let settingsList = "SettingsList"
    /// The About screen.
    public static let about = "About"
    /// A movie's detail; its data is the movie's id.
    public static let movieDetail = "MovieDetail"
    /// A cast's detail; its data is the cast's id.
    public static let castDetail = "CastDetail"
}
