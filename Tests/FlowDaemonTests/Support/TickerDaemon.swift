import FlowDaemon
import Logging
import TestFlows

/// Runs `body` on a thread of its own with the endpoints of a live `DaemonServer` (its own I/O thread, real sockets)
/// serving ``TickerApplication`` with `configuration`; the daemon is stopped afterwards, whatever happens.
func withTickerDaemon<Result: Sendable>(
    _ configuration: DaemonServer.Configuration, _ body: @escaping @Sendable (BoundEndpoints) throws -> Result
) async throws -> Result {
    let server = DaemonServer(
        application: TickerApplication(), configuration: configuration,
        logger: Logger(label: "TickerDaemon", factory: { _ in SwiftLogNoOpLogHandler() })
    )
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await server.run() }
        // Whatever happens below, the daemon stops, or the group would wait for it forever.
        defer { server.stop() }
        let bound = try await server.waitUntilReady()
        return try await onDedicatedThread("ticker-daemon-test") { try body(bound) }
    }
}
