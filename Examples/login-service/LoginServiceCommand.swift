// login-service: the movie demo's login service, a stepper process serving `login.app`, `login.form`,
// `login.apiKey` and `login.logout` (MovieServices' LoginStepperLogic run by FlowClient's StepperService).
//
// It connects to the daemon's control endpoint (the default one, or --control), answers ACTIONs by emitting steps,
// tells every `login.app` attachment the session's login state on attach and whenever it changes (login with the
// API key set, logout, a token that expires), logs to standard error, and leaves cleanly (BYE) on SIGTERM/SIGINT.

import ArgumentParser
import ExampleSupport
import FlowClient

@main
struct LoginServiceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login-service",
        abstract: "The movie demo's login service: serves login.app, login.form, login.apiKey and login.logout."
    )

    @OptionGroup var connection: FlowClientOptions
    @OptionGroup var login: LoginServiceOptions

    @Option(help: "This process's stable name.")
    var name = "login-service"

    func run() async throws {
        try await StepperService.serve(login.logic, name: name, options: connection, label: "flowd.login-service")
    }
}
