// movie-service: the movie demo's movie service, a stepper process serving `movies.wishlist`, `movies.watched`,
// `movies.trending`, `movies.detail` and `movies.castList` (MovieServices' MovieStepperLogic over FlowClient's
// StepperClient).
//
// It connects to flowd's control endpoint (the default one, or --control), answers ACTIONs by emitting steps
// (a pick on a movie list: movieIsPicked(id); a cast pick: castIsPicked(id); the wishlist's about and settings
// buttons), logs to standard error, and leaves cleanly (BYE) on SIGTERM/SIGINT.

import ArgumentParser
import FlowClient
import FlowCore
import FlowWire
import Logging
import MovieDemo
import MovieServices
import ServiceLifecycle
import UnixSignals

struct MovieServiceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "movie-service",
        abstract: "The movie demo's movie service: serves movies.wishlist, .watched, .trending, .detail, .castList."
    )

    @Option(help: "flowd's control endpoint (default: ipc://<runtime dir>/control.sock).")
    var control: String?

    @Option(help: "This process's stable name.")
    var name = "movie-service"

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
        guard Logger.Level(rawValue: logLevel.lowercased()) != nil else {
            throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical")
        }
    }

    func run() async throws {
        let level = Logger.Level(rawValue: logLevel.lowercased()) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "flowd.movie-service")
        var endpoints = FlowdEndpoints.default()
        if let control { endpoints.control = control }
        let client = StepperClient(
            name: name, serves: MovieStepperLogic.kinds,
            configuration: FlowClientConfiguration(
                endpoints: endpoints, heartbeatInterval: .milliseconds(heartbeatMs),
                curve: try FlowClientCurve.resolve(keyFile: keyFile, serverKey: serverKey), logger: logger
            )
        )
        logger.info(
            "movie service starting",
            metadata: ["control": "\(endpoints.control)", "kinds": "\(MovieStepperLogic.kinds.joined(separator: ","))"]
        )
        let group = ServiceGroup(
            configuration: .init(
                services: [.init(service: MovieServer(client: client, logger: logger))],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            )
        )
        try await group.run()
        logger.info("movie service stopped")
    }
}

/// Feeds the client's events to the logic, one at a time, and emits what it returns.
struct MovieServer: Service {
    let client: StepperClient
    let logger: Logger

    func run() async throws {
        try await cancelWhenGracefulShutdown { try await serve() }
    }

    private func serve() async throws {
        var logic = MovieStepperLogic()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await client.run() }
            for await event in client.events {
                var emissions: [ServiceEmission] = []
                do throws(ServiceError) {
                    switch event {
                    case .attached(let attachment):
                        logger.info("attached", metadata: ["attachment": "\(attachment)"])
                        try logic.attach(
                            ServiceAttachment(
                                key: Self.key(attachment), kind: attachment.kind,
                                presentable: attachment.presentable.rawValue, context: attachment.context
                            )
                        )
                    case .detached(let attachment, let reason):
                        logger.info("detached", metadata: ["attachment": "\(attachment)", "reason": "\(reason)"])
                        logic.detach(Self.key(attachment))
                    case .action(let action, let attachment):
                        logger.info("action", metadata: ["action": "\(action)", "attachment": "\(attachment)"])
                        emissions = try logic.handle(action: action, on: Self.key(attachment))
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
}

/// Runs the command. Top-level code would pick `ParsableCommand`'s synchronous `main()`; inside an async function the
/// asynchronous one is chosen.
func main() async { await MovieServiceCommand.main() }

await main()
