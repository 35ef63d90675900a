import FlowCore
import FlowWire
import Foundation
import Testing

/// The movie demo as real processes: `flowd`, a `flowctl watch` on the default session, the login and movie
/// services, and the headless presenter, each started once the previous one is in place, so their output is
/// deterministic.
struct DemoSystem: Sendable {
    let cluster: Cluster
    let daemon: Daemon
    let watch: Watch
    let login: ManagedProcess
    let movies: ManagedProcess
    let presenter: Presenter

    /// What the watch prints once the login service has attached AppFlow's stepper: the onboarding is presented.
    static let onboardingLog = [
        "did navigate flow=AppFlow step=onboardingIsRequired",
        "did navigate flow=OnboardingFlow step=loginIsRequired",
    ]

    /// What the watch prints for the onboarding's two forms.
    static let onboardedLog = [
        "did navigate flow=OnboardingFlow step=userIsLoggedIn",
        "did navigate flow=AppFlow step=onboardingIsComplete",
    ]

    /// The flows of the dashboard, parent first, as `flowctl tree` lists them once the onboarding is over.
    static let dashboardFlows = [
        "AppFlow", "DashboardFlow", "WishlistFlow", "WatchedFlow", "TrendingFlow", "TrendingMovieFlow", "CastListFlow",
    ]

    /// The movie service's attachments at launch: the three movie lists and the cast list.
    static let movieServiceLaunchKinds = ["movies.wishlist", "movies.watched", "movies.trending", "movies.castList"]

    /// Starts everything in order and waits until the presenter shows the onboarding's login form.
    static func start(in cluster: Cluster, presenterArguments: [String] = []) async throws -> DemoSystem {
        let daemon = try await cluster.startFlowd()
        let watch = try await cluster.startWatch(session: "default")
        let login = try cluster.startLoginService()
        try await watch.waitFor(onboardingLog.last!)
        let movies = try cluster.startMovieService()
        try await waitForAttachments(of: movies, kinds: movieServiceLaunchKinds)
        let presenter = try cluster.startPresenter(presenterArguments)
        try await presenter.waitFor("report onboarding.login visible")
        return DemoSystem(
            cluster: cluster, daemon: daemon, watch: watch, login: login, movies: movies, presenter: presenter
        )
    }

    /// Logs in and sets the API key through the presenter; returns once the wishlist is visible.
    func onboard() async throws {
        let proceed = #"action onboarding.login proceed {"user":"demo","password":"demo"}"#
        let loggedInFrom = presenter.lines.count
        let loggedIn = try await presenter.run(proceed)
        #expect(loggedIn == "ok " + proceed + " delivered=1")
        try await presenter.waitFor("report onboarding.apikey visible", from: loggedInFrom)
        let setApiKey = #"action onboarding.apikey setApiKey {"key":"k"}"#
        // The wishlist was reported visible once already, under the onboarding's modal: wait for the report that
        // follows the dismissal, not that one.
        let keySetFrom = presenter.lines.count
        let keySet = try await presenter.run(setApiKey)
        #expect(keySet == "ok " + setApiKey + " delivered=1")
        try await presenter.waitFor("report wishlist.list visible", from: keySetFrom)
        try await watch.waitFor(Self.onboardedLog.last!)
        // The onboarding ends when flowd hears the presenter report its root dismissed; until then OnboardingFlow is
        // in the tree (and would get deep links). Poll the tree, bounded, so a test that kills the presenter next
        // does not race that report.
        let deadline = ContinuousClock.now.advanced(by: generousDeadline)
        while try await flows().contains("OnboardingFlow") {
            guard ContinuousClock.now < deadline else {
                throw HarnessError("OnboardingFlow still in the tree \(generousDeadline) after the onboarding completed")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// The flows of a session's tree, parent first (`flowctl tree --json`).
    func flows(session: String = "default") async throws -> [String] {
        let result = try await cluster.flowctlSucceeding(["tree", "--json", "--session", session])
        let tree = try JSONDecoder().decode(WireTree.self, from: Data(result.output.utf8))
        return tree.allNodes.map(\.flow)
    }
}

/// Waits until a stepper process logged `attached` for an attachment of each of `kinds` (its `StepperClient` got
/// the `ATTACH`); returns the attachments it logged (`movies.wishlist default/6 on wishlist.list`), in order.
@discardableResult
func waitForAttachments(of service: ManagedProcess, kinds: [String], from: Int = 0) async throws -> [String] {
    for kind in kinds {
        try await service.waitForError(from: from, "the ATTACH of a \(kind) attachment") {
            $0.hasSuffix(" attached") && $0.contains("attachment=\(kind) ")
        }
    }
    return attachments(loggedBy: service, from: from)
}

/// The attachments a stepper process logged as `attached`, from line `from` of its standard error on.
func attachments(loggedBy service: ManagedProcess, from: Int = 0) -> [String] {
    service.stderr.lines.dropFirst(from).compactMap { line in
        guard line.hasSuffix(" attached"), let start = line.range(of: "attachment=") else { return nil }
        let rest = line[start.upperBound...]
        guard let end = rest.range(of: " [") ?? rest.range(of: " attached") else { return nil }
        return String(rest[..<end.lowerBound])
    }
}
