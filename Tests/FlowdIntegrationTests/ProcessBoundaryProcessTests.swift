import FlowCore
import Foundation
import Testing

/// docs/PROTOCOL.md §3 and §5.1 with real processes: a restarted stepper service changes nothing in the tree, and a
/// second presenter of the same name replaces the first, which stops.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct ProcessBoundaryProcessTests {
    /// The login service killed mid-journey and started again: `login.app` is attached again as `resumed`, so the
    /// new process tells it nothing and no second onboarding starts; the journey goes on.
    @Test func restartingTheLoginServiceMidJourneyChangesNothingInTheTree() async throws {
        try await withCluster { cluster in
            let demo = try await DemoSystem.start(in: cluster)
            try await demo.onboard()
            let flows = try await demo.flows()
            await demo.login.kill9()

            let restarted = try cluster.startLoginService()
            try await waitForAttachments(of: restarted, kinds: ["login.app", "login.logout"])
            // A round trip through flowd after the attachments: a step the new process emitted on attaching would
            // have reached the tree before this pick's.
            let pick = "action wishlist.list pick 23452"
            #expect(try await demo.presenter.run(pick) == "ok \(pick) delivered=2")
            try await demo.watch.waitFor("did navigate flow=WishlistFlow step=movieIsPicked(23452)")
            #expect(
                Array(demo.watch.lines.dropFirst(DemoSystem.onboardingLog.count + DemoSystem.onboardedLog.count))
                    == ["did navigate flow=WishlistFlow step=movieIsPicked(23452)"]
            )
            #expect(try await demo.flows() == flows)
            #expect(!restarted.stderr.lines.contains { $0.contains(" emitted") })
        }
    }

    /// `flowctl describe` gives what the demo declares, and the login form's action does what it says: a wrong
    /// password is answered with an alert the presenter shows.
    @Test func describeNamesTheLoginFormsActionAndAWrongPasswordShowsAnAlert() async throws {
        try await withCluster { cluster in
            let demo = try await DemoSystem.start(in: cluster)
            let described = try await cluster.flowctlSucceeding(["describe", "--json"])
            let vocabulary = try JSONDecoder().decode(ApplicationVocabulary.self, from: Data(described.output.utf8))
            let login = try #require(vocabulary.screenTypes.first { $0.type == "Login" })
            #expect(login.actions.map(\.name) == ["proceed"])
            #expect(login.actions.first?.payload == #"{"user": <string>, "password": <string>}"#)
            #expect(vocabulary.stepperKinds.first { $0.kind == "login.form" }?.steps == ["userIsLoggedIn", "alert"])

            let wrong = #"action onboarding.login proceed {"user":"demo","password":"x"}"#
            #expect(try await demo.presenter.run(wrong) == "ok \(wrong) delivered=1")
            try await demo.presenter.waitFor("report onboarding.alert visible")
            try await demo.watch.waitFor(
                #"did navigate flow=OnboardingFlow step=alert("Wrong user name or password for 'demo'")"#)
            let closing = demo.presenter.lines.count
            #expect(try await demo.presenter.run("dismiss onboarding.alert") == "ok dismiss onboarding.alert")
            try await demo.presenter.waitFor("report onboarding.alert dismissed", from: closing)
            try await demo.presenter.waitFor("report onboarding.login visible", from: closing)
        }
    }

    /// A second `movie-presenter` with the first one's name: the first is told `replaced` and exits; the second
    /// hosts the session, and nobody takes it back.
    @Test func aSecondPresenterOfTheSameNameReplacesTheFirstWhichStops() async throws {
        try await withCluster { cluster in
            let demo = try await DemoSystem.start(in: cluster)
            let second = try cluster.startPresenter()
            try await second.waitFor(prefix: "snapshot ")
            let exit = await demo.presenter.process.waitForExit()
            #expect(exit != nil && exit != .exited(0), "the replaced presenter ends with an error: \(String(describing: exit))")
            #expect(demo.presenter.process.stderr.lines.contains { $0.contains("replaced") })
            // The second one synced (the first's SYNC, then its own), works, and nobody syncs again.
            let daemonLog = demo.daemon.process
            let firstSync = try await daemonLog.waitForError(from: 0, "the first SYNC") { $0.contains("presenter synced") }
            try await daemonLog.waitForError(from: firstSync + 1, "the second SYNC") { $0.contains("presenter synced") }
            let syncs = daemonLog.stderr.lines.filter { $0.contains("presenter synced") }.count
            let pick = "action onboarding.login proceed {\"user\":\"demo\",\"password\":\"demo\"}"
            #expect(try await second.run(pick) == "ok \(pick) delivered=1")
            try await second.waitFor("report onboarding.apikey visible")
            #expect(daemonLog.stderr.lines.filter { $0.contains("presenter synced") }.count == syncs)
        }
    }
}
