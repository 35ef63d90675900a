import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The movie demo's processes for a fault-injection run, each of which can be killed (SIGKILL) and started again on
/// the same endpoints: `flowd` on a state folder inside the cluster's runtime folder, the login and movie services,
/// the headless presenter, and a `flowctl watch` on the default session that lives through every restart.
///
/// Not `Sendable`: one test drives it from one task.
final class JourneySystem {
    let cluster: Cluster
    /// Where flowd keeps its journal (`--state-dir`).
    let stateDirectory: String
    private let flowdArguments: [String]

    private(set) var daemon: Daemon
    private(set) var presenter: Presenter
    private(set) var login: ManagedProcess
    private(set) var movies: ManagedProcess
    let watch: Watch

    /// Every incarnation, oldest first.
    private(set) var daemons: [Daemon]
    private(set) var presenters: [Presenter]
    private(set) var movieServices: [ManagedProcess]

    /// The presenter's name (a restarted presenter with the same name takes its session over at once).
    static let presenterName = "movie-presenter"

    private init(
        cluster: Cluster, stateDirectory: String, flowdArguments: [String], daemon: Daemon, presenter: Presenter,
        login: ManagedProcess, movies: ManagedProcess, watch: Watch
    ) {
        self.cluster = cluster
        self.stateDirectory = stateDirectory
        self.flowdArguments = flowdArguments
        self.daemon = daemon
        self.presenter = presenter
        self.login = login
        self.movies = movies
        self.watch = watch
        daemons = [daemon]
        presenters = [presenter]
        movieServices = [movies]
    }

    /// Starts everything in order, as ``DemoSystem/start(in:presenterArguments:)`` does, and waits until the
    /// presenter shows the onboarding's login form.
    ///
    /// flowd runs with `--state-dir` (a folder in the runtime folder), `extraFlowdArguments`, and a config file
    /// with the smallest `journal.compact_bytes` (4 KiB): it writes a state snapshot every few dozen records, so that
    /// kills land before, during and after compactions.
    static func start(in cluster: Cluster, extraFlowdArguments: [String] = []) async throws -> JourneySystem {
        // A presenter or flowctl may be written to after it died: a failed write, not the end of the test process.
        signal(SIGPIPE, SIG_IGN)
        let stateDirectory = cluster.runtimeDirectory + "/state"
        let config = cluster.runtimeDirectory + "/flowd-compacting.json"
        try Data(#"{"journal": {"compact_bytes": 4096}}"#.utf8).write(to: URL(fileURLWithPath: config))
        let arguments = extraFlowdArguments + ["--state-dir", stateDirectory, "--config", config]
        let daemon = try await cluster.startFlowd(arguments)
        let watch = try await cluster.startWatch(session: "default")
        let login = try cluster.startLoginService()
        try await watch.waitFor(DemoSystem.onboardingLog.last!)
        let movies = try cluster.startMovieService()
        try await waitForAttachments(of: movies, kinds: DemoSystem.movieServiceLaunchKinds)
        let presenter = try cluster.startPresenter(name: presenterName)
        try await presenter.waitFor("report onboarding.login visible")
        return JourneySystem(
            cluster: cluster, stateDirectory: stateDirectory, flowdArguments: arguments, daemon: daemon,
            presenter: presenter, login: login, movies: movies, watch: watch
        )
    }

    // MARK: - Faults

    /// SIGKILL to flowd, then flowd again on the same endpoints and state folder; returns once it is ready (its
    /// `flowd ready` line: with a journal, it has rebuilt every session before binding its sockets).
    func killAndRestartFlowd() async throws {
        await daemon.process.kill9()
        daemon = try await cluster.startFlowd(flowdArguments)
        daemons.append(daemon)
    }

    /// SIGKILL to the presenter, then a presenter under the same name, which takes the session over; returns once it
    /// applied its first snapshot.
    func killAndRestartPresenter() async throws {
        await presenter.process.kill9()
        presenter = try cluster.startPresenter(name: Self.presenterName)
        presenters.append(presenter)
        try await presenter.waitFor(prefix: "snapshot ")
    }

    /// SIGKILL to the movie service; once flowd has counted it gone (its attachments wait unassigned), a new movie
    /// service, which gets every attachment of its kinds again.
    func killAndRestartMovieService() async throws {
        let from = daemon.process.stderr.count
        await movies.kill9()
        try await daemon.process.waitForError(from: from, "flowd to count the movie service gone") {
            $0.contains("peer gone") && $0.contains("name=movie-service")
        }
        movies = try cluster.startMovieService()
        movieServices.append(movies)
    }

    /// The stepper processes whose steps a journey operation may need (the login service is never killed: it holds
    /// who is logged in, in memory, as a real login service would hold it in its own store).
    var steppers: [ManagedProcess] { [login, movies] }
}
