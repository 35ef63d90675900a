// login-service: the movie demo's login service, a stepper process serving `login.app`, `login.form`,
// `login.apiKey` and `login.logout` (MovieServices' LoginStepperLogic run by FlowClient's StepperService).
//
// It connects to the daemon's control endpoint (the default one, or --control), answers ACTIONs by emitting steps,
// tells every `login.app` attachment the session's login state on attach and whenever it changes (login with the
// API key set, logout, a token that expires), logs to standard error, and leaves cleanly (BYE) on SIGTERM/SIGINT.

import ArgumentParser
import ExampleSupport
import FlowClient
import MovieServices

struct LoginServiceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login-service",
        abstract: "The movie demo's login service: serves login.app, login.form, login.apiKey and login.logout."
    )

    @OptionGroup var connection: FlowClientOptions

    @Option(help: "This process's stable name.")
    var name = "login-service"

    @Option(name: .customLong("token-lifetime"), help: "How many seconds a session token stays valid.")
    var tokenLifetime = 3600

    @Option(
        name: .customLong("user"), help: "A user, as name:password (repeatable; default: demo:demo, alice:wonderland)."
    )
    var users: [String] = []

    func validate() throws {
        guard tokenLifetime > 0 else { throw ValidationError("--token-lifetime must be positive") }
        for user in users where !user.contains(":") {
            throw ValidationError("--user takes name:password, not '\(user)'")
        }
    }

    func run() async throws {
        var accounts = LoginService.demoUsers
        if !users.isEmpty {
            let pairs = users.map { $0.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false) }
            accounts = Dictionary(pairs.map { (String($0[0]), String($0[1])) }, uniquingKeysWith: { $1 })
        }
        let logic = LoginStepperLogic(service: LoginService(users: accounts, tokenLifetime: .seconds(tokenLifetime)))
        try await StepperService.serve(
            LoginServiceLogic(logic), name: name, options: connection, label: "flowd.login-service"
        )
    }
}

/// Runs the command. Top-level code would pick `ParsableCommand`'s synchronous `main()`; inside an async function the
/// asynchronous one is chosen.
func main() async { await LoginServiceCommand.main() }

await main()
