// flowd: the stock daemon. It runs the application a flow file declares (docs/FLOWFILE.md): `flowd --app FILE` (or
// `app` in the config file, or FLOWD_APP=FILE), with every other flag and the config file as any Flowd daemon has
// them (`flowd --help`). The file is checked first: a file with mistakes is reported, each with its line and column,
// and nothing starts. SIGHUP reads it again: new sessions get the new version, running ones keep theirs.

import FlowDaemon
import FlowFile
import Foundation

func fail(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data("flowd: \(message)\n".utf8))
    exit(status)
}

/// What `--help` runs: a one-flow application, never started (the help is printed and the process exits first).
let helpOnly = """
    flowfile: 1
    app: help
    root: {flow: main, stepper: {one: start}}
    steps: {start: {}}
    flows: {main: {root: {id: main, kind: stack}, navigate: {start: {}}}}
    """

func main() async {
    var arguments = Array(CommandLine.arguments.dropFirst())
    // Help comes first, whatever else is given: `--app` is this executable's own flag, which the options do not list.
    if arguments.contains("--help") || arguments.contains("-h") {
        print("flowd --app FILE [options]: runs the application the flow file FILE declares (docs/FLOWFILE.md);")
        print("'app' in the config file or FLOWD_APP=FILE does the same; SIGHUP reads FILE again (new sessions get")
        print("the new version). The options are every Flowd daemon's:\n")
        guard let app = try? FlowFile.parse(helpOnly, file: "help") else { fail("no help", status: 70) }
        await Flowd.main(FileApplication(app), arguments: ["--help"])
        return
    }
    let path: String?
    do {
        path = try FlowdAppLocation.resolve(arguments: &arguments, environment: ProcessInfo.processInfo.environment)
    } catch {
        // A config file that cannot be read or parsed: status 1, as every Flowd daemon exits for it.
        fail("\(error)", status: 1)
    }
    guard let path else {
        fail("no application: give --app FILE, a flow file (docs/FLOWFILE.md), 'app' in the config file, or set FLOWD_APP", status: 64)
    }
    let source = AppVersionSource(path: path) { text, file, version throws(AppVersionError) in
        do throws(FlowFileErrors) {
            return FileApplication(try FlowFile.parse(text, file: file), appVersion: version)
        } catch {
            throw AppVersionError(error.diagnostics.map(\.description))
        }
    }
    let version: AppVersion
    do throws(AppVersionError) {
        version = try source.read()
    } catch {
        for problem in error.problems { FileHandle.standardError.write(Data((problem + "\n").utf8)) }
        let count = error.problems.count
        fail("\(path): \(count) error\(count == 1 ? "" : "s"); nothing started", status: 1)
    }
    await Flowd.main(file: source, version: version, arguments: arguments)
}

await main()
