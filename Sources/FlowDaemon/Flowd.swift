#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import FlowWire
public import Logging
import ServiceLifecycle
import UnixSignals

/// Everything a daemon run needs, resolved from flags, config file and defaults.
public struct FlowdSettings: Sendable {
    /// The folder of the default `ipc://` endpoints (created with mode 0700 if missing).
    public var runtimeDirectory: String
    public var server: DaemonServer.Configuration
    public var logLevel: Logger.Level

    public init(runtimeDirectory: String, server: DaemonServer.Configuration, logLevel: Logger.Level) {
        self.runtimeDirectory = runtimeDirectory
        self.server = server
        self.logLevel = logLevel
    }

    /// The log level named `name`.
    public static func logLevel(named name: String) -> Logger.Level? { Logger.Level(rawValue: name.lowercased()) }
}

/// Runs a Flowd daemon for an application: the few lines of an application's `@main`.
///
/// ```swift
/// @main struct MyDaemon: AsyncParsableCommand {
///     @OptionGroup var options: FlowdOptions
///     func run() async throws {
///         let settings = try options.settings()
///         LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
///         try await Flowd.run(MyApplication(), settings: settings, logger: Logger(label: "flowd"))
///     }
/// }
/// ```
public enum Flowd: Sendable {
    /// Runs until SIGTERM or SIGINT (graceful shutdown), notifying systemd (`READY=1`, `STOPPING=1`) when it started
    /// the daemon with `Type=notify`.
    public static func run(
        _ application: any FlowApplication,
        settings: FlowdSettings,
        logger: Logger,
        environment: [String: String] = FlowdEndpoints.currentEnvironment()
    ) async throws {
        if settings.server.controlEndpoint.hasPrefix("ipc://") || settings.server.eventsEndpoint.hasPrefix("ipc://") {
            try prepareRuntimeDirectory(settings.runtimeDirectory)
        }
        let server = DaemonServer(application: application, configuration: settings.server, logger: logger)
        let notifier = ReadinessNotifier(
            server: server, notifier: SystemdNotifier(environment: environment), logger: logger
        )
        let group = ServiceGroup(
            configuration: .init(
                services: [
                    .init(service: server),
                    .init(service: notifier, successTerminationBehavior: .ignore),
                ],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            )
        )
        try await group.run()
    }

    /// Creates the runtime folder (mode 0700) if it is missing.
    static func prepareRuntimeDirectory(_ path: String) throws {
        if FileManager.default.fileExists(atPath: path) { return }
        try FileManager.default.createDirectory(
            atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700]
        )
    }
}

/// Tells systemd (and the log) when the daemon is ready and when it stops.
struct ReadinessNotifier: Service {
    let server: DaemonServer
    let notifier: SystemdNotifier
    let logger: Logger

    func run() async throws {
        let endpoints: BoundEndpoints
        do {
            endpoints = try await server.waitUntilReady()
        } catch {
            return
        }
        if notifier.notify("READY=1\nSTATUS=serving on \(endpoints.control)") {
            logger.info("notified systemd: READY=1")
        }
        try? await gracefulShutdown()
        notifier.notify("STOPPING=1")
    }
}
