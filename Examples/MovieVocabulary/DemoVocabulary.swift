public import FlowCore

/// What the movie demo declares it speaks (`DESCRIBE`, `flowctl describe`): every ``DemoStep``, the stepper kinds
/// its flows attach with the steps their services emit, and its screen types with the actions a presenter sends.
///
/// `Sendable`: no state.
public enum DemoVocabulary: Sendable {
    /// The whole declaration.
    public static let application = ApplicationVocabulary(
        steps: steps, stepperKinds: stepperKinds, screenTypes: screens
    )

    private static let movieID = #"<int: a movie id>, or {"id": <int>}"#
    private static let castID = #"<int: a cast id>, or {"id": <int>}"#

    static let steps: [ApplicationVocabulary.StepEntry] = [
        .init("dashboardIsRequired", summary: "AppFlow shows the dashboard (login.app's initial step)"),
        .init("onboardingIsRequired", summary: "AppFlow presents the onboarding (no valid, onboarded token)"),
        .init("onboardingIsComplete", summary: "AppFlow dismisses the onboarding"),
        .init("loginIsRequired", summary: "the login screen (onboarding's first, or the settings' detail)"),
        .init("userIsLoggedIn", summary: "the API key screen follows the login"),
        .init("apiKeyIsRequired", summary: "the settings show the API key screen"),
        .init("apiKeyIsFilledIn", summary: "the onboarding ends; the settings go back to their list"),
        .init("alert", payload: "<string: the message>", summary: "an alert over the flow's root"),
        .init("logoutIsRequired", summary: "RxFlowDemo's; unused"),
        .init("fakeStep", summary: "RxFlowDemo's; unused"),
        .init("unauthorized", summary: "the wishlist's About refused: an alert"),
        .init("moviesAreRequired", summary: "the wishlist shows its list"),
        .init("movieIsPicked", payload: "<int: a movie id>", summary: "a movie's detail is pushed"),
        .init("castIsPicked", payload: "<int: a cast id>", summary: "a cast's detail is pushed"),
        .init("settingsAreRequired", summary: "the settings are presented over the wishlist"),
        .init("settingsAreComplete", summary: "the settings end"),
        .init("aboutIsRequired", summary: "the About screen"),
        .init("aboutIsComplete", summary: "the About screen closes"),
        .init("trendingsAreRequired", summary: "Trending builds its pages"),
        .init("castListAreRequired", summary: "the cast list page"),
    ]

    static let stepperKinds: [ApplicationVocabulary.StepperKindEntry] = [
        .init(
            DemoStepperKind.loginApp, steps: ["onboardingIsRequired", "onboardingIsComplete"],
            summary: "AppFlow's own stepper (login service): the session's login state on attach and on every change"
        ),
        .init(
            DemoStepperKind.loginForm, steps: ["userIsLoggedIn", "alert"],
            summary: "a login form: proceed logs in, or answers wrong credentials with an alert"
        ),
        .init(DemoStepperKind.loginApiKey, steps: [], summary: "the API key form: setApiKey (login.app follows)"),
        .init(DemoStepperKind.loginLogout, steps: [], summary: "the wishlist's logout (login.app follows)"),
        .init(
            DemoStepperKind.moviesWishlist, steps: ["movieIsPicked", "aboutIsRequired", "settingsAreRequired"],
            summary: "the wishlist (movie service)"
        ),
        .init(DemoStepperKind.moviesWatched, steps: ["movieIsPicked"], summary: "the watched list (movie service)"),
        .init(DemoStepperKind.moviesTrending, steps: ["movieIsPicked"], summary: "Trending's movies (movie service)"),
        .init(
            DemoStepperKind.moviesDetail, steps: ["castIsPicked"],
            summary: #"a movie's detail (movie service); context {"movie": <int>}"#
        ),
        .init(DemoStepperKind.moviesCastList, steps: ["castIsPicked"], summary: "Trending's cast list (movie service)"),
    ]

    static let screens: [ApplicationVocabulary.ScreenEntry] = [
        .init(
            DemoScreenType.login,
            actions: [
                .init(
                    DemoAction.proceed, payload: #"{"user": <string>, "password": <string>}"#,
                    summary: "logs in (users demo/demo, alice/wonderland); a wrong password shows an alert"
                )
            ]
        ),
        .init(
            DemoScreenType.apiKey,
            actions: [
                .init(DemoAction.setApiKey, payload: #"{"key": <string, not empty>}"#, summary: "completes the onboarding")
            ]
        ),
        .init(
            DemoScreenType.wishlistList,
            actions: [
                .init(DemoAction.pick, payload: movieID, summary: "a movie of the wishlist"),
                .init(DemoAction.about, summary: "the About screen (refused with an alert the first time)"),
                .init(DemoAction.settings, summary: "the settings"),
                .init(DemoAction.logout, summary: "revokes the session's token: the onboarding comes back"),
            ]
        ),
        .init(
            DemoScreenType.watchedList, actions: [.init(DemoAction.pick, payload: movieID, summary: "a movie of the list")]
        ),
        .init(DemoScreenType.castList, actions: [.init(DemoAction.pick, payload: castID, summary: "a cast")]),
        .init(
            DemoScreenType.movieDetail, data: "<int: the movie id>",
            actions: [.init(DemoAction.pickCast, payload: castID, summary: "a cast of the movie")]
        ),
        .init(DemoScreenType.castDetail, data: "<int: the cast id>"),
        .init(
            DemoScreenType.settingsList,
            actions: [
                .init(DemoAction.login, summary: "the login screen as the detail"),
                .init(DemoAction.apiKey, summary: "the API key screen as the detail"),
                .init(DemoAction.about, summary: "the About screen as the detail"),
            ]
        ),
        .init(DemoScreenType.about, actions: [.init(DemoAction.done, summary: "closes it")]),
        .init("split", kind: "split", actions: [.init(DemoAction.done, summary: "the settings' Done: ends them")]),
        .init("alert", kind: "alert", data: "<string: the message>"),
        .init("stack", kind: "stack"),
        .init("tabs", kind: "tabs"),
        .init(DemoScreenType.trendingPages, kind: "tabs"),
    ]
}
