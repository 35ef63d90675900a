import FlowCore
import FlowDaemon
import Foundation
import Logging
import TestFlows
import ZeroMQ

/// Runs `body` on a thread of its own with the endpoints of a live `DaemonServer` (its own I/O thread, real sockets)
/// serving `application` (``TickerApplication`` unless said) with `configuration`; the daemon is stopped afterwards,
/// whatever happens.
func withTickerDaemon<Result: Sendable>(
    _ configuration: DaemonServer.Configuration, application: some FlowApplication = TickerApplication(),
    _ body: @escaping @Sendable (BoundEndpoints) throws -> Result
) async throws -> Result {
    let server = DaemonServer(
        application: application, configuration: configuration,
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

/// ``withTickerDaemon(_:application:_:)`` with `configuration` and `sockets` over `ipc://` in a temporary folder,
/// removed afterwards.
func withIPCTickerDaemon<Result: Sendable>(
    _ configuration: DaemonConfiguration, sockets: ZMQSocketOptions = ZMQSocketOptions(),
    application: some FlowApplication = TickerApplication(),
    _ body: @escaping @Sendable (BoundEndpoints) throws -> Result
) async throws -> Result {
    // ipc:// paths must stay short (about 107 bytes).
    let directory = "/tmp/flowd-limits-" + UUID().uuidString.prefix(8)
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let server = DaemonServer.Configuration(
        controlEndpoint: "ipc://\(directory)/control.sock", eventsEndpoint: "ipc://\(directory)/events.sock",
        daemon: configuration, socketOptions: sockets
    )
    return try await withTickerDaemon(server, application: application, body)
}
