import ArgumentParser
import FlowFile
import Foundation

/// `flowctl check FILE`: reads a flow file and reports every mistake, as `file:line:column: error: …; <fix>`.
struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check a flow file (docs/FLOWFILE.md); no daemon needed.",
        discussion: """
            Prints every mistake as FILE:LINE:COLUMN: error: WHAT; WHAT TO WRITE INSTEAD, on standard error.
            Exit codes: 0 the file is valid; 1 it is not.
            """
    )

    @Argument(help: ArgumentHelp("The flow file (YAML or JSON).", valueName: "file")) var file: String

    func run() throws {
        do {
            let app = try FlowFile.load(path: file)
            let counts = [(app.flows.count, "flow"), (app.steps.count, "step"), (app.deepLinks.count, "deep link")]
                .map { count, noun in "\(count) \(noun)\(count == 1 ? "" : "s")" }
            printLine("\(file): ok: app '\(app.app)', \(counts.joined(separator: ", "))")
        } catch {
            for diagnostic in error.diagnostics { printDiagnostic(diagnostic) }
            printError("\(file): \(error.diagnostics.count) error\(error.diagnostics.count == 1 ? "" : "s")")
            throw ExitCode(1)
        }
    }
}

/// `flowctl graph FILE`: the flow graph as Graphviz DOT, Mermaid, or SVG through Graphviz's `dot`.
struct Graph: ParsableCommand {
    enum Format: String, ExpressibleByArgument, CaseIterable { case dot, mermaid, svg }

    static let configuration = CommandConfiguration(
        abstract: "Draw a flow file's graph: flows, child flows, contributed screens, steps, deep links.",
        discussion: """
            --format svg runs Graphviz's `dot` (Debian: apt-get install graphviz), found on PATH.
            Exit codes: 0 written; 1 the flow file is not valid; 2 Graphviz is not installed or failed.
            """
    )

    @Argument(help: ArgumentHelp("The flow file (YAML or JSON).", valueName: "file")) var file: String
    @Option(name: .long, help: "dot, mermaid or svg.") var format: Format = .dot
    @Option(name: .shortAndLong, help: ArgumentHelp("Write here instead of standard output.", valueName: "path"))
    var output: String?

    func run() throws {
        let app: AppFile
        do {
            app = try FlowFile.load(path: file)
        } catch {
            for diagnostic in error.diagnostics { printDiagnostic(diagnostic) }
            throw ExitCode(1)
        }
        let graph = FlowGraph(app)
        let data: Data
        switch format {
        case .dot: data = Data(graph.dot.utf8)
        case .mermaid: data = Data(graph.mermaid.utf8)
        case .svg: data = try Self.svg(graph.dot)
        }
        if let output {
            do {
                try data.write(to: URL(fileURLWithPath: output))
            } catch {
                printError("cannot write \(output): \(error.localizedDescription)")
                throw ExitCode(1)
            }
        } else {
            FileHandle.standardOutput.write(data)
        }
    }

    /// `dot -Tsvg` of `source`.
    static func svg(_ source: String) throws -> Data {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
            .map { "\($0)/dot" }.first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let path else {
            printError(
                "--format svg needs Graphviz's `dot` on PATH (Debian: apt-get install graphviz); "
                    + "--format dot writes the DOT text for another machine"
            )
            throw ExitCode(2)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["-Tsvg"]
        let input = Pipe()
        let output = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        do {
            try process.run()
        } catch {
            printError("cannot run \(path): \(error.localizedDescription)")
            throw ExitCode(2)
        }
        // The SVG is read while the input is written on another thread, so neither pipe fills up and blocks.
        let writer = Thread {
            input.fileHandleForWriting.write(Data(source.utf8))
            try? input.fileHandleForWriting.close()
        }
        writer.start()
        let svg = output.fileHandleForReading.readDataToEndOfFile()
        let complaint = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            printError("dot failed (\(process.terminationStatus)): \(String(decoding: complaint, as: UTF8.self))")
            throw ExitCode(2)
        }
        return svg
    }
}

/// A diagnostic on standard error as compilers write one (no `flowctl:` prefix), so editors can jump to it.
func printDiagnostic(_ diagnostic: FlowFileDiagnostic) {
    FileHandle.standardError.write(Data((diagnostic.description + "\n").utf8))
}
