import FlowDaemon
import Foundation
import Testing

/// A config file or clients file that does not decode is refused naming the field, in the file's terms (a path of
/// keys and indices, the value an enum does not take), not Foundation's.
@Suite(.timeLimit(.minutes(1)))
struct ConfigFileErrorTests {
    private func configError(_ json: String) throws -> String {
        let path = NSTemporaryDirectory() + "flowd-config-\(UUID().uuidString).json"
        try json.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            _ = try FlowdOptions.parse(["--config", path]).settings(environment: [:])
        } catch let error as FlowdConfigError {
            return error.reason
        }
        Issue.record("\(json) was accepted")
        return ""
    }

    @Test func aConfigFileErrorNamesTheFieldAndTheValue() throws {
        let key = "rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7"
        #expect(
            try configError(#"{"security": {"clients": [{"name": "x", "public_key": "\#(key)", "role": "admin"}]}}"#)
                == #"is not a valid config: field 'security.clients.0.role' has an unknown value "admin""#)
        #expect(
            try configError(#"{"daemon": {"heartbeat_ms": "fast"}}"#)
                == "is not a valid config: field 'daemon.heartbeat_ms' has the wrong type")
        #expect(
            try configError(#"{"security": {"clients": [{"name": "x", "role": "operator"}]}}"#)
                == "is not a valid config: missing field 'security.clients.0.public_key'")
        #expect(try configError(#"{"daemon": {"#) == "is not a valid config: not valid JSON")
    }

    /// A value the daemon cannot work with (or crashed on: a negative heartbeat, seconds that overflow as
    /// milliseconds) stops the start naming the field, from the file as from the flag (config/README.md).
    @Test func aValueOutOfBoundsNamesTheFieldAndWhatItMustBe() throws {
        let refusals = [
            (#"{"daemon": {"heartbeat_ms": -5}}"#, "sets daemon.heartbeat_ms to -5: it must be 100...60000"),
            (#"{"daemon": {"max_body_bytes": 0}}"#, "sets daemon.max_body_bytes to 0: it must be at least 1024"),
            (
                #"{"daemon": {"hibernate_after_s": 9223372036854775807}}"#,
                "sets daemon.hibernate_after_s to 9223372036854775807: it must be 0...315360000"
            ),
            (#"{"daemon": {"liveness_intervals": 0}}"#, "sets daemon.liveness_intervals to 0: it must be 1...100"),
            (
                #"{"sockets": {"zmtp_heartbeat_ms": 9223372036854775807}}"#,
                "sets sockets.zmtp_heartbeat_ms to 9223372036854775807: it must be 0...3600000"
            ),
            (#"{"sockets": {"max_message_bytes": 0}}"#, "sets sockets.max_message_bytes to 0: it must be at least 1024"),
            (#"{"journal": {"fsync_interval_ms": 0}}"#, "sets journal.fsync_interval_ms to 0: it must be 1...3600000"),
            (
                #"{"journal": {"fsync_interval_ms": 3600001}}"#,
                "sets journal.fsync_interval_ms to 3600001: it must be 1...3600000"
            ),
            (#"{"journal": {"compact_bytes": 4095}}"#, "sets journal.compact_bytes to 4095: it must be 4096...1073741824"),
            (
                #"{"journal": {"compact_bytes": 9223372036854775807}}"#,
                "sets journal.compact_bytes to 9223372036854775807: it must be 4096...1073741824"
            ),
            (
                #"{"daemon": {"default_session": "bad name!"}}"#,
                "sets daemon.default_session to 'bad name!': it must be [A-Za-z0-9._-]{1,64}"
            ),
            (
                #"{"log_level": "loud"}"#,
                "sets log_level to 'loud': it must be one of trace, debug, info, notice, warning, error, critical"
            ),
            (
                #"{"control": "inproc://flowd"}"#,
                "sets control to 'inproc://flowd': it must be an ipc:// or tcp:// endpoint"
            ),
            (
                #"{"events": "127.0.0.1:5561"}"#,
                "sets events to '127.0.0.1:5561': it must be an ipc:// or tcp:// endpoint"
            ),
        ]
        for (json, reason) in refusals { #expect(try configError(json) == reason) }
        func flagError(_ arguments: [String]) -> String? {
            #expect(throws: (any Error).self) { try FlowdOptions.parse(arguments) }.map(FlowdOptions.message(for:))
        }
        #expect(flagError(["--hibernate-after-s", "9223372036854775807"]) == "--hibernate-after-s must be 0...315360000")
        #expect(flagError(["--max-sessions", "0"]) == "--max-sessions must be at least 1")
        #expect(
            flagError(["--log-level", "loud"])
                == "--log-level must be one of trace, debug, info, notice, warning, error, critical")
        #expect(flagError(["--control", "garbage"]) == "--control must be an ipc:// or tcp:// endpoint, not 'garbage'")
        #expect(
            flagError(["--events", "inproc://x"]) == "--events must be an ipc:// or tcp:// endpoint, not 'inproc://x'")
        // A flag wins over the file: a good flag over a bad field starts.
        let path = NSTemporaryDirectory() + "flowd-config-\(UUID().uuidString).json"
        try #"{"daemon": {"heartbeat_ms": 5}}"#.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let settings = try FlowdOptions.parse(["--config", path, "--heartbeat-ms", "500"]).settings(environment: [:])
        #expect(settings.server.daemon.heartbeatMs == 500)
    }

    /// A field flowd does not read (a misspelt one) is left out of the settings and named, to be logged at start.
    @Test func aFieldFlowdDoesNotReadIsNamed() throws {
        let path = NSTemporaryDirectory() + "flowd-config-\(UUID().uuidString).json"
        let json = #"""
            {"log-level": "debug", "daemon": {"max_sesions": 3, "heartbeat_ms": 500}, "journal": {"fsync": "never"},
             "security": {"allow_plaintext_tcp": true, "clients": [{"name": "a", "public_key": "k", "role": "operator",
             "rol": "x"}]}, "sockets": {"linger": 5}}
            """#
        let fields = FlowdConfigFile.unknownFields(in: Data(json.utf8))
        #expect(fields == ["log-level", "daemon.max_sesions", "sockets.linger", "security.clients.0.rol"])
        try #"{"log-level": "debug", "daemon": {"max_sesions": 3, "heartbeat_ms": 500}}"#
            .write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        // The shipped file names only fields flowd reads.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let shipped = try Data(contentsOf: root.appendingPathComponent("config/flowd.json"))
        #expect(FlowdConfigFile.unknownFields(in: shipped) == [])
        let settings = try FlowdOptions.parse(["--config", path, "--no-journal"]).settings(environment: [:])
        #expect(settings.server.daemon.heartbeatMs == 500)
        #expect(settings.unknownConfigFields == ["log-level", "daemon.max_sesions"])
    }

    @Test func aClientsFileErrorNamesTheFieldAndTheValue() throws {
        let path = NSTemporaryDirectory() + "flowd-clients-\(UUID().uuidString).json"
        try #"[{"name": "x", "public_key": "k", "role": "operator"}, {"name": "y", "public_key": "k", "role": "root"}]"#
            .write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let error = #expect(throws: FlowdSecurityError.self) {
            try FlowdSecuritySettings.accessPolicy(nil, configPath: nil, clientsFile: path)
        }
        #expect(
            error?.description
                == #"the clients file \#(path) is not a JSON array of clients: field '1.role' has an unknown value "root""#)
    }
}
