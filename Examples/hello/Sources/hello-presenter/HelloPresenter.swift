// hello-presenter: a headless presenter for the hello application. It hosts a session (created if new), prints
// what is visible after every change, reports visibility and dismissals to the daemon (PresenterClient does), and
// carries out the steps its arguments give (FlowClient's ScriptedPresenter does), then leaves (BYE). Without steps
// it runs until SIGTERM or SIGINT.

import ArgumentParser
import FlowClient
import Logging

@main
struct HelloPresenter: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hello-presenter", abstract: "A headless presenter for the hello application."
    )

    @OptionGroup var connection: FlowClientOptions

    @Option(help: "The session to host (created when new).")
    var session = "default"

    @Option(help: "Seconds the steps may take in all before the presenter gives up (exit status 1).")
    var timeout = 60

    @Argument(help: "Steps: wait:ID, gone:ID, action:ID:NAME[:JSON], back:STACK, tab:TABS:INDEX, dismiss:MODAL.")
    var steps: [String] = []

    func validate() throws {
        do { _ = try PresenterScript(parsing: steps) } catch { throw ValidationError(error.message) }
        guard timeout > 0 else { throw ValidationError("--timeout must be positive") }
    }

    func run() async throws {
        connection.bootstrapStandardErrorLogging(default: .notice)
        let logger = Logger(label: "hello.presenter")
        let presenter = PresenterClient(
            name: "hello-presenter", session: session, createSession: true,
            configuration: try connection.clientConfiguration(logger: logger)
        )
        let scripted = ScriptedPresenter(script: try PresenterScript(parsing: steps), timeout: .seconds(timeout))
        if let failure = scripted.failure(of: try await scripted.run(presenter, logger: logger)) {
            ScriptedPresenter.writeLine("hello-presenter: \(failure)")
            throw ExitCode.failure
        }
    }
}
