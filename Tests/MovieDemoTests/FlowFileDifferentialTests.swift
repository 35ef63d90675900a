import FlowCore
import FlowFile
import Foundation
import MovieDemo
import MovieVocabulary
import Testing

/// The same journeys through the Swift flows (`MovieDemoApplication`) and through the flow file
/// (Examples/flowfiles/movies.flows.yaml run as a `FileApplication`), each in an `InMemoryDemoSystem` with the same
/// services and presenter: after every move, the same did-navigate lines, dropped steps, presenter UI, errors and
/// flow tree (the Swift flows' class names read as the file's flow names).
///
/// The wishlist's About goes through the Swift WishlistFlow's own `adapt` on one side and, on the other, through the
/// file's `adapt`, asked of the movie service (`ADAPT`), whose logic refuses every other one the same way. (A deep
/// link to About is left out: an asked `adapt` completes after the deep link reached the other flows, so the
/// did-navigate lines come in another order, as for any asynchronous adaptation, docs/SEMANTICS.md D2.)
struct FlowFileDifferentialTests {
    /// The Swift flows' names, longest first so that `TrendingMovieFlow` is not read as `TrendingFlow`; and
    /// TrendingFlow's stepper, a one-step stepper of a class of its own.
    static let flowNames: [(swift: String, file: String)] = [
        ("TrendingStepper", "OneStepper(trendingsAreRequired)"),
        ("TrendingMovieFlow", "trendingMovie"), ("OnboardingFlow", "onboarding"), ("DashboardFlow", "dashboard"),
        ("WishlistFlow", "wishlist"), ("SettingsFlow", "settings"), ("TrendingFlow", "trending"),
        ("CastListFlow", "castList"), ("WatchedFlow", "watched"), ("AppFlow", "app"),
    ]

    static let demoUser: JSONValue = ["user": "demo", "password": "demo"]

    /// What is compared after each move.
    struct Observation: Equatable, CustomStringConvertible {
        var didNavigate: [String]
        var drops: [String]
        var presentation: PresentationModel
        var errors: [String]
        var tree: String

        var description: String {
            "did: \(didNavigate)\ndrops: \(drops)\nerrors: \(errors)\nui:\n\(presentation)\ntree:\n\(tree)"
        }
    }

    static func observe(_ system: InMemoryDemoSystem, swift: Bool) -> Observation {
        func named(_ text: String) -> String {
            guard swift else { return text }
            var text = text
            for (swiftName, fileName) in flowNames { text = text.replacingOccurrences(of: swiftName, with: fileName) }
            return text
        }
        return Observation(
            didNavigate: system.didNavigate.map(named), drops: system.drops, presentation: system.presentation,
            errors: system.errors.map { "\($0.code)" }, tree: named(system.tree)
        )
    }


    /// Runs `moves` on both systems, comparing after each.
    fileprivate func compare(_ moves: [Move], journaling: Bool = false, tokenLifetime: Duration = .seconds(3600)) throws {
        let file = try FlowFile.load(path: Self.moviesFile)
        let swift = InMemoryDemoSystem(tokenLifetime: tokenLifetime, journaling: journaling)
        let declared = InMemoryDemoSystem(
            application: FileApplication(file), tokenLifetime: tokenLifetime, journaling: journaling
        )
        #expect(Self.observe(declared, swift: false) == Self.observe(swift, swift: true), "launch")
        for move in moves {
            try move.run(swift)
            try move.run(declared)
            let expected = Self.observe(swift, swift: true)
            let found = Self.observe(declared, swift: false)
            #expect(found == expected, "after \(move.name)")
            if found != expected { return }
        }
        #expect(swift.didNavigate.count > 10)
    }

    static let moviesFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Examples/flowfiles/movies.flows.yaml").path

    fileprivate static var connect: [Move] {
        [
            move("login service") { $0.connectLoginService() },
            move("movie service") { $0.connectMovieService() },
            move("presenter") { $0.connectPresenter() },
        ]
    }

    fileprivate static var onboarding: [Move] {
        [
            act(DemoAction.proceed, on: "onboarding.login", ["user": "demo", "password": "x"]),
            move("alert closed") { try $0.dismiss("onboarding.alert") },
            act(DemoAction.proceed, on: "onboarding.login", demoUser),
            act(DemoAction.setApiKey, on: "onboarding.apikey", ["key": "k"]),
        ]
    }

    @Test func theDemosJourneyIsTheSameThroughTheFile() throws {
        try compare(
            Self.connect + Self.onboarding + [
                act(DemoAction.pick, on: "wishlist.list", 21212),
                act(DemoAction.pickCast, on: "wishlist.movie.21212", 4),
                move("back") { try $0.tapBack(in: "wishlist.stack") },
                move("back again") { try $0.tapBack(in: "wishlist.stack") },
                act(DemoAction.about, on: "wishlist.list"),
                move("unauthorized alert closed") { try $0.dismiss("wishlist.alert") },
                act(DemoAction.about, on: "wishlist.list"),
                act(DemoAction.done, on: "wishlist.about"),
                act(DemoAction.about, on: "wishlist.list"),
                move("unauthorized alert closed again") { try $0.dismiss("wishlist.alert") },
                move("Watched tab") { try $0.selectTab(1, in: "dashboard.tabs") },
                act(DemoAction.pick, on: "watched.list", ["id": 43424]),
                move("Trending tab") { try $0.selectTab(2, in: "dashboard.tabs") },
                act(DemoAction.pick, on: "trending.movies", 55423),
                move("back on trending") { try $0.tapBack(in: "trending.stack") },
                move("cast page") { try $0.selectTab(1, in: "trending.pages") },
                act(DemoAction.pick, on: "trending.casts", 5),
                act(DemoAction.pick, on: "watched.list", ["id": 43424]),
                move("Wishlist tab") { try $0.selectTab(0, in: "dashboard.tabs") },
                act(DemoAction.settings, on: "wishlist.list"),
                move("settings alert closed") { try $0.dismiss("settings.alert") },
                act(DemoAction.apiKey, on: "settings.list"),
                act(DemoAction.about, on: "settings.list"),
                act(DemoAction.login, on: "settings.list"),
                act(DemoAction.proceed, on: "settings.login", Self.demoUser),
                act(DemoAction.done, on: "settings.split"),
                act(DemoAction.logout, on: "wishlist.list"),
                act(DemoAction.proceed, on: "onboarding.login", Self.demoUser),
                act(DemoAction.setApiKey, on: "onboarding.apikey", ["key": "k"]),
                deepLink(DemoStep.movieIsPicked(withId: 23452)),
                deepLink(DemoStep.castIsPicked(withId: 2)),
                deepLink(DemoStep.settingsAreRequired),
                // A payload of another shape: no DemoStep in Swift, not the declared type in the file: refused
                // invalidPayload by both, nothing happens.
                deepLink(Step("movieIsPicked", payload: "dune")),
                deepLink(Step("castIsPicked", payload: ["id": 3])),
            ]
        )
    }

    @Test func servicesAndTheDaemonRestartingIsTheSameThroughTheFile() throws {
        try compare(
            Self.connect + Self.onboarding + [
                move("login service restarts") { $0.restartLoginService() },
                move("movie service leaves") { $0.disconnectMovieService() },
                act(DemoAction.pick, on: "wishlist.list", 23452),
                move("movie service is back") { $0.connectMovieService() },
                act(DemoAction.pick, on: "wishlist.list", 23452),
                move("daemon restarts") { try $0.restartDaemon() },
                move("peers reconnect") { $0.reconnectAfterRestart() },
                act(DemoAction.pickCast, on: "wishlist.movie.23452", 2),
                move("daemon restarts from a state snapshot") { system in
                    #expect(system.daemon.compactJournal() == (saved: 1, keptAsHistory: 0))
                    try system.restartDaemon()
                },
                move("peers reconnect again") { $0.reconnectAfterRestart() },
                act(DemoAction.pick, on: "watched.list", ["id": 43424]),
                move("the token expires") { $0.advanceLoginClock(by: .seconds(3600)) },
            ],
            journaling: true
        )
    }
}

/// Something done to both systems.
fileprivate struct Move {
    var name: String
    var run: (InMemoryDemoSystem) throws -> Void
}

fileprivate func move(_ name: String, _ run: @escaping (InMemoryDemoSystem) throws -> Void) -> Move {
    Move(name: name, run: run)
}

/// A person's action on a screen.
fileprivate func act(_ action: String, on screen: PresentableID, _ payload: JSONValue = .null) -> Move {
    Move(name: "\(action) on \(screen)") { system in _ = system.act(action, on: screen, payload: payload) }
}

/// An operator's deep link.
fileprivate func deepLink(_ step: some StepConvertible) -> Move {
    Move(name: "deep link \(step.step)") { system in _ = system.deepLink(step.step) }
}
