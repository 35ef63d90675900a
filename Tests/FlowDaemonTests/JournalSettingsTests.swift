import FlowDaemon
import Foundation
import Testing

/// Where the journal goes and how it syncs: flags, then the config file, then `$FLOWD_STATE_DIR`, then
/// `<runtime dir>/state`.
struct JournalSettingsTests {
    let environment = ["FLOWD_RUNTIME_DIR": "/tmp/flowd-journal-settings"]

    private func journal(_ arguments: [String], environment: [String: String]? = nil) throws -> JournalConfiguration? {
        try FlowdOptions.parse(arguments).settings(environment: environment ?? self.environment).server.journal
    }

    private func withConfig(_ json: String, _ body: (String) throws -> Void) throws {
        let name = "flowd-journal-\(UUID().uuidString).json"
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(name).path
        defer { try? FileManager.default.removeItem(atPath: path) }
        _ = FileManager.default.createFile(atPath: path, contents: Data(json.utf8))
        try body(path)
    }

    @Test func byDefaultTheStateIsJournaledInTheRuntimeDirectoryWithTheIntervalPolicy() throws {
        let journal = try #require(try journal([]))
        #expect(journal.directory == "/tmp/flowd-journal-settings/state")
        #expect(journal.fsync == .interval(milliseconds: 100))
        #expect(journal.compactBytes == 8 << 20)
        #expect(journal.damage == .refuse)
    }

    @Test func damageIsRefusedUnlessTheFlagOrTheFileSaysTruncate() throws {
        #expect(try journal(["--journal-damage", "truncate"])?.damage == .truncate)
        #expect(throws: (any Error).self) { try FlowdOptions.parse(["--journal-damage", "ignore"]) }
        try withConfig(#"{"journal": {"damage": "truncate"}}"#) { path in
            let fromFile = try journal(["--config", path])
            let flag = try journal(["--config", path, "--journal-damage", "refuse"])
            #expect(fromFile?.damage == .truncate)
            #expect(flag?.damage == .refuse)
        }
        try withConfig(#"{"journal": {"damage": "ignore"}}"#) { path in
            #expect(throws: FlowdConfigError.self) { try journal(["--config", path]) }
        }
    }

    @Test func theEnvironmentThenTheFlagNameTheDirectory() throws {
        var environment = self.environment
        environment["FLOWD_STATE_DIR"] = "/var/tmp/state-a"
        #expect(try journal([], environment: environment)?.directory == "/var/tmp/state-a")
        #expect(try journal(["--state-dir", "/var/tmp/b"], environment: environment)?.directory == "/var/tmp/b")
    }

    @Test func theFlagsOverrideTheFile() throws {
        try withConfig(
            #"{"journal": {"directory": "/var/lib/x", "fsync": "always", "fsync_interval_ms": 20, "compact_bytes": 65536}}"#
        ) { path in
            let fromFile = try #require(try journal(["--config", path]))
            #expect(fromFile.directory == "/var/lib/x")
            #expect(fromFile.fsync == .always)
            #expect(fromFile.compactBytes == 65536)
            let flags = try #require(try journal(["--config", path, "--fsync", "interval", "--state-dir", "/var/lib/y"]))
            #expect(flags.directory == "/var/lib/y")
            #expect(flags.fsync == .interval(milliseconds: 20))
        }
    }

    @Test func theJournalCanBeTurnedOff() throws {
        #expect(try journal(["--no-journal"]) == nil)
        try withConfig(#"{"journal": {"enabled": false}}"#) { path in
            let off = try journal(["--config", path])
            let overridden = try journal(["--config", path, "--state-dir", "/var/lib/z"])
            #expect(off == nil)
            #expect(overridden?.directory == "/var/lib/z")
        }
    }

    @Test func badSettingsAreRefusedClearly() throws {
        #expect(throws: (any Error).self) { try FlowdOptions.parse(["--fsync", "sometimes"]) }
        #expect(throws: (any Error).self) { try FlowdOptions.parse(["--no-journal", "--state-dir", "/x"]) }
        try withConfig(#"{"journal": {"fsync": "sometimes"}}"#) { path in
            #expect(throws: FlowdConfigError.self) { try journal(["--config", path]) }
        }
        try withConfig(#"{"journal": {"compact_bytes": 10}}"#) { path in
            #expect(throws: FlowdConfigError.self) { try journal(["--config", path]) }
        }
    }
}
