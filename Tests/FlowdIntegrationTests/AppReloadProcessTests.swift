import Foundation
import Testing

/// The stock flowd reads its flow file again on SIGHUP (`kill -HUP <pid>`): a session created after runs the new
/// version, the one created before keeps its own; a file with mistakes is refused, logged with its position and
/// counted, and the state directory keeps every version a live session uses.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct AppReloadProcessTests {
    /// Version `n`: the root flow is named `v<n>`; `step<n>` is a step only this version has.
    static func app(_ n: Int) -> String {
        """
        flowfile: 1
        app: reload
        root: {flow: v\(n), stepper: {one: start}}
        steps:
          start: {}
          step\(n): {deepLink: true}
        flows:
          v\(n):
            root: {id: main, kind: stack}
            screens:
              page: {id: page}
            navigate:
              start: {}
              step\(n):
                commands:
                  - push: page
        """
    }

    @Test func sighupGivesNewSessionsTheNewFileAndRunningOnesKeepTheirs() async throws {
        try await withCluster { cluster in
            let file = cluster.runtimeDirectory + "/app.flows.yaml"
            let state = cluster.runtimeDirectory + "/state"
            try Self.app(1).write(toFile: file, atomically: true, encoding: .utf8)
            let daemon = try await cluster.startFlowd(["--app", file, "--state-dir", state], executable: "flowd")
            let first = try #require(try await cluster.health()["app_version"] as? String)

            // A file with a mistake: refused, logged with its position, counted; nothing changes.
            try Self.app(2).replacingOccurrences(of: "push: page", with: "push: nowhere")
                .write(toFile: file, atomically: true, encoding: .utf8)
            var from = daemon.process.stderr.count
            daemon.process.signal(SIGHUP)
            try await daemon.process.waitForError(from: from, "the refused file") {
                $0.contains("SIGHUP: the application's file was refused")
            }
            #expect(
                daemon.process.stderr.lines.dropFirst(from).contains {
                    $0.contains("error") && $0.contains("\(file):16:") && $0.contains("'nowhere'")
                })
            var health = try await cluster.health()
            #expect(health["app_version"] as? String == first)
            #expect(Self.counter(health, "app_reloads_refused") == 1)

            // A good file: the version sessions created from now on get.
            try Self.app(2).write(toFile: file, atomically: true, encoding: .utf8)
            from = daemon.process.stderr.count
            daemon.process.signal(SIGHUP)
            try await daemon.process.waitForError(from: from, "the new version taken") {
                $0.contains("SIGHUP: the application's file was read again")
            }
            health = try await cluster.health()
            let second = try #require(health["app_version"] as? String)
            #expect(second != first)
            #expect(Self.counter(health, "app_reloads") == 1)
            _ = try await cluster.flowctlSucceeding(["session", "create", "new"])

            // Each session navigates by its own version's file.
            _ = try await cluster.flowctlSucceeding(["step", "--session", "default", "step1"])
            _ = try await cluster.flowctlSucceeding(["step", "--session", "new", "step2"])
            let refused = try await cluster.flowctl(["step", "--session", "default", "step2"])
            #expect(refused.exit != .exited(0))
            #expect(refused.stderr.contains { $0.contains("unknownStep") || $0.contains("no step named 'step2'") })
            let oldTree = try await cluster.flowctlSucceeding(["tree", "--session", "default"])
            let newTree = try await cluster.flowctlSucceeding(["tree", "--session", "new"])
            #expect(oldTree.output.hasPrefix("v1 "))
            #expect(newTree.output.hasPrefix("v2 "))
            let described = try await cluster.flowctlSucceeding(["describe", "--session", "default"])
            #expect(described.stdout.first == "app version: \(first)")

            // Both versions' texts are kept in the state directory.
            let kept = try FileManager.default.contentsOfDirectory(atPath: state + "/apps").sorted()
            #expect(kept == ["\(first).flows.yaml", "\(second).flows.yaml"].sorted())
            #expect(try String(contentsOfFile: state + "/apps/\(first).flows.yaml", encoding: .utf8) == Self.app(1))
        }
    }

    /// A restart with yet another file keeps each session on its version, read from the state directory; a version
    /// taken out of it stops the next start, naming it.
    @Test func aRestartRunsEachSessionWithItsKeptVersionAndAMissingOneStopsTheStart() async throws {
        try await withCluster { cluster in
            let file = cluster.runtimeDirectory + "/app.flows.yaml"
            let state = cluster.runtimeDirectory + "/state"
            let arguments = ["--app", file, "--state-dir", state]
            try Self.app(1).write(toFile: file, atomically: true, encoding: .utf8)
            var daemon = try await cluster.startFlowd(arguments, executable: "flowd")
            let first = try #require(try await cluster.health()["app_version"] as? String)
            try Self.app(2).write(toFile: file, atomically: true, encoding: .utf8)
            let from = daemon.process.stderr.count
            daemon.process.signal(SIGHUP)
            try await daemon.process.waitForError(from: from, "the new version taken") {
                $0.contains("SIGHUP: the application's file was read again")
            }
            _ = try await cluster.flowctlSucceeding(["session", "create", "new"])
            #expect(await daemon.process.stop() == .exited(0))

            try Self.app(3).write(toFile: file, atomically: true, encoding: .utf8)
            daemon = try await cluster.startFlowd(arguments, executable: "flowd")
            _ = try await cluster.flowctlSucceeding(["session", "create", "third"])
            for (session, flow) in [("default", "v1"), ("new", "v2"), ("third", "v3")] {
                let tree = try await cluster.flowctlSucceeding(["tree", "--session", session])
                #expect(tree.output.hasPrefix("\(flow) "), "\(session): \(tree.output)")
            }
            #expect(await daemon.process.stop() == .exited(0))

            try FileManager.default.removeItem(atPath: state + "/apps/\(first).flows.yaml")
            let refused = try cluster.launch(
                "flowd", arguments + ["--runtime-dir", cluster.runtimeDirectory, "--log-level", "info"])
            #expect(await refused.waitForExit() != .exited(0))
            #expect(
                refused.stderr.lines.contains {
                    $0.contains("missingAppVersion") && $0.contains("session 'default' runs the application version \(first)")
                }, "\(refused.stderr.lines.joined(separator: "\n"))")
        }
    }

    static func counter(_ health: [String: Any], _ name: String) -> Int? {
        (health["counters"] as? [String: Any])?[name] as? Int
    }
}

/// A daemon whose application is Swift code (`movie-flowd`, `Flowd.main(MyApplication())`) has no file to read again:
/// SIGHUP says so, and so it does of the allow-list without CURVE.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct CodeApplicationSighupProcessTests {
    @Test func sighupToADaemonWhoseApplicationIsCodeSaysThereIsNoFile() async throws {
        try await withCluster { cluster in
            let daemon = try await cluster.startFlowd()
            let from = daemon.process.stderr.count
            daemon.process.signal(SIGHUP)
            try await daemon.process.waitForError(from: from, "the SIGHUP log lines") {
                $0.contains("SIGHUP: flowd runs without CURVE, there is no allow-list to read again")
            }
            let lines = Array(daemon.process.stderr.lines.dropFirst(from))
            #expect(lines.contains { $0.contains("SIGHUP: the application is code, not a file: there is no application") })
            #expect(try await cluster.health()["app_version"] == nil)
        }
    }
}
