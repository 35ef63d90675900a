import FlowDaemon
import Foundation
import Testing

/// Which flow file the stock `flowd` runs: `--app`, then the config file's `app`, then `FLOWD_APP`.
struct FlowdAppLocationTests {
    private func withConfig(_ json: String, _ body: (String) throws -> Void) throws {
        let name = "flowd-app-\(UUID().uuidString).json"
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(name).path
        defer { try? FileManager.default.removeItem(atPath: path) }
        _ = FileManager.default.createFile(atPath: path, contents: Data(json.utf8))
        try body(path)
    }

    private func resolve(_ arguments: [String], _ environment: [String: String] = [:]) throws -> (String?, [String]) {
        var rest = arguments
        let path = try FlowdAppLocation.resolve(arguments: &rest, environment: environment)
        return (path, rest)
    }

    @Test func theFlagIsTakenOutOfTheDaemonsArguments() throws {
        let (path, rest) = try resolve(["--app", "a.flows.yaml", "--heartbeat-ms", "500"])
        #expect(path == "a.flows.yaml")
        #expect(rest == ["--heartbeat-ms", "500"])
        let (equals, others) = try resolve(["--log-level", "debug", "--app=b.flows.yaml"])
        #expect(equals == "b.flows.yaml")
        #expect(others == ["--log-level", "debug"])
    }

    @Test func theFlagWinsOverTheFileWhichWinsOverTheEnvironment() throws {
        let environment = ["FLOWD_APP": "/env/app.flows.yaml"]
        let fromEnvironment = try resolve([], environment).0
        let empty = try resolve([], ["FLOWD_APP": ""]).0
        #expect(fromEnvironment == "/env/app.flows.yaml")
        #expect(empty == nil)
        try withConfig(#"{"app": "/etc/flowd/movies.flows.yaml"}"#) { config in
            let (fromFile, rest) = try resolve(["--config", config], environment)
            #expect(fromFile == "/etc/flowd/movies.flows.yaml")
            #expect(rest == ["--config", config])
            let equals = try resolve(["--config=\(config)"], environment).0
            let flag = try resolve(["--config", config, "--app", "flag.flows.yaml"], environment).0
            #expect(equals == "/etc/flowd/movies.flows.yaml")
            #expect(flag == "flag.flows.yaml")
        }
        try withConfig(#"{"log_level": "info"}"#) { config in
            let path = try resolve(["--config", config], environment).0
            #expect(path == "/env/app.flows.yaml")
        }
    }

    @Test func aRelativePathInTheFileIsReadFromTheFilesFolder() throws {
        try withConfig(#"{"app": "apps/movies.flows.yaml"}"#) { config in
            let folder = FileManager.default.temporaryDirectory.path
            let expected = (folder.hasSuffix("/") ? folder : folder + "/") + "apps/movies.flows.yaml"
            let path = try resolve(["--config", config]).0
            #expect(path == expected)
        }
    }

    @Test func anUnreadableConfigFileIsAnError() throws {
        #expect(throws: FlowdConfigError.self) {
            try resolve(["--config", "/nonexistent/flowd-\(UUID().uuidString).json"])
        }
        try withConfig(#"{"app": 3}"#) { config in
            #expect(throws: FlowdConfigError.self) { try resolve(["--config", config]) }
        }
    }
}
