// flowd: the Flowd daemon, running the movie demo (MovieDemoApplication: AppFlow over remote steppers served by the
// login and movie services). Options: see FlowdOptions (`flowd --help`); logs go to standard error.

import ArgumentParser
import FlowDaemon
import Logging
import Metrics
import MovieDemo
import Prometheus

struct FlowdCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flowd",
        abstract: "The Flowd daemon: coordinates the movie demo's flows for its presenter and stepper processes."
    )

    @OptionGroup var options: FlowdOptions

    func run() async throws {
        let settings = try options.settings()
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = settings.logLevel
            return handler
        }
        // With a metrics address, the process's metrics (the daemon's, and any other swift-metrics user's) go to one
        // Prometheus registry, served at that address.
        var registry: PrometheusCollectorRegistry?
        if settings.metricsAddress != nil {
            let processRegistry = PrometheusCollectorRegistry()
            MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: processRegistry))
            registry = processRegistry
        }
        try await Flowd.run(MovieDemoApplication(), settings: settings, logger: Logger(label: "flowd"), metrics: registry)
    }
}

/// Runs the command. Top-level code would pick `ParsableCommand`'s synchronous `main()`; inside an async function the
/// asynchronous one is chosen.
func main() async { await FlowdCommand.main() }

await main()
