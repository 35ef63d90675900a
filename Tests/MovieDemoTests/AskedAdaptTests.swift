import FlowCore
import FlowFile
import Foundation
import MovieVocabulary
import Testing

/// The movie file's wishlist `adapt`, asked of the movie service (`ADAPT`), across the service's absence and a
/// daemon restart: nothing acknowledged is lost, and a tree waiting for an answer is not saved as data.
struct AskedAdaptTests {
    static let demoUser: JSONValue = ["user": "demo", "password": "demo"]

    /// The demo from the file, logged in, on the wishlist.
    static func loggedIn() throws -> InMemoryDemoSystem {
        let system = InMemoryDemoSystem(
            application: FileApplication(try FlowFile.load(path: FlowFileDifferentialTests.moviesFile)),
            journaling: true)
        system.connectLoginService()
        system.connectMovieService()
        system.connectPresenter()
        system.act(DemoAction.proceed, on: "onboarding.login", payload: Self.demoUser)
        system.act(DemoAction.setApiKey, on: "onboarding.apikey", payload: ["key": "k"])
        return system
    }

    @Test func aboutIsRefusedThenAllowedByTheMovieService() throws {
        let system = try Self.loggedIn()
        system.act(DemoAction.about, on: "wishlist.list")
        #expect(system.presentation.contains("wishlist.alert"))
        try system.dismiss("wishlist.alert")
        system.act(DemoAction.about, on: "wishlist.list")
        #expect(system.presentation.contains("wishlist.about"))
        #expect(system.daemon.core.counters.adapts == ["replace": 1, "allow": 1])
    }

    @Test func aQuestionPendingAcrossARestartIsAnsweredOnceTheServiceIsBack() throws {
        let system = try Self.loggedIn()
        system.disconnectMovieService()
        #expect(system.deepLink(DemoStep.aboutIsRequired.step) != nil)
        #expect(!system.presentation.contains("wishlist.alert"))
        // Waiting for code (the service's answer), the tree is not at rest: kept as history.
        #expect(system.daemon.compactJournal() == (saved: 0, keptAsHistory: 1))
        try system.restartDaemon()
        system.reconnectAfterRestart()
        #expect(system.presentation.contains("wishlist.alert"))
        #expect(system.drops.filter { $0.contains("adapt") } == [])
    }
}
