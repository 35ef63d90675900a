// movie-service: the movie demo's movie service, a stepper process serving `movies.wishlist`, `movies.watched`,
// `movies.trending`, `movies.detail` and `movies.castList` (MovieServices' MovieStepperLogic over FlowClient's
// StepperClient).
//
// It connects to flowd's control endpoint (the default one, or --control), answers ACTIONs by emitting steps
// (a pick on a movie list: movieIsPicked(id); a cast pick: castIsPicked(id); the wishlist's about and settings
// buttons), logs to standard error, and leaves cleanly (BYE) on SIGTERM/SIGINT.

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

struct MovieServiceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "movie-service",
        abstract: "The movie demo's movie service: serves movies.wishlist, .watched, .trending, .detail, .castList."
    )

    @OptionGroup var connection: FlowdClientOptions

    @Option(help: "This process's stable name.")
    var name = "movie-service"

    func run() async throws {
        connection.bootstrapStandardErrorLogging()
        let logger = Logger(label: "flowd.movie-service")
        let client = StepperClient(
            name: name, serves: MovieStepperLogic.kinds, configuration: try connection.clientConfiguration(logger: logger)
        )
        logger.info(
            "movie service starting",
            metadata: [
                "control": "\(connection.endpoints.control)", "kinds": "\(MovieStepperLogic.kinds.joined(separator: ","))",
            ]
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
                        try logic.attach(attachment.serviceAttachment)
                    case .detached(let attachment, let reason):
                        logger.info("detached", metadata: ["attachment": "\(attachment)", "reason": "\(reason)"])
                        logic.detach(attachment.serviceKey)
                    case .action(let action, let attachment):
                        logger.info("action", metadata: ["action": "\(action)", "attachment": "\(attachment)"])
                        emissions = try logic.handle(action: action, on: attachment.serviceKey)
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
func main() async { await MovieServiceCommand.main() }

await main()
