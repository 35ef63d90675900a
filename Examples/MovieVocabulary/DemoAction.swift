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
