#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FlowDaemon
import Logging
import Prometheus
import ServiceLifecycle
import UnixSignals

/// The flowd process: a ``DaemonServer`` running ``BenchApplication`` until SIGTERM (graceful shutdown).
///
/// With `journal`, the daemon journals its state there and keeps its metrics in a Prometheus registry, from which it
/// prints `JOURNAL <syncs>` (`flowd_journal_syncs_total`) once it has stopped.
///
/// `uiScreens`: screens under the default session's own (``BenchApplication``); `maxSessions`: the daemon's session
/// limit (raised for runs with many idle sessions).
func runDaemon(
    control: String, events: String, journal: JournalConfiguration? = nil, uiScreens: Int = 0, maxSessions: Int? = nil
) async throws {
    LoggingSystem.bootstrap { label in
        var handler = StreamLogHandler.standardError(label: label)
        // FLOWD_BENCH_LOG_LEVEL=info shows the daemon's compactions with their duration (docs/PERFORMANCE.md).
        handler.logLevel = getenv("FLOWD_BENCH_LOG_LEVEL").flatMap { Logger.Level(rawValue: String(cString: $0)) } ?? .warning
        return handler
    }
    let logger = Logger(label: "flowd-bench.daemon")
    // FLOWD_BENCH_METRICS=1: the daemon records its metrics into a Prometheus registry, as `flowd --metrics` does, to
    // measure what they cost (docs/PERFORMANCE.md).
    let metrics = getenv("FLOWD_BENCH_METRICS").map { String(cString: $0) == "1" } ?? false
    let registry = PrometheusCollectorRegistry()
    var daemon = DaemonConfiguration()
    if let maxSessions { daemon.maxSessions = maxSessions }
    let server = DaemonServer(
        application: BenchApplication(uiScreens: uiScreens),
        configuration: DaemonServer.Configuration(
            controlEndpoint: control, eventsEndpoint: events, daemon: daemon, journal: journal
        ),
        logger: logger,
        metricsFactory: metrics || journal != nil ? PrometheusMetricsFactory(registry: registry) : nil
    )
    let group = ServiceGroup(
        configuration: .init(services: [.init(service: server)], gracefulShutdownSignals: [.sigterm], logger: logger)
    )
    try await withThrowingTaskGroup(of: Void.self) { tasks in
        tasks.addTask { try await group.run() }
        let bound = try await server.waitUntilReady()
        emit("READY \(bound.control)")
        try await tasks.waitForAll()
    }
    if journal != nil {
        let text = registry.emitToString()
        let line = text.split(separator: "\n").first { $0.hasPrefix(MetricName.journalSyncs + " ") }
        emit("JOURNAL " + (line.map { String($0.split(separator: " ").last ?? "-1") } ?? "-1"))
    }
}
