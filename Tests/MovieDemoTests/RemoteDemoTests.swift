import FlowCore
import FlowDaemon
import MovieDemo
import MovieVocabulary
import MovieServices
import Testing

/// The movie demo in `flowd`: ``MovieDemoApplication`` in FlowDaemon's ``DaemonCore``, with the login and movie
/// services' logic and a truthful presenter as in-memory peers exchanging encoded messages
/// (``InMemoryDemoSystem``).
struct RemoteDemoTests {
    static let launchLog = [
        "did navigate flow=AppFlow step=dashboardIsRequired",
        "did navigate flow=DashboardFlow step=dashboardIsRequired",
        "did navigate flow=WishlistFlow step=moviesAreRequired",
        "did navigate flow=WatchedFlow step=moviesAreRequired",
        "did navigate flow=TrendingFlow step=trendingsAreRequired",
        "did navigate flow=TrendingMovieFlow step=moviesAreRequired",
        "did navigate flow=CastListFlow step=castListAreRequired",
    ]

    static let wishlistShown: [PresentableID] = ["app.stack", "dashboard.tabs", "wishlist.stack", "wishlist.list"]

    static let demoUser: JSONValue = ["user": "demo", "password": "demo"]

    /// Every peer connected, the onboarding presented.
    func connectedSystem(tokenLifetime: Duration = .seconds(3600)) -> InMemoryDemoSystem {
        let system = InMemoryDemoSystem(tokenLifetime: tokenLifetime)
        system.connectLoginService()
        system.connectMovieService()
        system.connectPresenter()
        return system
    }

    /// Every peer connected, logged in with the API key set: the wishlist is shown.
    func onboardedSystem(tokenLifetime: Duration = .seconds(3600)) -> InMemoryDemoSystem {
        let system = connectedSystem(tokenLifetime: tokenLifetime)
        system.act(DemoAction.proceed, on: "onboarding.login", payload: Self.demoUser)
        system.act(DemoAction.setApiKey, on: "onboarding.apikey", payload: ["key": "k"])
        return system
    }

    /// The log lines after the first `count`.
    func log(of system: InMemoryDemoSystem, after count: Int) -> [String] {
        Array(system.didNavigate.dropFirst(count))
    }

    @Test func theDashboardIsBuiltAtOnceAndTheOnboardingWaitsForTheLoginService() {
        let system = InMemoryDemoSystem()
        #expect(system.didNavigate == Self.launchLog)
        system.connectMovieService()
        system.connectPresenter()
        #expect(system.didNavigate == Self.launchLog)
        system.connectLoginService()
        #expect(
            log(of: system, after: Self.launchLog.count) == [
                "did navigate flow=AppFlow step=onboardingIsRequired",
                "did navigate flow=OnboardingFlow step=loginIsRequired",
            ]
        )
        #expect(system.presentation.visiblePresentables == ["onboarding.stack", "onboarding.login"])
    }

    @Test func theOnboardingGoesThroughTheLoginServiceAndEndsOnTheWishlist() {
        let system = connectedSystem()
        let start = system.didNavigate.count
        #expect(system.act(DemoAction.proceed, on: "onboarding.login", payload: Self.demoUser) == 1)
        #expect(system.act(DemoAction.setApiKey, on: "onboarding.apikey", payload: ["key": "k"]) == 1)
        #expect(
            log(of: system, after: start) == [
                "did navigate flow=OnboardingFlow step=userIsLoggedIn",
                "did navigate flow=AppFlow step=onboardingIsComplete",
            ]
        )
        #expect(system.presentation.visiblePresentables == Self.wishlistShown)
        #expect(!system.tree.contains("OnboardingFlow"))
        #expect(system.errors == [])
        #expect(system.serviceErrors == [])
        #expect(system.rejectedCommands == [])
    }

    @Test func aWrongPasswordIsAnsweredWithAnAlertAndNothingElseNavigates() throws {
        let system = connectedSystem()
        let start = system.didNavigate.count
        let wrongPassword: JSONValue = ["user": "demo", "password": "x"]
        #expect(system.act(DemoAction.proceed, on: "onboarding.login", payload: wrongPassword) == 1)
        #expect(
            log(of: system, after: start) == [
                "did navigate flow=OnboardingFlow step=alert(\"Wrong user name or password for 'demo'\")"
            ])
        #expect(system.presentation.visiblePresentables.last == "onboarding.alert")
        #expect(system.serviceErrors == [])
        #expect(system.login.service.tokens.isEmpty)
        // Closing the alert leaves the login screen, which takes the right password.
        try system.dismiss("onboarding.alert")
        #expect(system.presentation.visiblePresentables == ["onboarding.stack", "onboarding.login"])
        // The API key screen was never pushed: the daemon refuses an action on it.
        #expect(system.act(DemoAction.setApiKey, on: "onboarding.apikey", payload: ["key": "k"]) == nil)
        #expect(system.errors.map(\.code) == [.unknownPresentable])
    }

    @Test func restartingTheLoginServiceMidJourneyChangesNothingInTheTree() {
        let system = onboardedSystem()
        let start = system.didNavigate.count
        let tree = system.tree
        let attaches = system.attachesReceived
        system.restartLoginService()
        // login.app, login.logout: attached again, login.app resumed, so not told a state the tree already shows.
        #expect(system.attachesReceived == attaches + 2)
        #expect(system.didNavigate.count == start)
        #expect(system.tree == tree)
        #expect(system.presentation.visiblePresentables == Self.wishlistShown)
        #expect(system.errors == [])
        #expect(system.rejectedCommands == [])
        // Logging out still works: the person acted, so login.app is told the state.
        #expect(system.act(DemoAction.logout, on: "wishlist.list") == 2)
        #expect(
            log(of: system, after: start) == [
                "did navigate flow=AppFlow step=onboardingIsRequired",
                "did navigate flow=OnboardingFlow step=loginIsRequired",
            ])
    }

    @Test func moviesAndCastsArePickedThroughTheMovieService() throws {
        let system = onboardedSystem()
        let start = system.didNavigate.count
        // The wishlist list has two remote steppers: the movie service's and the logout's.
        #expect(system.act(DemoAction.pick, on: "wishlist.list", payload: 21212) == 2)
        #expect(system.act(DemoAction.pickCast, on: "wishlist.movie.21212", payload: 4) == 1)
        try system.tapBack(in: "wishlist.stack")
        try system.tapBack(in: "wishlist.stack")
        try system.selectTab(1, in: "dashboard.tabs")
        #expect(system.act(DemoAction.pick, on: "watched.list", payload: ["id": 43424]) == 1)
        try system.selectTab(2, in: "dashboard.tabs")
        try system.selectTab(1, in: "trending.pages")
        #expect(system.act(DemoAction.pick, on: "trending.casts", payload: 5) == 1)
        #expect(
            log(of: system, after: start) == [
                "did navigate flow=WishlistFlow step=movieIsPicked(21212)",
                "did navigate flow=WishlistFlow step=castIsPicked(4)",
                "did navigate flow=WatchedFlow step=movieIsPicked(43424)",
                "did navigate flow=CastListFlow step=castIsPicked(5)",
            ]
        )
        #expect(system.presentation.isVisible("trending.cast.5"))
        #expect(system.serviceErrors == [.unknownAction(kind: DemoStepperKind.loginLogout, action: DemoAction.pick)])
        #expect(system.drops == [])
    }

    @Test func aMovieTheListDoesNotShowIsRefusedAndAHiddenListsStepIsDropped() throws {
        let system = onboardedSystem()
        let start = system.didNavigate.count
        system.act(DemoAction.pick, on: "wishlist.list", payload: 43424)
        #expect(system.serviceErrors.contains(.movieNotListed(43424, kind: DemoStepperKind.moviesWishlist)))
        // The Watched tab is not shown: its list's step is dropped at the visibility gate.
        #expect(system.act(DemoAction.pick, on: "watched.list", payload: 43424) == 1)
        #expect(system.didNavigate.count == start)
        #expect(system.drops == ["dropped step=movieIsPicked(43424) reason=notVisible"])
        #expect(system.stepOutcomes.last == "notVisible")
    }

    @Test func settingsUseTheDaemonsActionSteppersAndTheLoginFormAgain() throws {
        let system = onboardedSystem()
        let start = system.didNavigate.count
        system.act(DemoAction.settings, on: "wishlist.list")
        try system.dismiss("settings.alert")
        #expect(system.act(DemoAction.apiKey, on: "settings.list") == 1)
        system.act(DemoAction.login, on: "settings.list")
        system.act(DemoAction.proceed, on: "settings.login", payload: Self.demoUser)
        #expect(system.act(DemoAction.done, on: "settings.split") == 1)
        #expect(
            log(of: system, after: start) == [
                "did navigate flow=WishlistFlow step=settingsAreRequired",
                "did navigate flow=SettingsFlow step=settingsAreRequired",
                "did navigate flow=SettingsFlow step=alert(\"Demo of multiple Flow Contributor\")",
                "did navigate flow=SettingsFlow step=apiKeyIsRequired",
                "did navigate flow=SettingsFlow step=loginIsRequired",
                "did navigate flow=SettingsFlow step=userIsLoggedIn",
                "did navigate flow=SettingsFlow step=settingsAreComplete",
                "did navigate flow=WishlistFlow step=settingsAreComplete",
            ]
        )
        #expect(!system.tree.contains("SettingsFlow"))
        #expect(system.presentation.visiblePresentables == Self.wishlistShown)
    }

    @Test func aboutIsRefusedEveryOtherTimeAndClosedWithItsDoneAction() throws {
        let system = onboardedSystem()
        let start = system.didNavigate.count
        system.act(DemoAction.about, on: "wishlist.list")
        try system.dismiss("wishlist.alert")
        system.act(DemoAction.about, on: "wishlist.list")
        #expect(system.presentation.isVisible("wishlist.about"))
        #expect(system.act(DemoAction.done, on: "wishlist.about") == 1)
        #expect(
            log(of: system, after: start) == [
                "did navigate flow=WishlistFlow step=unauthorized",
                "did navigate flow=WishlistFlow step=aboutIsRequired",
                "did navigate flow=WishlistFlow step=aboutIsComplete",
            ]
        )
        #expect(!system.presentation.contains("wishlist.about"))
    }

    @Test func logoutRevokesTheTokenAndTheLoginServiceAsksForTheOnboardingAgain() {
        let system = onboardedSystem()
        let start = system.didNavigate.count
        #expect(system.act(DemoAction.logout, on: "wishlist.list") == 2)
        #expect(
            log(of: system, after: start) == [
                "did navigate flow=AppFlow step=onboardingIsRequired",
                "did navigate flow=OnboardingFlow step=loginIsRequired",
            ]
        )
        #expect(system.login.service.tokens.isEmpty)
        #expect(system.presentation.visiblePresentables.suffix(2) == ["onboarding.stack", "onboarding.login"])
    }

    @Test func anExpiredTokenBringsTheOnboardingBack() {
        let system = onboardedSystem(tokenLifetime: .seconds(60))
        let start = system.didNavigate.count
        system.advanceLoginClock(by: .seconds(59))
        #expect(system.didNavigate.count == start)
        system.advanceLoginClock(by: .seconds(1))
        #expect(
            log(of: system, after: start) == [
                "did navigate flow=AppFlow step=onboardingIsRequired",
                "did navigate flow=OnboardingFlow step=loginIsRequired",
            ]
        )
    }

    @Test func aServiceThatComesBackGetsItsAttachmentsAgainAndServesThem() {
        let system = onboardedSystem()
        system.disconnectMovieService()
        // Only the logout stepper is served while the movie service is away.
        #expect(system.act(DemoAction.pick, on: "wishlist.list", payload: 23452) == 1)
        system.connectMovieService()
        let start = system.didNavigate.count
        #expect(system.act(DemoAction.pick, on: "wishlist.list", payload: 23452) == 2)
        #expect(log(of: system, after: start) == ["did navigate flow=WishlistFlow step=movieIsPicked(23452)"])
    }

    @Test func anActionTheScreenTypeDoesNotListIsRefusedAndReachesNoService() throws {
        let system = onboardedSystem()
        let start = system.didNavigate.count
        #expect(system.act("pikc", on: "wishlist.list", payload: 23452) == nil)
        let error = try #require(system.errors.last)
        #expect(error.code == .unknownAction)
        #expect(
            error.message
                == "the screen type 'WishlistList' accepts no action 'pikc' (it accepts 'pick', 'about', 'settings', "
                + "'logout')")
        #expect(system.act(DemoAction.pick, on: "wishlist.list", payload: 23452) == 2)
        #expect(log(of: system, after: start) == ["did navigate flow=WishlistFlow step=movieIsPicked(23452)"])
    }

    @Test func theApplicationDeclaresEveryDemoStepAndRunsAppFlowOnRemoteSteppers() {
        let application = MovieDemoApplication()
        #expect(application.stepNames == DemoStep.names)
        #expect(DemoStep.names.count == 20)
        #expect(DemoStep.names.isSuperset(of: ["movieIsPicked", "castIsPicked", "alert", "onboardingIsComplete"]))
        let root = application.makeRoot(session: "default")
        #expect(root.flow.flowName == "AppFlow")
        #expect((root.stepper as? RemoteStepper)?.kind == DemoStepperKind.loginApp)
        #expect(root.stepper.initialStep == DemoStep.dashboardIsRequired.step)
    }

    @Test func theRemoteTreeHasTheServicesStepperKindsWhereTheViewModelsWere() {
        let system = onboardedSystem()
        system.act(DemoAction.pick, on: "wishlist.list", payload: 23452)
        #expect(
            system.tree == """
                AppFlow flow#1 root=app.stack [visible] ready
                  - RemoteStepper(login.app) att#1 (flow)
                  DashboardFlow flow#2 root=dashboard.tabs [visible] ready
                    - OneStepper(dashboardIsRequired) att#2 (flow)
                    WishlistFlow flow#3 root=wishlist.stack [visible] ready
                      - OneStepper(moviesAreRequired) att#3 (flow)
                      - RemoteStepper(movies.wishlist) att#6 on wishlist.list [hidden] allowStepWhenNotPresented
                      - RemoteStepper(login.logout) att#7 on wishlist.list [hidden] allowStepWhenNotPresented
                      - RemoteStepper(movies.detail) att#16 on wishlist.movie.23452 [visible]
                    WatchedFlow flow#4 root=watched.stack [hidden] ready
                      - OneStepper(moviesAreRequired) att#4 (flow)
                      - RemoteStepper(movies.watched) att#8 on watched.list [hidden]
                    TrendingFlow flow#5 root=trending.stack [hidden] ready
                      - TrendingStepper att#5 (flow)
                      TrendingMovieFlow flow#6 root=trending.movies [hidden] ready allowStepWhenDismissed
                        - OneStepper(moviesAreRequired) att#9 (flow) allowStepWhenDismissed
                        - RemoteStepper(movies.trending) att#11 on trending.movies [hidden]
                      CastListFlow flow#7 root=trending.casts [hidden] ready allowStepWhenDismissed
                        - OneStepper(castListAreRequired) att#10 (flow) allowStepWhenDismissed
                        - RemoteStepper(movies.castList) att#12 on trending.casts [hidden]

                """
        )
    }
}
