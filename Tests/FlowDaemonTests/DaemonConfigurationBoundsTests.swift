import FlowDaemon
import FlowWire
import FlowdTesting
import Testing

/// A `DaemonConfiguration` built in code, not read from flags or a config file, is held to the same bounds: the
/// daemon's start fails naming the field, where a negative heartbeat trapped the process. An embedded daemon takes it
/// as it is; the core runs an interval below 1 ms as 1 ms.
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

    @Test func anEmbeddedDaemonRunsIntervalsBelowOneMillisecondAsOneAndTrapsOnNone() {
        var configuration = DaemonConfiguration()
        configuration.heartbeatMs = -5
        configuration.livenessIntervals = 0
        configuration.idleSessionTimeoutS = .max
        configuration.hibernateAfterS = -1
        configuration.adaptTimeoutMs = -1
        let h = DaemonHarness(configuration: configuration)
        // WELCOME announces the interval the daemon runs: 1 ms.
        #expect(
            h.hello(Peers.flowctl, .operator, name: "flowctl", heartbeatMs: 100, at: 0).sent == [
                Delivery(Peers.flowctl, welcome(peer: "p1", heartbeatMs: 1))
            ])
        #expect(h.tick(at: 1).sent == [Delivery(Peers.flowctl, heartbeat())])
        // One of the peer's intervals (a liveness of 0 intervals counts as 1) and it is forgotten.
        #expect(h.tick(at: 100).sent == [Delivery(Peers.flowctl, heartbeat())])
        #expect(h.core.peerCounts == [.operator: 1])
        h.tick(at: 101)
        #expect(h.core.peerCounts == [:])
        #expect(h.core.counters.peersLost == 1)
    }
}
