import FlowCore
import FlowFile
import MovieVocabulary
import Testing

/// Examples/flowfiles/movies.flows.yaml against the Swift demo it declares (MovieVocabulary's names, screens and
/// vocabulary), and the committed picture of its graph.
struct MovieFlowFileTests {
    let app: AppFile

    init() throws {
        app = try FlowFile.load(path: repositoryPath("Examples/flowfiles/movies.flows.yaml"))
    }

    @Test func itDeclaresTheDemosVocabulary() {
        #expect(app.vocabulary == DemoVocabulary.application)
        #expect(app.stepNames == DemoStep.names)
    }

    @Test func itsFlowsAreTheDemos() {
        #expect(app.root.flow.value == "app")
        #expect(
            app.flows.map(\.name.value)
                == [
                    "app", "onboarding", "dashboard", "wishlist", "watched", "trending", "trendingMovie", "castList",
                    "settings",
                ]
        )
        let roots = app.flows.map { try? $0.root.screen(in: [:]) }
        #expect(
            roots == [
                DemoScreens.app, DemoScreens.onboarding, DemoScreens.dashboard, DemoScreens.wishlist,
                DemoScreens.watched,
                DemoScreens.trending, DemoScreens.trendingMovies, DemoScreens.trendingCasts, DemoScreens.settings,
            ]
        )
    }

    @Test func itsScreensAreTheDemos() throws {
        func screen(_ flow: String, _ name: String, _ payload: JSONValue = .null) throws -> Screen? {
            try app.flow(flow)?.screen(name)?.screen(in: ["payload": payload])
        }
        #expect(try screen("wishlist", "movie", 23452) == DemoScreens.movieDetail(23452, in: "wishlist"))
        #expect(try screen("watched", "cast", 4) == DemoScreens.castDetail(4, in: "watched"))
        #expect(try screen("trendingMovie", "movie", 7) == DemoScreens.movieDetail(7, in: "trending"))
        #expect(try screen("castList", "cast", 2) == DemoScreens.castDetail(2, in: "trending"))
        #expect(try screen("wishlist", "list") == DemoScreens.wishlistList)
        #expect(try screen("wishlist", "about") == DemoScreens.wishlistAbout)
        #expect(try screen("wishlist", "unauthorized") == DemoScreens.wishlistUnauthorized)
        #expect(try screen("onboarding", "login") == DemoScreens.onboardingLogin)
        #expect(try screen("onboarding", "apiKey") == DemoScreens.onboardingApiKey)
        #expect(try screen("onboarding", "alert", "Wrong password") == DemoScreens.onboardingAlert("Wrong password"))
        #expect(try screen("trending", "pages") == DemoScreens.trendingPages)
        #expect(try screen("settings", "master") == DemoScreens.settingsMaster)
        #expect(try screen("settings", "list") == DemoScreens.settingsList)
        #expect(try screen("settings", "login") == DemoScreens.settingsLogin)
        #expect(try screen("settings", "apiKey") == DemoScreens.settingsApiKey)
        #expect(try screen("settings", "about") == DemoScreens.settingsAbout)
        #expect(try screen("settings", "alert", "Hi") == DemoScreens.settingsAlert("Hi"))
    }

    @Test func uriDeepLinksGiveChainsOfSteps() throws {
        #expect(try app.steps(forURI: "movies://wishlist/movie/23452") == [DemoStep.movieIsPicked(withId: 23452).step])
        #expect(
            try app.steps(forURI: "movies://wishlist/movie/23452/cast/4")
                == [DemoStep.movieIsPicked(withId: 23452).step, DemoStep.castIsPicked(withId: 4).step]
        )
        #expect(try app.steps(forURI: "movies://settings") == [DemoStep.settingsAreRequired.step])
        #expect(try app.steps(forURI: "movies://wishlist/movie/dune") == nil)
        #expect(
            app.deepLinkableSteps == ["movieIsPicked", "castIsPicked", "settingsAreRequired", "aboutIsRequired", "fakeStep"])
    }

    /// docs/images/movies-graph.dot and docs/movies-graph.mmd are `flowctl graph` of the file: regenerate them
    /// (README of docs/FLOWFILE.md) when the file changes.
    @Test func theCommittedGraphIsTheFilesGraph() throws {
        let graph = FlowGraph(app)
        #expect(
            try String(contentsOfFile: repositoryPath("docs/images/movies-graph.dot"), encoding: .utf8) == graph.dot)
        #expect(
            try String(contentsOfFile: repositoryPath("docs/images/movies-graph.mmd"), encoding: .utf8) == graph.mermaid
        )
    }

    @Test func theJSONExampleLoads() throws {
        let hello = try FlowFile.load(path: repositoryPath("Examples/flowfiles/hello.flows.json"))
        #expect(hello.app == "hello")
        #expect(hello.flows.map(\.name.value) == ["hello", "about"])
        #expect(hello.flow("about")?.handler("aboutIsShown")?.location.line == 46)
        #expect(try hello.steps(forURI: "hello://about") == [Step("aboutIsRequired")])
    }
}
