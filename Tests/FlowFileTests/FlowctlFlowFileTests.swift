import FlowFile
import FlowdTesting
import Foundation
import TestProcesses
import Testing

/// `flowctl check` and `flowctl graph` run as processes (the built `flowctl`; `swift build --build-tests` first).
struct FlowctlFlowFileTests {
    /// Runs the built flowctl (or `executable`) with `arguments`; `path` replaces PATH when given.
    func flowctl(_ arguments: [String], path: String? = nil, executable: String = "flowctl") throws -> ProcessRun {
        let folder = try BuiltExecutables.folder(containing: [executable])
        var environment = ProcessInfo.processInfo.environment
        if let path { environment["PATH"] = path }
        return try ProcessRun(folder.appendingPathComponent(executable), arguments: arguments, environment: environment)
    }

    /// A temporary file holding `text`, removed by `body`'s end.
    func withFile<T>(_ text: String, named name: String, _ body: (String) throws -> T) throws -> T {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("flowfile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent(name)
        try Data(text.utf8).write(to: file)
        return try body(file.path)
    }

    let movies = repositoryPath("Examples/flowfiles/movies.flows.yaml")

    @Test func checkAcceptsTheMovieFile() throws {
        let run = try flowctl(["check", movies])
        #expect(run.status == 0)
        #expect(run.output == "\(movies): ok: app 'movies', 9 flows, 20 steps, 3 deep links\n")
        #expect(run.errors == "")
    }

    @Test func checkAcceptsTheJSONExample() throws {
        let hello = repositoryPath("Examples/flowfiles/hello.flows.json")
        let run = try flowctl(["check", hello])
        #expect(run.status == 0)
        #expect(run.output == "\(hello): ok: app 'hello', 2 flows, 5 steps, 1 deep link\n")
    }

    @Test func checkReportsEveryMistakeWithItsPlace() throws {
        let text = base(replacing: "          - push: detail", with: "          - push: detial")
            .replacingOccurrences(of: "{one: close}", with: "{one: clos}")
        try withFile(text, named: "bad.flows.yaml") { path in
            let run = try flowctl(["check", path])
            #expect(run.status == 1)
            #expect(run.output == "")
            #expect(
                run.errors == """
                    \(path):35:19: error: unknown screen 'detial' in the flow 'main'; write 'detail', or declare \
                    'detial' under the flow's 'screens:'
                    \(path):50:20: error: unknown step 'clos'; write 'close', or declare 'clos' under 'steps:'
                    flowctl: \(path): 2 errors

                    """
            )
        }
    }

    @Test func checkReportsAJSONSyntaxErrorWithItsPlace() throws {
        try withFile("{\n  \"flowfile\": 1,\n  \"app\": \"x\"\n  \"root\": \"main\"\n}\n", named: "bad.json") { path in
            let run = try flowctl(["check", path])
            #expect(run.status == 1)
            #expect(
                run.errors == """
                    \(path):4:3: error: YAML syntax: did not find expected ',' or '}'; correct the YAML (or JSON) \
                    syntax here
                    flowctl: \(path): 1 error

                    """
            )
        }
    }

    @Test func checkReportsAFileItCannotRead() throws {
        let run = try flowctl(["check", "/nonexistent/app.flows.yaml"])
        #expect(run.status == 1)
        #expect(run.errors.hasPrefix("/nonexistent/app.flows.yaml:1:1: error: cannot read the file: "))
    }

    @Test func graphWritesDotAndMermaid() throws {
        let app = try FlowFile.load(path: movies)
        let dot = try flowctl(["graph", movies])
        #expect(dot.status == 0)
        #expect(dot.output == FlowGraph(app).dot)
        let mermaid = try flowctl(["graph", movies, "--format", "mermaid"])
        #expect(mermaid.status == 0)
        #expect(mermaid.output == FlowGraph(app).mermaid)
        #expect(mermaid.output.hasPrefix("flowchart LR\n"))
    }

    /// A session ID the daemon would refuse is a usage mistake (status 64) in every command that takes one, before
    /// any connection (`describe --session` was sent to the daemon and came back as `unknownSession`, status 1).
    @Test func aSessionIDTheDaemonRefusesIsAUsageMistake() throws {
        let nowhere = ["--control", "ipc:///nonexistent/flowctl-usage.sock", "--timeout", "0.1"]
        for arguments in [["describe", "--session", "bad!"], ["tree", "--session", "bad!"], ["end-session", "bad!"]] {
            let run = try flowctl(arguments + nowhere)
            #expect(run.status == 64, "\(arguments): \(run.errors)")
            #expect(run.errors.contains("session 'bad!' is not [A-Za-z0-9._-]{1,64}"))
        }
    }

    /// A config file flowd cannot use stops it with status 1 whether or not it names the app (config/README.md):
    /// without `--app`, flowd reads the file first to find `app`, and exited 64 there.
    @Test func flowdExitsOneForAConfigFileItCannotUse() throws {
        try withFile(#"{"daemon": "#, named: "flowd.json") { config in
            for arguments in [["--config", config], ["--config", config, "--app", movies], ["--config", "/nonexistent"]] {
                let run = try flowctl(arguments + ["--no-journal"], executable: "flowd")
                #expect(run.status == 1, "\(arguments): \(run.errors)")
                #expect(run.errors.contains("config file "))
            }
        }
    }

    @Test func graphOfABadFileReportsItsMistakes() throws {
        try withFile(base(replacing: "root: main", with: "root: mian"), named: "bad.yaml") { path in
            let run = try flowctl(["graph", path])
            #expect(run.status == 1)
            #expect(run.output == "")
            #expect(
                run.errors
                    == "\(path):3:7: error: unknown flow 'mian'; write 'main', or declare 'mian' under 'flows:'\n")
        }
    }

    @Test func svgWithoutGraphvizIsAClearError() throws {
        try withFile("", named: "empty") { emptyFolderFile in
            let folder = URL(fileURLWithPath: emptyFolderFile).deletingLastPathComponent().path
            let run = try flowctl(["graph", movies, "--format", "svg"], path: folder)
            #expect(run.status == 2)
            #expect(run.output == "")
            #expect(
                run.errors == "flowctl: --format svg needs Graphviz's `dot` on PATH (Debian: apt-get install graphviz);"
                    + " --format dot writes the DOT text for another machine\n"
            )
        }
    }

    @Test(.enabled(if: Self.graphvizInstalled, "Graphviz's dot is not installed"))
    func svgThroughGraphviz() throws {
        let run = try flowctl(["graph", movies, "--format", "svg"])
        #expect(run.status == 0)
        #expect(run.output.contains("<svg"))
        #expect(run.output.contains("wishlist.stack (stack)"))
    }

    static var graphvizInstalled: Bool {
        (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
            .contains { FileManager.default.isExecutableFile(atPath: "\($0)/dot") }
    }
}
