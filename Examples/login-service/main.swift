// login-service: the movie demo's login service, a stepper process serving `login.app`, `login.form`,
// `login.apiKey` and `login.logout` (MovieServices' LoginStepperLogic over FlowClient's StepperClient).
//
// It connects to flowd's control endpoint (the default one, or --control), answers ACTIONs by emitting steps,
// tells every `login.app` attachment the session's login state on attach and whenever it changes (login with the
// API key set, logout, a token that expires), logs to standard error, and leaves cleanly (BYE) on SIGTERM/SIGINT.

import ArgumentParser
import ExampleSupport
import FlowClient
import FlowCore
import FlowWire
import Logging
import MovieVocabulary
import MovieServices
import ServiceLifecycle
import UnixSignals

struct LoginServiceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login-service",
        abstract: "The movie demo's login service: serves login.app, login.form, login.apiKey and login.logout."
    )

    @OptionGroup var connection: FlowdClientOptions

    @Option(help: "This process's stable name.")
    var name = "login-service"

    @Option(name: .customLong("token-lifetime"), help: "How many seconds a session token stays valid.")
    var tokenLifetime = 3600

    @Option(name: .customLong("user"), help: "A user, as name:password (repeatable; default: demo:demo, alice:wonderland).")
    var users: [String] = []

    func validate() throws {
        guard tokenLifetime > 0 else { throw ValidationError("--token-lifetime must be positive") }
        for user in users where !user.contains(":") { throw ValidationError("--user takes name:password, not '\(user)'") }
    }

    func run() async throws {
        connection.bootstrapStandardErrorLogging()
        let logger = Logger(label: "flowd.login-service")
        var accounts = LoginService.demoUsers
        if !users.isEmpty {
            accounts = [:]
            for user in users {
                let parts = user.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
                accounts[String(parts[0])] = String(parts[1])
            }
        }
        let client = StepperClient(
            name: name, serves: LoginStepperLogic.kinds, configuration: try connection.clientConfiguration(logger: logger)
        )
        let logic = LoginStepperLogic(service: LoginService(users: accounts, tokenLifetime: .seconds(tokenLifetime)))
        logger.info(
            "login service starting",
            metadata: [
                "control": "\(connection.endpoints.control)", "kinds": "\(LoginStepperLogic.kinds.joined(separator: ","))",
            ]
        )
        let group = ServiceGroup(
            configuration: .init(
                services: [.init(service: LoginServer(client: client, logic: logic, logger: logger))],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            )
        )
        try await group.run()
        logger.info("login service stopped")
    }
}

/// Feeds the client's events and the passing of time to the logic, one at a time, and emits what it returns.
struct LoginServer: Service {
    private enum Input: Sendable {
        case event(StepperEvent)
        case tick
    }

    let client: StepperClient
    let logic: LoginStepperLogic
    let logger: Logger

    func run() async throws {
        try await cancelWhenGracefulShutdown { try await serve() }
    }

    private func serve() async throws {
        let (inputs, feed) = AsyncStream.makeStream(of: Input.self)
        var logic = logic
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                defer { feed.finish() }
                try await client.run()
            }
            group.addTask {
                for await event in client.events { feed.yield(.event(event)) }
            }
            group.addTask {
                // Token expiry is checked every second.
                while !Task.isCancelled {
                    do { try await Task.sleep(for: .seconds(1)) } catch { return }
                    feed.yield(.tick)
                }
            }
            for await input in inputs {
                let now = ContinuousClock.now
                var emissions: [ServiceEmission] = []
                do throws(ServiceError) {
                    switch input {
                    case .event(.attached(let attachment)):
                        logger.info("attached", metadata: ["attachment": "\(attachment)"])
                        emissions = try logic.attach(attachment.serviceAttachment, now: now)
                    case .event(.detached(let attachment, let reason)):
                        logger.info("detached", metadata: ["attachment": "\(attachment)", "reason": "\(reason)"])
                        logic.detach(attachment.serviceKey)
                    case .event(.action(let action, let attachment)):
                        logger.info("action", metadata: ["action": "\(action)", "attachment": "\(attachment)"])
                        emissions = try logic.handle(action: action, on: attachment.serviceKey, now: now)
                    case .tick:
                        emissions = logic.tick(now: now)
                    }
                } catch {
                    error.log(to: logger)
                }
                for emission in emissions { await client.emit(emission, logger: logger) }
            }
            group.cancelAll()
            try await group.waitForAll()
        }
    }
}

/// Runs the command. Top-level code would pick `ParsableCommand`'s synchronous `main()`; inside an async function the
/// asynchronous one is chosen.
func main() async { await LoginServiceCommand.main() }

await main()
