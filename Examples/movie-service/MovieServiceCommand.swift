// movie-service: the movie demo's movie service, a stepper process serving `movies.wishlist`, `movies.watched`,
// `movies.trending`, `movies.detail` and `movies.castList` (MovieServices' MovieStepperLogic run by FlowClient's
// StepperService).
//
// It connects to the daemon's control endpoint (the default one, or --control), answers ACTIONs by emitting steps
// (a pick on a movie list: movieIsPicked(id); a cast pick: castIsPicked(id); the wishlist's about and settings
// buttons), logs to standard error, and leaves cleanly (BYE) on SIGTERM/SIGINT.

import ArgumentParser
import ExampleSupport
import FlowClient

@main
struct MovieServiceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "movie-service",
        abstract: "The movie demo's movie service: serves movies.wishlist, .watched, .trending, .detail, .castList."
    )

    @OptionGroup var connection: FlowClientOptions

    @Option(help: "This process's stable name.")
    var name = "movie-service"

    func run() async throws {
        try await StepperService.serve(
            MovieServiceLogic(), name: name, options: connection, label: "flowd.movie-service"
        )
    }
}
