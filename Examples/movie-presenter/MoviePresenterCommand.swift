// movie-presenter: the presenter of the movie demo, over FlowClient's PresenterClient. It hosts one flowd session,
// carries out the daemon's navigation commands on a PresentationModel and reports truthfully what is visible and
// dismissed. Two modes on the same client:
// - the terminal UI (TerminalPresenter.swift), for a person: when standard input and output are both terminals, or
//   with --tui; it draws the UI and takes keys (see --help);
// - headless (PresenterService.swift: ChangePrinter, CommandReader), for tests, docker compose and systemd: when
//   either is not a terminal, or with --headless; standard input carries commands, standard output one line per
//   event.
//
// Usage: movie-presenter [--tui | --headless] [--session <id>] [--create] [--control <endpoint>] [--name <name>]
//                        [--log-level <level>] [--log-file <path>]
//
// Headless mode:
//
// Standard output, one line per event, flushed at once:
//   snapshot <seq>                        a SNAPSHOT replaced the whole UI
//   command <seq> <command>               a navigation command carried out (`command 12 push wishlist.movie.23452
//                                         onto wishlist.stack`)
//   rejected <command>: <error>           a command the UI could not carry out
//   user <operation>                      an operation typed on standard input changed the UI (`user tap back in …`)
//   report <presentable> <state>          what was reported after the change: visible, hidden or dismissed
//   ok <input line>[ delivered=<n>]       an input line was carried out (for `action`: how many steppers got it)
//   error <input line>: <reason>          an input line could not be carried out
//   --- screens / <rendering> / --- end   the UI (PresentationModel's rendering: `*` visible, `-` not)
//
// Standard input, one command per line (blank lines and lines starting with # are ignored):
//   action <presentable> <action-name> [json-payload]   a person acts on a screen (USER_ACTION)
//   back <stack>                                       the back button of a stack
//   tab <tabs> <index>                                 select a tab
//   dismiss <modal>                                    close a modal (an alert's button)
//   screens                                            print the UI
//   quit                                               leave (BYE) and exit
// At the end of standard input the presenter keeps hosting the session until SIGTERM or SIGINT.
//
// Logs go to standard error.

import ArgumentParser
import FlowClient
import FlowCore
import FlowWire
import Foundation
import Logging
import ServiceLifecycle
import UnixSignals

@main
struct MoviePresenterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "movie-presenter",
        abstract: "The movie demo's presenter: a terminal UI for a person, or headless, driven by standard input.",
        discussion: """
            MODES
              Terminal UI when standard input and output are both terminals, or \
            with --tui. Headless otherwise, or with --headless (tests, docker \
            compose, systemd).

            TERMINAL UI KEYS
              up/down j/k   move in a list
              Enter         open the selected row (a movie, a cast, a settings
                            row), or submit the form on screen
              b Backspace   back (pops the stack's top screen)
              1 2 3         select a tab; Tab: next tab (on Trending: next page)
              l             log in as demo/demo; L: type a user and password
              a             set the demo API key; A: type a key
              s  i  o       Wishlist's settings, about, log out
              d             done (About, Settings)
              Esc           close an alert or a modal
              q Ctrl-C      quit (BYE to flowd)
              Logs go to --log-file (none by default); warnings show on the \
            status line.

            HEADLESS INPUT (one command per line)
              action <presentable> <action-name> [json-payload]
              back <stack> | tab <tabs> <index> | dismiss <modal> | screens | quit
            Standard output: one line per event (snapshot, command, rejected, \
            user, report, ok, error, screens).
            """
    )

    @Flag(help: "Draw the terminal UI (standard input and output must be terminals).")
    var tui = false

    @Flag(help: "Headless: commands on standard input, events on standard output, even on a terminal.")
    var headless = false

    @Option(name: .customLong("log-file"), help: "Terminal UI: append the logs to this file (default: not kept).")
    var logFile: String?

    @Option(help: "The session to host.")
    var session = "default"

    @Flag(help: "Create the session if it does not exist.")
    var create = false

    @OptionGroup var connection: FlowClientOptions

    @Option(help: "This presenter's stable name.")
    var name = "movie-presenter"

    func validate() throws {
        guard !(tui && headless) else { throw ValidationError("--tui and --headless cannot go together") }
        guard !tui || Terminal.isInteractive else {
            throw ValidationError("--tui needs standard input and output to be a terminal")
        }
    }

    func run() async throws {
        if !headless && (tui || Terminal.isInteractive) {
            try await runTerminalUI()
            return
        }
        connection.bootstrapStandardErrorLogging()
        let logger = Logger(label: "flowd.movie-presenter")
        let client = PresenterClient(
            name: name, session: session, createSession: create,
            configuration: try connection.clientConfiguration(logger: logger)
        )
        let output = LineOutput()
        let changes = client.changes()
        logger.info(
            "presenter starting", metadata: ["control": "\(connection.endpoints.control)", "session": "\(session)"]
        )
        let group = ServiceGroup(
            configuration: .init(
                services: [
                    .init(
                        service: PresenterService(
                            client: client, printer: ChangePrinter(changes: changes, output: output),
                            reader: CommandReader(client: client, output: output, lines: StandardInputLines.stream())
                        ),
                        // `quit` ends it: the group ends too, without an error.
                        successTerminationBehavior: .gracefullyShutdownGroup
                    )
                ],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            )
        )
        try await group.run()
        logger.info("presenter stopped")
    }
}
