// login-service: the movie demo's login service, a stepper process serving `login.app`, `login.form`,
// `login.apiKey` and `login.logout` (MovieServices' LoginStepperLogic over FlowClient's StepperClient).
//
// It connects to flowd's control endpoint (the default one, or --control), answers ACTIONs by emitting steps,
// tells every `login.app` attachment the session's login state on attach and whenever it changes (login with the
// API key set, logout, a token that expires), logs to standard error, and leaves cleanly (BYE) on SIGTERM/SIGINT.

import ArgumentParser
import FlowClient
import FlowCore
import FlowWire
import Logging
import MovieDemo
import MovieServices
import ServiceLifecycle
import UnixSignals

struct LoginServiceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login-service",
        abstract: "The movie demo's login service: serves login.app, login.form, login.apiKey and login.logout."
    )

    @Option(help: "flowd's control endpoint (default: ipc://<runtime dir>/control.sock).")
    var control: String?

    @Option(help: "This process's stable name.")
    var name = "login-service"

    @Option(name: .customLong("token-lifetime"), help: "How many seconds a session token stays valid.")
    var tokenLifetime = 3600

    @Option(name: .customLong("user"), help: "A user, as name:password (repeatable; default: demo:demo, alice:wonderland).")
    var users: [String] = []

    @Option(name: .customLong("heartbeat-ms"), help: "Heartbeat interval towards flowd, in milliseconds (100...60000).")
    var heartbeatMs = 1000

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel = "info"

    @Option(
        name: .customLong("key-file"),
        help: "This process's CURVE secret key file, for a flowd running with keys (default: $FLOWD_KEY_FILE)."
    )
    var keyFile: String?

    @Option(
        name: .customLong("server-key"),
        help: "flowd's CURVE public key: Z85 text or a file holding it (default: $FLOWD_SERVER_KEY)."
    )
    var serverKey: String?

    func validate() throws {
        do {
            _ = try FlowClientCurve.resolve(keyFile: keyFile, serverKey: serverKey)
        } catch {
            throw ValidationError(error.message)
        }
        guard (100...60_000).contains(heartbeatMs) else { throw ValidationError("--heartbeat-ms must be 100...60000") }
        guard tokenLifetime > 0 else { throw ValidationError("--token-lifetime must be positive") }
        guard Logger.Level(rawValue: logLevel.lowercased()) != nil else {
            throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical")
        }
        for user in users where !user.contains(":") { throw ValidationError("--user takes name:password, not '\(user)'") }
    }

    func run() async throws {
        let level = Logger.Level(rawValue: logLevel.lowercased()) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "flowd.login-service")
        var endpoints = FlowdEndpoints.default()
        if let control { endpoints.control = control }
        var accounts = LoginService.demoUsers
        if !users.isEmpty {
            accounts = [:]
            for user in users {
                let parts = user.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
                accounts[String(parts[0])] = String(parts[1])
            }
        }
        let client = StepperClient(
            name: name, serves: LoginStepperLogic.kinds,
            configuration: FlowClientConfiguration(
                endpoints: endpoints, heartbeatInterval: .milliseconds(heartbeatMs),
                curve: try FlowClientCurve.resolve(keyFile: keyFile, serverKey: serverKey), logger: logger
            )
        )
        let logic = LoginStepperLogic(service: LoginService(users: accounts, tokenLifetime: .seconds(tokenLifetime)))
        logger.info(
            "login service starting",
            metadata: ["control": "\(endpoints.control)", "kinds": "\(LoginStepperLogic.kinds.joined(separator: ","))"]
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
                        emissions = try logic.attach(Self.serviceAttachment(attachment), now: now)
                    case .event(.detached(let attachment, let reason)):
                        logger.info("detached", metadata: ["attachment": "\(attachment)", "reason": "\(reason)"])
                        logic.detach(Self.key(attachment))
                    case .event(.action(let action, let attachment)):
                        logger.info("action", metadata: ["action": "\(action)", "attachment": "\(attachment)"])
                        emissions = try logic.handle(action: action, on: Self.key(attachment), now: now)
                    case .tick:
                        emissions = logic.tick(now: now)
                    }
                } catch .unknownAction(let kind, let action) {
                    // Every stepper on a screen gets its actions; those meant for another are not ours.
                    logger.debug("action not for this kind", metadata: ["kind": "\(kind)", "action": "\(action)"])
                } catch {
                    logger.notice("action refused", metadata: ["error": "\(error)"])
                }
                for emission in emissions { await emit(emission) }
            }
            group.cancelAll()
            try await group.waitForAll()
        }
    }

    private func emit(_ emission: ServiceEmission) async {
        do {
            let outcome = try await client.emit(
                emission.step, session: emission.attachment.session,
                attachment: AttachmentID(emission.attachment.attachment)
            )
            logger.info("emitted", metadata: ["emission": "\(emission)", "outcome": "\(outcome)"])
        } catch {
            logger.warning("step not emitted", metadata: ["emission": "\(emission)", "error": "\(error)"])
        }
    }

    static func key(_ attachment: RemoteAttachment) -> AttachmentKey {
        AttachmentKey(session: attachment.session, attachment: attachment.attachment.rawValue)
    }

    static func serviceAttachment(_ attachment: RemoteAttachment) -> ServiceAttachment {
        ServiceAttachment(
            key: key(attachment), kind: attachment.kind, presentable: attachment.presentable.rawValue,
            context: attachment.context
        )
    }
}

/// Runs the command. Top-level code would pick `ParsableCommand`'s synchronous `main()`; inside an async function the
/// asynchronous one is chosen.
func main() async { await LoginServiceCommand.main() }

await main()
