import Foundation
import Testing

/// The stock daemon, `flowd --app Examples/flowfiles/movies.flows.yaml`, with the demo's real services, presenter and
/// flowctl as processes: the movie demo declared as data runs as the Swift one does (its flows named as in the file).
@Suite(.serialized, .timeLimit(.minutes(3)))
struct FlowFileDaemonProcessTests {
    static let moviesFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Examples/flowfiles/movies.flows.yaml").path

    @Test func theStockFlowdRunsTheMovieDemoFromItsFlowFile() async throws {
        try await withCluster { cluster in
            try await cluster.startFlowd(["--app", Self.moviesFile], executable: "flowd")
            let watch = try await cluster.startWatch(session: "default")
            try cluster.startLoginService()
            try await watch.waitFor("did navigate flow=onboarding step=loginIsRequired")
            try cluster.startMovieService()
            let presenter = try cluster.startPresenter()
            try await presenter.waitFor("report onboarding.login visible")

            let proceed = #"action onboarding.login proceed {"user":"demo","password":"demo"}"#
            #expect(try await presenter.run(proceed) == "ok \(proceed) delivered=1")
            _ = try await presenter.waitFor("report onboarding.apikey visible")
            let setApiKey = #"action onboarding.apikey setApiKey {"key":"k"}"#
            #expect(try await presenter.run(setApiKey) == "ok \(setApiKey) delivered=1")
            try await watch.waitFor("did navigate flow=app step=onboardingIsComplete")

            // The vocabulary is the file's; a deep link an operator sends is navigated by every flow that has it.
            let describe = try await cluster.flowctlSucceeding(["describe"])
            #expect(describe.stdout.contains { $0.contains("movieIsPicked") })
            _ = try await cluster.flowctlSucceeding(["step", "movieIsPicked", "23452"])
            try await watch.waitFor("did navigate flow=castList step=movieIsPicked(23452)")
            _ = try await presenter.waitFor("report wishlist.movie.23452 visible")

            #expect(
                watch.lines == [
                    "did navigate flow=app step=onboardingIsRequired",
                    "did navigate flow=onboarding step=loginIsRequired",
                    "did navigate flow=onboarding step=userIsLoggedIn",
                    "did navigate flow=app step=onboardingIsComplete",
                    "did navigate flow=app step=movieIsPicked(23452)",
                    "did navigate flow=dashboard step=movieIsPicked(23452)",
                    "did navigate flow=wishlist step=movieIsPicked(23452)",
                    "did navigate flow=watched step=movieIsPicked(23452)",
                    "did navigate flow=trending step=movieIsPicked(23452)",
                    "did navigate flow=trendingMovie step=movieIsPicked(23452)",
                    "did navigate flow=castList step=movieIsPicked(23452)",
                ]
            )
        }
    }

    /// The wishlist's `adapt` of `aboutIsRequired` is asked of the real movie service (`ADAPT`): the first About is
    /// replaced by `unauthorized` (an alert), the second goes through.
    @Test func theMovieServiceAnswersTheWishlistsAboutRefusingTheFirst() async throws {
        try await withCluster { cluster in
            try await cluster.startFlowd(["--app", Self.moviesFile], executable: "flowd")
            let watch = try await cluster.startWatch(session: "default")
            let login = try cluster.startLoginService()
            let movies = try cluster.startMovieService()
            // The list's action counts its steppers and the adapt asks the movie service: both must have attached.
            try await waitForAttachments(of: movies, kinds: DemoSystem.movieServiceLaunchKinds)
            try await waitForAttachments(of: login, kinds: ["login.app", "login.logout"])
            let presenter = try cluster.startPresenter()
            try await presenter.waitFor("report onboarding.login visible")
            try await presenter.run(#"action onboarding.login proceed {"user":"demo","password":"demo"}"#)
            try await presenter.waitFor("report onboarding.apikey visible")
            try await presenter.run(#"action onboarding.apikey setApiKey {"key":"k"}"#)
            try await watch.waitFor("did navigate flow=app step=onboardingIsComplete")
            let start = watch.lines.count

            // The list's two steppers (the movie service's and the logout's) get the action.
            #expect(try await presenter.run("action wishlist.list about") == "ok action wishlist.list about delivered=2")
            try await watch.waitFor("did navigate flow=wishlist step=unauthorized")
            try await presenter.waitFor("report wishlist.alert visible")
            let dismissed = presenter.lines.count
            #expect(try await presenter.run("dismiss wishlist.alert") == "ok dismiss wishlist.alert")
            try await presenter.waitFor("report wishlist.list visible", from: dismissed)
            #expect(try await presenter.run("action wishlist.list about") == "ok action wishlist.list about delivered=2")
            try await watch.waitFor("did navigate flow=wishlist step=aboutIsRequired")
            try await presenter.waitFor("report wishlist.about visible")
            #expect(
                Array(watch.lines.dropFirst(start)) == [
                    "did navigate flow=wishlist step=unauthorized",
                    "did navigate flow=wishlist step=aboutIsRequired",
                ]
            )
        }
    }

    @Test func theStockFlowdRefusesAFileWithMistakesAndStartsNothing() async throws {
        try await withCluster { cluster in
            let bad = cluster.runtimeDirectory + "/bad.flows.yaml"
            try Data("flowfile: 1\napp: x\nroot: main\nflows: {}\n".utf8).write(to: URL(fileURLWithPath: bad))
            let process = try cluster.launch("flowd", ["--app", bad, "--runtime-dir", cluster.runtimeDirectory])
            let exit = await process.waitForExit()
            #expect(exit == .exited(1))
            #expect(
                process.stderr.lines == [
                    "\(bad):3:7: error: unknown flow 'main'; declare 'main' under 'flows:'",
                    "flowd: \(bad): 1 error; nothing started",
                ]
            )
            #expect(!FileManager.default.fileExists(atPath: cluster.runtimeDirectory + "/control.sock"))
        }
    }

    /// `--help` says how the stock flowd finds its flow file (`--app` is not among the daemon's options) whether or
    /// not a file is named, and exits 0 without starting.
    @Test func theStockFlowdsHelpNamesAppWithOrWithoutAFile() async throws {
        try await withCluster { cluster in
            for arguments in [["--help"], ["--app", "/nonexistent.flows.yaml", "--help"], ["-h", "--app=x.yaml"]] {
                let process = try cluster.launch("flowd", arguments)
                #expect(await process.waitForExit() == .exited(0), "\(arguments)")
                let lines = process.stdout.lines
                #expect(lines.first?.hasPrefix("flowd --app FILE [options]") == true, "\(arguments): \(lines.prefix(3))")
                #expect(lines.contains { $0.hasPrefix("USAGE: flowd") }, "\(arguments)")
                #expect(lines.contains { $0.contains("--outbox-bytes-limit") }, "\(arguments)")
            }
            #expect(!FileManager.default.fileExists(atPath: cluster.runtimeDirectory + "/control.sock"))
        }
    }
}
