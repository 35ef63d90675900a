internal import LibC
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
public import FlowCore
public import FlowWire
public import Logging
public import Prometheus
internal import ServiceLifecycle
import UnixSignals

/// Everything a daemon run needs, resolved from flags, config file and defaults.
public struct FlowdSettings: Sendable {
    /// The folder of the default `ipc://` endpoints (created with mode 0700 if missing).
    public var runtimeDirectory: String
    public var server: DaemonServer.Configuration
    public var logLevel: Logger.Level
    /// Where to serve Prometheus metrics over HTTP (`host:port`); `nil`: no metrics endpoint.
    public var metricsAddress: String?
    /// Reads the allow-list again (on SIGHUP); `nil` when the daemon runs without CURVE.
    public var reloadAccessPolicy: (@Sendable () throws -> AccessPolicy)?
    /// The config file's fields flowd does not read (``FlowdConfigFile/unknownFields(in:)``), logged as it starts.
    package var unknownConfigFields: [String] = []

    public init(
        runtimeDirectory: String, server: DaemonServer.Configuration, logLevel: Logger.Level,
        metricsAddress: String? = nil, reloadAccessPolicy: (@Sendable () throws -> AccessPolicy)? = nil
    ) {
        self.runtimeDirectory = runtimeDirectory
        self.server = server
        self.logLevel = logLevel
        self.metricsAddress = metricsAddress
        self.reloadAccessPolicy = reloadAccessPolicy
    }
}

/// Runs a Flowd daemon for an application.
///
/// An application's executable is usually one line, ``main(_:arguments:)``:
///
/// ```swift
/// import FlowDaemon
/// await Flowd.main(MyApplication())
/// ```
///
/// ``run(_:settings:logger:metrics:environment:)`` is the same daemon for a caller that resolves its own settings,
/// bootstraps logging and metrics itself, or runs it next to other services.
public enum Flowd: Sendable {
    /// Runs until SIGTERM or SIGINT (graceful shutdown), notifying systemd (`READY=1`, `STOPPING=1`) when it started
    /// the daemon with `Type=notify`. SIGHUP reads the allow-list again (``FlowdSettings/reloadAccessPolicy``).
    ///
    /// When `settings.metricsAddress` names an address, the daemon records its metrics (``DaemonMetrics``) into
    /// `metrics` (a registry of its own if `nil`) and serves them there (``MetricsEndpoint``), stopped with the rest.
    /// A `metrics` registry given without an address is recorded into all the same, for the caller to expose.
    ///
    /// - Throws: an error naming the metrics address when it cannot be bound; the daemon's errors.
    public static func run(
        _ application: any FlowApplication,
        settings: FlowdSettings,
        logger: Logger,
        metrics: PrometheusCollectorRegistry? = nil,
        environment: [String: String] = FlowdEndpoints.currentEnvironment()
    ) async throws {
        try await run(
            application, settings: settings, logger: logger, metrics: metrics, environment: environment, appFile: nil)
    }

    /// ``run(_:settings:logger:metrics:environment:)`` for an application read from a file (the stock flowd): the
    /// version read at start, and where SIGHUP reads it again (new sessions get the new version:
    /// ``DaemonServer/reloadApplication()``).
    package static func run(
        _ application: any FlowApplication,
        settings: FlowdSettings,
        logger: Logger,
        metrics: PrometheusCollectorRegistry? = nil,
        environment: [String: String] = FlowdEndpoints.currentEnvironment(),
        appFile: (source: AppVersionSource, version: AppVersion)?
    ) async throws {
        // A journal write past a file-size limit (`ulimit -f`, systemd's LimitFSIZE=) then fails with EFBIG, which
        // the journal handles as a full disk, instead of SIGXFSZ ending the daemon.
        signal(SIGXFSZ, SIG_IGN)
        for field in settings.unknownConfigFields {
            logger.warning(
                "config file field unknown, ignored: check its spelling (config/README.md)",
                metadata: ["field": "\(field)"])
        }
        // Each connection holds a descriptor; at the limit libzmq aborts on an ipc:// connection (docs/LIMITS.md).
        DescriptorLimit.raiseSoftLimit(logger: logger)
        if settings.server.controlEndpoint.hasPrefix("ipc://") || settings.server.eventsEndpoint.hasPrefix("ipc://") {
            try prepareRuntimeDirectory(settings.runtimeDirectory)
            switch SocketFolderCheck(folder: settings.runtimeDirectory) {
            case .fine:
                break
            case .foreignOwner(let owner):
                throw FlowdSecurityError(
                    "the runtime folder \(settings.runtimeDirectory) belongs to uid \(owner), not to this user "
                        + "(\(geteuid())): whoever owns it can replace the daemon's ipc:// sockets; remove it, or "
                        + "set FLOWD_RUNTIME_DIR or --runtime-dir to a folder of this user's (docs/SECURITY.md §3)")
            case .exposed(let reason):
                logger.warning(
                    "the runtime folder is open to other users: they may connect to its ipc:// sockets before chmod",
                    metadata: ["path": "\(settings.runtimeDirectory)", "reason": "\(reason)"])
            }
        }
        let registry = metrics ?? (settings.metricsAddress == nil ? nil : PrometheusCollectorRegistry())
        let endpoint = try settings.metricsAddress.map { address throws(MetricsEndpointError) in
            try MetricsEndpoint(address: address, logger: logger) { [registry] in registry?.emitToBuffer() ?? [] }
        }
        let server = DaemonServer(
            application: application, configuration: settings.server, logger: logger,
            metricsFactory: registry.map { PrometheusMetricsFactory(registry: $0) }, appFile: appFile
        )
        let notifier = ReadinessNotifier(
            server: server, notifier: SystemdNotifier(environment: environment), logger: logger
        )
        let group = ServiceGroup(
            configuration: .init(
                services: [
                    .init(service: server),
                    .init(service: notifier, successTerminationBehavior: .ignore),
                    .init(
                        service: Reloader(
                            server: server, reloadAccessPolicy: settings.reloadAccessPolicy, logger: logger),
                        successTerminationBehavior: .ignore
                    ),
                ] + (endpoint.map { [.init(service: $0)] } ?? []),
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            )
        )
        try await group.run()
    }

    /// Creates the runtime folder (mode 0700) if it is missing.
    ///
    /// - Throws: ``RuntimeFolderError`` naming the folder when it cannot be made (Foundation's own error names
    ///   neither the setting nor what to do).
    static func prepareRuntimeDirectory(_ path: String) throws(RuntimeFolderError) {
        if FileManager.default.fileExists(atPath: path) { return }
        do {
            try FileManager.default.createDirectory(
                atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700]
            )
        } catch {
            throw RuntimeFolderError(path: path, reason: error.localizedDescription)
        }
    }
}

/// Tells systemd (and the log) when the daemon is ready and when it stops, and while it recovers its state that the
/// recovery goes on (``RecoveryTimeoutExtension``).
struct ReadinessNotifier: Service {
    let server: DaemonServer
    let notifier: SystemdNotifier
    let logger: Logger

    func run() async throws {
        let endpoints: BoundEndpoints
        do {
            endpoints = try await waitUntilReady()
        } catch {
            return
        }
        if notifier.notify("READY=1\nSTATUS=serving on \(endpoints.control)") {
            logger.info("notified systemd: READY=1")
        }
        try? await gracefulShutdown()
        notifier.notify("STOPPING=1")
    }

    /// The server's ``DaemonServer/waitUntilReady()``, extending systemd's start timeout meanwhile.
    private func waitUntilReady() async throws -> BoundEndpoints {
        guard notifier.isEnabled else { return try await server.waitUntilReady() }
        let (server, notifier) = (self.server, self.notifier)
        return try await withThrowingTaskGroup(of: BoundEndpoints?.self) { group in
            group.addTask { try await server.waitUntilReady() }
            group.addTask {
                var timeout = RecoveryTimeoutExtension()
                while true {
                    try await Task.sleep(for: RecoveryTimeoutExtension.interval)
                    if let message = timeout.notification(for: server.recoveryProgress) { notifier.notify(message) }
                }
            }
            while let next = try await group.next() {
                if let endpoints = next {
                    group.cancelAll()
                    return endpoints
                }
            }
            throw CancellationError()
        }
    }
}

/// SIGHUP: reads the allow-list again and hands it to the daemon (docs/SECURITY.md, "Changing the allow-list"), and
/// the application's file (docs/FLOWFILE.md, "Reading the file again"). A list or file that cannot be read or is not
/// valid is logged and the current one kept; what the daemon does not have (no CURVE, an application given as code)
/// is logged as such.
struct Reloader: Service {
    let server: DaemonServer
    let reloadAccessPolicy: (@Sendable () throws -> AccessPolicy)?
    let logger: Logger

    func run() async throws {
        for await _ in await UnixSignalsSequence(trapping: .sighup).cancelOnGracefulShutdown() {
            if !server.reloadApplication() {
                logger.info("SIGHUP: the application is code, not a file: there is no application to read again")
            }
            guard let reload = reloadAccessPolicy else {
                logger.info("SIGHUP: flowd runs without CURVE, there is no allow-list to read again")
                continue
            }
            do {
                let policy = try reload()
                logger.notice("SIGHUP: allow-list read again", metadata: ["clients": "\(policy.clients.count)"])
                server.reloadAccessPolicy(policy)
            } catch {
                logger.error("SIGHUP: the allow-list was not replaced", metadata: ["error": "\(error)"])
            }
        }
    }
}
