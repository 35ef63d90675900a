import FlowDaemon
import Testing

/// A `DaemonConfiguration` built in code, not read from flags or a config file, is held to the same bounds: the
/// daemon's start fails naming the field, where a negative heartbeat trapped the process.
struct DaemonConfigurationBoundsTests {
    @Test func aDaemonServerWithASettingOutOfBoundsStopsItsStartNamingIt() async throws {
        var daemon = DaemonConfiguration()
        daemon.heartbeatMs = -5
        let server = DaemonServer.Configuration(
            controlEndpoint: "tcp://127.0.0.1:*", eventsEndpoint: "tcp://127.0.0.1:*", daemon: daemon)
        let error = await #expect(throws: SettingOutOfBounds.self) { try await withTickerDaemon(server) { $0 } }
        #expect(error?.field == "daemon.heartbeat_ms")
        #expect(error?.description == "daemon.heartbeat_ms is -5: it must be 100...60000")
    }
}
