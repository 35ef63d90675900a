import FlowCore
import MovieDemo
import MovieVocabulary
import Testing

private func line(_ flow: String, _ step: DemoStep) -> String { "did navigate flow=\(flow) step=\(step.step)" }

/// A journey played up to (not including) `chapter`.
private func journey(before chapter: MovieDemoJourney.Chapter) throws -> MovieDemoJourney {
    let journey = MovieDemoJourney()
    for previous in MovieDemoJourney.Chapter.allCases.prefix(while: { $0 != chapter }) { try journey.run(previous) }
    return journey
}

private let dashboardVisible: [PresentableID] = ["app.stack", "dashboard.tabs", "wishlist.stack", "wishlist.list"]

/// Each chapter of the demo journey alone, from where the previous chapters leave the app.
struct ChapterTests {
    // MARK: - Launch

    @Test func launchOnAFirstRunBuildsTheThreeTabsThenPresentsTheOnboardingOverThem() throws {
        let journey = MovieDemoJourney()
        #expect(try journey.run(.launch) == [
            line("AppFlow", .dashboardIsRequired),
            line("DashboardFlow", .dashboardIsRequired),
            line("AppFlow", .onboardingIsRequired),
            line("WishlistFlow", .moviesAreRequired),
            line("WatchedFlow", .moviesAreRequired),
            line("TrendingFlow", .trendingsAreRequired),
            line("OnboardingFlow", .loginIsRequired),
            line("TrendingMovieFlow", .moviesAreRequired),
            line("CastListFlow", .castListAreRequired),
        ])
        #expect(journey.screens == """
            - app.stack (stack)
              - dashboard.tabs (tabs)
                - [tab 0, selected] wishlist.stack (stack)
                  - wishlist.list (WishlistList)
                - [tab 1] watched.stack (stack)
                  - watched.list (WatchedList)
                - [tab 2] trending.stack (stack)
                  - trending.pages (TrendingPages)
                    - [tab 0, selected] trending.movies (WatchedList)
                    - [tab 1] trending.casts (CastList)
              * [modal] onboarding.stack (stack)
                * onboarding.login (Login)

            """)
        let flows = journey.snapshot().allNodes
        #expect(flows.map(\.flow) == [
            "AppFlow", "DashboardFlow", "WishlistFlow", "WatchedFlow", "TrendingFlow", "TrendingMovieFlow",
            "CastListFlow", "OnboardingFlow",
        ])
        #expect(flows.allSatisfy { $0.isReady })
        #expect(journey.machine.isVisible("onboarding.login"))
        #expect(!journey.machine.isVisible("wishlist.list"))
    }

    @Test func launchOnALaterRunDismissesNothingAndShowsTheWishlist() throws {
        let journey = MovieDemoJourney(onboarded: true)
        try journey.launch()
        #expect(journey.didNavigateLog == [
            line("AppFlow", .dashboardIsRequired),
            line("DashboardFlow", .dashboardIsRequired),
            line("AppFlow", .onboardingIsComplete),
            line("WishlistFlow", .moviesAreRequired),
            line("WatchedFlow", .moviesAreRequired),
            line("TrendingFlow", .trendingsAreRequired),
            line("TrendingMovieFlow", .moviesAreRequired),
            line("CastListFlow", .castListAreRequired),
        ])
        #expect(journey.presentation.visiblePresentables == dashboardVisible)
        #expect(journey.rejectedCommands == [])
    }

    @Test func launchingTwiceIsRefused() throws {
        let journey = MovieDemoJourney()
        try journey.launch()
        #expect(throws: JourneyError.flow(.alreadyCoordinating())) { try journey.launch() }
    }

    // MARK: - Onboarding and logout

    @Test func onboardingLogsInSetsTheApiKeyAndAppFlowDismissesTheOnboarding() throws {
        let journey = try journey(before: .onboarding)
        try journey.tapProceed(on: "onboarding.login")
        #expect(journey.presentation.visiblePresentables == ["onboarding.stack", "onboarding.apikey"])
        try journey.tapSetApiKey(on: "onboarding.apikey")
        #expect(journey.didNavigateLog.suffix(2) == [
            line("OnboardingFlow", .userIsLoggedIn), line("AppFlow", .onboardingIsComplete),
        ])
        #expect(journey.services.preferencesService.isOnboarded)
        #expect(journey.presentation.visiblePresentables == dashboardVisible)
        #expect(!journey.snapshot().allNodes.map(\.flow).contains("OnboardingFlow"))
        #expect(journey.transcript.contains("end flow#6 (rootDismissed)"))
    }

    @Test func logoutPresentsANewOnboardingAndLoggingInAgainDismissesIt() throws {
        let journey = try journey(before: .logout)
        try journey.tapLogout()
        #expect(journey.didNavigateLog.suffix(2) == [
            line("AppFlow", .onboardingIsRequired), line("OnboardingFlow", .loginIsRequired),
        ])
        #expect(journey.presentation.visiblePresentables == ["onboarding.stack", "onboarding.login"])
        #expect(journey.snapshot().allNodes.last.map { "\($0.flow) \($0.coordinator)" } == "OnboardingFlow flow#9")
        try journey.tapProceed(on: "onboarding.login")
        try journey.tapSetApiKey(on: "onboarding.apikey")
        #expect(journey.presentation.visiblePresentables == dashboardVisible)
        #expect(journey.didNavigateLog.suffix(2) == [
            line("OnboardingFlow", .userIsLoggedIn), line("AppFlow", .onboardingIsComplete),
        ])
    }

    // MARK: - Details

    @Test func movieDetailIsPushedByTheTabOfTheListItWasPickedIn() throws {
        let journey = try journey(before: .movieDetail)
        #expect(try journey.run(.movieDetail) == [
            line("WatchedFlow", .movieIsPicked(withId: 43424)),
            line("TrendingMovieFlow", .movieIsPicked(withId: 55423)),
            line("WishlistFlow", .movieIsPicked(withId: 21212)),
        ])
        #expect(journey.presentation.visiblePresentables == [
            "app.stack", "dashboard.tabs", "wishlist.stack", "wishlist.movie.21212",
        ])
        let detail = try #require(journey.stepper(MovieDetailViewModel.self, on: "wishlist.movie.21212"))
        #expect(detail.movie?.title == "Star Trek Beyond")
        #expect(detail.casts.map(\.id) == [0, 2, 4, 6, 8])
        // The details popped with the back button are gone with their steppers.
        #expect(journey.stepper(MovieDetailViewModel.self, on: "watched.movie.43424") == nil)
        #expect(journey.transcript.contains("input trending.movie.55423 dismissed"))
        #expect(journey.presentation.children(of: "trending.stack") == ["trending.pages"])
    }

    @Test func castDetailIsPushedByTheMovieDetailsFlowAndByCastListFlowOnTheTrendingStack() throws {
        let journey = try journey(before: .castDetail)
        try journey.pickCast(4, on: "wishlist.movie.21212")
        #expect(journey.presentation.children(of: "wishlist.stack") == [
            "wishlist.list", "wishlist.movie.21212", "wishlist.cast.4",
        ])
        #expect(journey.presentation.screen("wishlist.cast.4")?.data == 4)
        try journey.tapBack(in: "wishlist.stack")
        try journey.tapBack(in: "wishlist.stack")
        try journey.selectTab(2, in: "dashboard.tabs")
        try journey.selectTab(1, in: "trending.pages")
        try journey.pickCast(5, on: "trending.casts")
        #expect(journey.presentation.visiblePresentables == [
            "app.stack", "dashboard.tabs", "trending.stack", "trending.cast.5",
        ])
        #expect(journey.didNavigateLog.suffix(2) == [
            line("WishlistFlow", .castIsPicked(withId: 4)), line("CastListFlow", .castIsPicked(withId: 5)),
        ])
    }

    @Test func theCastChapterEndsBackOnTheWishlist() throws {
        let journey = try journey(before: .castDetail)
        #expect(try journey.run(.castDetail).count == 2)
        #expect(journey.presentation.visiblePresentables == dashboardVisible)
        #expect(journey.presentation.selectedTab(of: "trending.pages") == 0)
    }

    // MARK: - Settings

    @Test func settingsShowsMultipleContributorsThenTheForwardedAlertAndEndsIntoTheWishlist() throws {
        let journey = try journey(before: .settings)
        try journey.tapSettings()
        // .multiple: the list and the login are contributed, then the forwarded alert is handled.
        #expect(journey.didNavigateLog.suffix(3) == [
            line("WishlistFlow", .settingsAreRequired),
            line("SettingsFlow", .settingsAreRequired),
            line("SettingsFlow", .alert("Demo of multiple Flow Contributor")),
        ])
        let settings = try #require(journey.snapshot().allNodes.first { $0.flow == "SettingsFlow" })
        #expect(settings.steppers.map(\.stepper) == ["SettingsStepper", "SettingsListViewModel", "LoginViewModel"])
        #expect(journey.presentation.visiblePresentables == ["app.stack", "dashboard.tabs", "settings.alert"])

        // Under the alert the list is not visible: a tap on a row is dropped.
        try journey.pickSettingsRow(.about)
        #expect(journey.drops.map(\.description) == ["aboutIsRequired reason=notVisible flow#10 att#23"])

        try journey.dismissModal("settings.alert")
        try journey.pickSettingsRow(.apiKey)
        try journey.pickSettingsRow(.about)
        try journey.pickSettingsRow(.login)
        try journey.tapProceed(on: "settings.login")
        #expect(journey.presentation.visiblePresentables == [
            "app.stack", "dashboard.tabs", "settings.split", "settings.master", "settings.list", "settings.login",
        ])

        // Done: .end removes SettingsFlow, then WishlistFlow gets settingsAreComplete and dismisses the split view.
        let before = journey.transcript.count
        try journey.tapSettingsDone()
        let after = Array(journey.transcript[before...])
        let ended = try #require(after.firstIndex(of: "end flow#10 (ended)"))
        let parentNavigated = try #require(after.firstIndex(of: line("WishlistFlow", .settingsAreComplete)))
        #expect(ended < parentNavigated)
        #expect(journey.didNavigateLog.suffix(6) == [
            line("SettingsFlow", .apiKeyIsRequired),
            line("SettingsFlow", .aboutIsRequired),
            line("SettingsFlow", .loginIsRequired),
            line("SettingsFlow", .userIsLoggedIn),
            line("SettingsFlow", .settingsAreComplete),
            line("WishlistFlow", .settingsAreComplete),
        ])
        #expect(journey.presentation.visiblePresentables == dashboardVisible)
        #expect(!journey.snapshot().allNodes.map(\.flow).contains("SettingsFlow"))
    }

    // MARK: - About

    @Test func aboutIsAdaptedToUnauthorizedEveryOtherTime() throws {
        let journey = try journey(before: .about)
        let aboutRound = [
            line("WishlistFlow", .unauthorized),
            line("WishlistFlow", .aboutIsRequired),
            line("WishlistFlow", .aboutIsComplete),
        ]
        #expect(try journey.run(.about) == aboutRound)
        #expect(try journey.run(.about) == aboutRound)
        #expect(journey.presentation.visiblePresentables == dashboardVisible)
    }

    @Test func theUnauthorizedAlertAndTheAboutScreenArePresentedOverTheWishlist() throws {
        let journey = try journey(before: .about)
        try journey.tapAbout()
        #expect(journey.presentation.visiblePresentables == ["app.stack", "dashboard.tabs", "wishlist.alert"])
        #expect(journey.presentation.placement(of: "wishlist.alert") == .presented(over: "wishlist.stack"))
        try journey.dismissModal("wishlist.alert")
        try journey.tapAbout()
        #expect(journey.presentation.visiblePresentables == ["app.stack", "dashboard.tabs", "wishlist.about"])
        try journey.tapAboutDone()
        #expect(journey.stepper(AboutViewModel.self, on: "wishlist.about") == nil)
    }

    // MARK: - Deep link

    @Test func theDeepLinkReachesEveryFlowParentFirstAndThreeOfThemPushAvatar() throws {
        let journey = try journey(before: .deepLink)
        let avatar = DemoStep.movieIsPicked(withId: 23452)
        #expect(try journey.run(.deepLink) == [
            line("AppFlow", avatar), line("DashboardFlow", avatar), line("WishlistFlow", avatar),
            line("WatchedFlow", avatar), line("TrendingFlow", avatar), line("TrendingMovieFlow", avatar),
            line("CastListFlow", avatar),
        ])
        #expect(journey.presentation.children(of: "wishlist.stack").last == "wishlist.movie.23452")
        #expect(journey.presentation.children(of: "watched.stack").last == "watched.movie.23452")
        #expect(journey.presentation.children(of: "trending.stack").last == "trending.movie.23452")
        for screen: PresentableID in ["wishlist.movie.23452", "watched.movie.23452", "trending.movie.23452"] {
            #expect(journey.stepper(MovieDetailViewModel.self, on: screen)?.movie?.title == "Avatar")
        }
        // Only the wishlist's detail is on screen.
        #expect(journey.machine.isVisible("wishlist.movie.23452"))
        #expect(!journey.machine.isVisible("watched.movie.23452"))
        #expect(!journey.machine.isVisible("trending.movie.23452"))
    }
}
