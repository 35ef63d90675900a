import FlowCore
import MovieDemo
import MovieVocabulary
import Testing

/// The whole RxFlow demo journey, every chapter in order, checked line by line.
struct WholeJourneyTests {
    static let expectedLog = [
        // launch (first run)
        "did navigate flow=AppFlow step=dashboardIsRequired",
        "did navigate flow=DashboardFlow step=dashboardIsRequired",
        "did navigate flow=AppFlow step=onboardingIsRequired",
        "did navigate flow=WishlistFlow step=moviesAreRequired",
        "did navigate flow=WatchedFlow step=moviesAreRequired",
        "did navigate flow=TrendingFlow step=trendingsAreRequired",
        "did navigate flow=OnboardingFlow step=loginIsRequired",
        "did navigate flow=TrendingMovieFlow step=moviesAreRequired",
        "did navigate flow=CastListFlow step=castListAreRequired",
        // onboarding
        "did navigate flow=OnboardingFlow step=userIsLoggedIn",
        "did navigate flow=AppFlow step=onboardingIsComplete",
        // logout, then login again
        "did navigate flow=AppFlow step=onboardingIsRequired",
        "did navigate flow=OnboardingFlow step=loginIsRequired",
        "did navigate flow=OnboardingFlow step=userIsLoggedIn",
        "did navigate flow=AppFlow step=onboardingIsComplete",
        // movie detail
        "did navigate flow=WatchedFlow step=movieIsPicked(43424)",
        "did navigate flow=TrendingMovieFlow step=movieIsPicked(55423)",
        "did navigate flow=WishlistFlow step=movieIsPicked(21212)",
        // cast detail
        "did navigate flow=WishlistFlow step=castIsPicked(4)",
        "did navigate flow=CastListFlow step=castIsPicked(5)",
        // settings
        "did navigate flow=WishlistFlow step=settingsAreRequired",
        "did navigate flow=SettingsFlow step=settingsAreRequired",
        "did navigate flow=SettingsFlow step=alert(\"Demo of multiple Flow Contributor\")",
        "did navigate flow=SettingsFlow step=apiKeyIsRequired",
        "did navigate flow=SettingsFlow step=aboutIsRequired",
        "did navigate flow=SettingsFlow step=loginIsRequired",
        "did navigate flow=SettingsFlow step=userIsLoggedIn",
        "did navigate flow=SettingsFlow step=settingsAreComplete",
        "did navigate flow=WishlistFlow step=settingsAreComplete",
        // about, twice
        "did navigate flow=WishlistFlow step=unauthorized",
        "did navigate flow=WishlistFlow step=aboutIsRequired",
        "did navigate flow=WishlistFlow step=aboutIsComplete",
        // deep link
        "did navigate flow=AppFlow step=movieIsPicked(23452)",
        "did navigate flow=DashboardFlow step=movieIsPicked(23452)",
        "did navigate flow=WishlistFlow step=movieIsPicked(23452)",
        "did navigate flow=WatchedFlow step=movieIsPicked(23452)",
        "did navigate flow=TrendingFlow step=movieIsPicked(23452)",
        "did navigate flow=TrendingMovieFlow step=movieIsPicked(23452)",
        "did navigate flow=CastListFlow step=movieIsPicked(23452)",
    ]

    static let expectedScreens = """
        * app.stack (stack)
          * dashboard.tabs (tabs)
            * [tab 0, selected] wishlist.stack (stack)
              - wishlist.list (WishlistList)
              * wishlist.movie.23452 (MovieDetail 23452)
            - [tab 1] watched.stack (stack)
              - watched.list (WatchedList)
              - watched.movie.23452 (MovieDetail 23452)
            - [tab 2] trending.stack (stack)
              - trending.pages (TrendingPages)
                - [tab 0, selected] trending.movies (WatchedList)
                - [tab 1] trending.casts (CastList)
              - trending.movie.23452 (MovieDetail 23452)

        """

    static let expectedTree = """
        AppFlow flow#1 root=app.stack [visible] ready
          - AppStepper att#1 (flow)
          DashboardFlow flow#2 root=dashboard.tabs [visible] ready
            - OneStepper(dashboardIsRequired) att#2 (flow)
            WishlistFlow flow#3 root=wishlist.stack [visible] ready
              - OneStepper(moviesAreRequired) att#3 (flow)
              - WishlistStepper att#4 (flow)
              - WishlistViewModel att#8 on wishlist.list [hidden] allowStepWhenNotPresented
              - MovieDetailViewModel(23452) att#28 on wishlist.movie.23452 [visible]
            WatchedFlow flow#4 root=watched.stack [hidden] ready
              - OneStepper(moviesAreRequired) att#5 (flow)
              - WatchedViewModel att#9 on watched.list [hidden]
              - MovieDetailViewModel(23452) att#29 on watched.movie.23452 [hidden]
            TrendingFlow flow#5 root=trending.stack [hidden] ready
              - TrendingStepper att#6 (flow)
              TrendingMovieFlow flow#7 root=trending.movies [hidden] ready allowStepWhenDismissed
                - OneStepper(moviesAreRequired) att#10 (flow) allowStepWhenDismissed
                - WatchedViewModel att#13 on trending.movies [hidden]
                - MovieDetailViewModel(23452) att#30 on trending.movie.23452 [hidden]
              CastListFlow flow#8 root=trending.casts [hidden] ready allowStepWhenDismissed
                - OneStepper(castListAreRequired) att#11 (flow) allowStepWhenDismissed
                - CastListViewModel att#14 on trending.casts [hidden]

        """

    @Test func theWholeJourneyLogsEveryNavigationInOrder() throws {
        let journey = try MovieDemoJourney.wholeJourney()
        #expect(journey.didNavigateLog.count == Self.expectedLog.count)
        for (index, (line, expected)) in zip(journey.didNavigateLog, Self.expectedLog).enumerated() {
            #expect(line == expected, "line \(index + 1)")
        }
        #expect(journey.didNavigateLog == Self.expectedLog)
    }

    @Test func theWholeJourneyEndsOnTheThreeAvatarDetailsWithTheWishlistTabShown() throws {
        let journey = try MovieDemoJourney.wholeJourney()
        #expect(journey.screens == Self.expectedScreens)
        #expect(
            journey.presentation.visiblePresentables
                == ["app.stack", "dashboard.tabs", "wishlist.stack", "wishlist.movie.23452"]
        )
    }

    @Test func theWholeJourneyEndsWithTheDashboardTreeAndNoOnboardingOrSettingsFlow() throws {
        let journey = try MovieDemoJourney.wholeJourney()
        #expect(journey.snapshot().description == Self.expectedTree)
    }

    @Test func theWholeJourneyDropsNoStepAndEveryCommandIsCarriedOut() throws {
        let journey = try MovieDemoJourney.wholeJourney()
        #expect(journey.drops == [])
        #expect(journey.rejectedCommands == [])
        #expect(journey.machine.pendingAdaptRequests == [])
    }

    @Test func theChaptersTogetherLogTheWholeJourney() throws {
        let journey = MovieDemoJourney()
        var lines: [String] = []
        for chapter in MovieDemoJourney.Chapter.allCases { lines += try journey.run(chapter) }
        #expect(lines == Self.expectedLog)
    }
}
