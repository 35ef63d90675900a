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
