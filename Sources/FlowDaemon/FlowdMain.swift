import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
public import FlowCore
internal import Logging
import Metrics
import Prometheus

extension Flowd {
    /// An application's whole daemon: `await Flowd.main(MyApplication())` in its `main.swift`.
    ///
    /// Reads the flags (``FlowdOptions``, `--help` lists them) and the config file they name, sends the logs to
    /// standard error at the configured level, sends the process's swift-metrics to a Prometheus registry served at
    /// `--metrics` (when set), and runs the daemon (``run(_:settings:logger:metrics:environment:)``) until SIGTERM or
    /// SIGINT, with SIGHUP and systemd's `sd_notify` handled. A bad flag or config file is printed with the usage and
    /// the process exits with a non-zero status, as does a daemon that stops with an error (logged at `critical`).
    ///
    /// - Parameters:
    ///   - application: the application's flows.
    ///   - arguments: the command line without the executable's name; `nil`: the process's own.
    public static func main(_ application: some FlowApplication, arguments: [String]? = nil) async {
        do {
            let command = try FlowdCommand.parse(arguments)
            try await command.run(application)
        } catch {
            FlowdCommand.exit(withError: error)
        }
    }

    /// The stock flowd's daemon: runs the application of a file, `version` as read at start, and reads `source`
    /// again on SIGHUP (new sessions get the new version; running ones keep theirs). Otherwise as
    /// ``main(_:arguments:)``.
    package static func main(file source: AppVersionSource, version: AppVersion, arguments: [String]? = nil) async {
        do {
            let command = try FlowdCommand.parse(arguments)
            try await command.run(version.application, appFile: (source, version))
        } catch {
            FlowdCommand.exit(withError: error)
        }
    }
}

/// The daemon's command line: ``FlowdOptions`` under the executable's own name.
struct FlowdCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: CommandLine.arguments.first.map { String($0.split(separator: "/").last ?? "flowd") },
            abstract: "A Flowd daemon: coordinates its application's flows for presenter and stepper processes."
        )
    }

    @OptionGroup var options: FlowdOptions

    func run(
        _ application: any FlowApplication, appFile: (source: AppVersionSource, version: AppVersion)? = nil
    ) async throws {
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
        let logger = Logger(label: "flowd")
        do {
            try await Flowd.run(application, settings: settings, logger: logger, metrics: registry, appFile: appFile)
        } catch {
            // Once logging is set up, the daemon's own errors (a locked state directory, a runtime folder it may not
            // use, a metrics address in use) go where its logs go, at critical, instead of a bare "Error:" line.
            logger.critical("flowd stopped on an error", metadata: ["error": "\(error)"])
            throw ExitCode.failure
        }
    }
}
