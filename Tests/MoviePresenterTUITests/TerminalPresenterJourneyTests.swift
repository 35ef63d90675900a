import Foundation
import Synchronization
import Testing

/// The terminal presenter as a person meets it: `movie-flowd`, `login-service` and `movie-service` as processes over
/// `ipc://` in a runtime folder of the test's own, and `movie-presenter` (interactive: its terminal is a tmux window)
/// driven with `tmux send-keys` and read with `tmux capture-pane`. Every process is ended by its pid, the tmux server
/// of the test's own socket is killed, the folder removed.
@Suite(.serialized, .timeLimit(.minutes(5)))
struct TerminalPresenterJourneyTests {
    @Test func aPersonLogsInPicksAMovieGoesBackOpensTheSettingsAndSwitchesTabsByKeys() async throws {
        let system = try DemoProcesses()
        let tmux = try Tmux()
        let pane = Mutex<pid_t?>(nil)
        do {
            try await journey(system: system, tmux: tmux, pane: pane)
        } catch {
            Issue.record("\(error)\n\(system.diagnostics)\n--- presenter log:\n\(presenterLog(system))")
        }
        await tmux.stop(panePID: pane.withLock { $0 })
        await system.stop()
    }

    private func presenterLog(_ system: DemoProcesses) -> String {
        (try? String(contentsOfFile: "\(system.folder)/presenter.log", encoding: .utf8)) ?? "(none)"
    }

    private func journey(system: DemoProcesses, tmux: Tmux, pane: borrowing Mutex<pid_t?>) async throws {
        try await system.start()
        // After `q`, the shell prints the exit code and the terminal's settings (raw mode must be undone), then waits.
        let presenter =
            "'\(system.binaries)/movie-presenter' --heartbeat-ms \(DemoProcesses.heartbeatMs) --log-file '\(system.folder)/presenter.log'"
        try tmux.start(
            "\(presenter); echo \"presenter exited with $?\";"
                + " stty -a | tr -s ' ;' '\\n\\n' | grep -x -e echo -e icanon; exec sleep 3600",
            columns: 100, rows: 32, environment: system.environment
        )
        let panePID = try tmux.panePID()
        pane.withLock { $0 = panePID }

        // Every step waits until the screen shows all it must (a frame is drawn in pieces: no single capture is
        // trusted to be whole).

        // Launch: the onboarding's login form, presented over the app.
        try await tmux.waitForScreen("window  app.stack › [modal] onboarding.stack › onboarding.login", "Log in")
        try tmux.send("l")
        try await tmux.waitForScreen("onboarding.apikey", "Login › API key", "sent proceed (log in as demo)")
        try tmux.send("a")

        // The dashboard: the Wishlist tab selected, its four movies, the first one selected.
        try await tmux.waitForScreen(
            "window  app.stack › dashboard.tabs › wishlist.stack › wishlist.list",
            " [1 Wishlist]   2 Watched    3 Trending",
            "> Star Trek Beyond", "Starwars: The force awakens", "Avatar", "Blade Runner",
            "reported: onboarding.stack dismissed",
            absent: ["[modal] onboarding"]
        )

        // Down twice, Enter: Avatar's detail with its cast, pushed on the wishlist's stack.
        try tmux.send("j", "j")
        try await tmux.waitForScreen("> Avatar")
        try tmux.send("Enter")
        try await tmux.waitForScreen(
            "Avatar (2009)", "wishlist.movie.23452", "Wishlist › Avatar   (wishlist.stack, 2 deep)",
            "Director  J. Cameron", "> Worthington", "Weaver", "Rodriguez", "Weathers", "Duke",
            "reported: wishlist.list hidden · wishlist.movie.23452 visible"
        )

        // Back: the list again, Avatar still selected; the detail reported dismissed.
        try tmux.send("b")
        try await tmux.waitForScreen(
            "back in wishlist.stack", "> Avatar", "Wishlist   (wishlist.stack, 1 deep)",
            "reported: wishlist.movie.23452 dismissed · wishlist.list visible"
        )

        // The gear: the settings' split view (master and detail side by side) under the alert SettingsFlow forwards.
        try tmux.send("s")
        try await tmux.waitForScreen(
            "[modal] settings.split + [alert] settings.alert", "┌─ Alert", "Demo of multiple Flow Contributor"
        )
        try tmux.send("Escape")
        try await tmux.waitForScreen(
            "[master]", "│ [detail]", "settings.list │ Log in", "> Login", "reported: settings.alert dismissed",
            absent: ["┌─ Alert"]
        )
        try tmux.send("d")
        try await tmux.waitForScreen(
            "wishlist.stack › wishlist.list", "[1 Wishlist]", "> Avatar", absent: ["[master]"]
        )

        // Tab 2: Watched selected, its movies shown.
        try tmux.send("2")
        try await tmux.waitForScreen(
            " 1 Wishlist   [2 Watched]   3 Trending", "watched.list", "> The Terminator", "Predator", "Dune",
            "First Constact", "reported: wishlist.stack hidden · wishlist.list hidden · watched.stack visible"
        )

        // q: the presenter leaves, exits 0, and the terminal is out of raw mode (echo and icanon are back).
        try tmux.send("q")
        try await tmux.waitForScreen("presenter exited with 0", "\necho\n", "\nicanon\n")
        #expect(!presenterLog(system).contains(" error "))
    }
}
