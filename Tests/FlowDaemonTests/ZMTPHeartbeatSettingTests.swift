import FlowDaemon
import Foundation
import Testing

/// `sockets.zmtp_heartbeat_ms` over the range config/README.md gives it: past ZMTP's longest TTL (6553.5 s), the TTL
/// the daemon's PINGs carry (three intervals) is sent as that longest, where libzmq refused the socket option and
/// flowd stopped at its start (from 2184534 ms on).
struct ZMTPHeartbeatSettingTests {
    @Test(arguments: [0, 1000, 2_184_533, 2_184_534, 3_600_000])
    func aDaemonStartsWithEveryZMTPHeartbeatTheConfigFileTakes(_ milliseconds: Int) async throws {
        let path = NSTemporaryDirectory() + "flowd-config-\(UUID().uuidString).json"
        let config = #"{"sockets": {"zmtp_heartbeat_ms": \#(milliseconds)}}"#
        try config.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var server = try FlowdOptions.parse(["--config", path]).settings(environment: [:]).server
        #expect(server.socketOptions.heartbeat?.interval == (milliseconds == 0 ? nil : .milliseconds(milliseconds)))
        server.controlEndpoint = "tcp://127.0.0.1:*"
        server.eventsEndpoint = "tcp://127.0.0.1:*"
        server.journal = nil
        let bound = try await withTickerDaemon(server) { $0 }
        #expect(bound.control.hasPrefix("tcp://127.0.0.1:") && bound.events.hasPrefix("tcp://127.0.0.1:"))
    }
}
