import FlowdTesting
import Foundation
import Synchronization

/// The real processes of one test: the movie demo's daemon (`movie-flowd`), the services, presenters, `flowctl watch`,
/// in a runtime folder of their own (`ipc://` sockets), all ended by pid and the folder removed when the test ends,
/// whatever its outcome.
///
/// Use ``withCluster(_:)``. Every process gets `FLOWD_RUNTIME_DIR` set to the test's folder, so clients find the
/// daemon's default endpoints without flags; tests over TCP pass `--control`/`--events` explicitly.
///
/// `Sendable`: the list of processes is behind a mutex.
final class Cluster: Sendable {
    /// The per-test runtime folder (short: `ipc://` paths are limited to about 107 bytes).
    let runtimeDirectory: String
    /// Where the built executables are.
    let binDirectory: URL
    private let processes = Mutex<[ManagedProcess]>([])
    private let names = Mutex<[String: Int]>([:])

    /// The daemon's executable: the movie demo's flows under Flowd.
    static let daemonExecutable = "movie-flowd"

    /// The heartbeat interval every process is started with (flowd and the clients): the product's default. flowd
    /// counts a client dead after 3 of its intervals without a message, and a client process can go that long
    /// without running on a loaded 2-core machine: a window of 3 s, not 0.6 s, keeps that out of tests that do not
    /// kill anything.
    static let defaultHeartbeatMs = 1000

    /// This cluster's heartbeat interval (`--heartbeat-ms` of every process it starts).
    let heartbeatMs: Int

    init(heartbeatMs: Int = Cluster.defaultHeartbeatMs) throws {
        self.heartbeatMs = heartbeatMs
        binDirectory = try Self.findBinDirectory()
        runtimeDirectory = "/tmp/fit-" + UUID().uuidString.prefix(8).lowercased()
        try FileManager.default.createDirectory(
            atPath: runtimeDirectory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700]
        )
    }

    /// The default control endpoint in the runtime folder.
    var controlEndpoint: String { "ipc://\(runtimeDirectory)/control.sock" }
    /// The default events endpoint in the runtime folder.
    var eventsEndpoint: String { "ipc://\(runtimeDirectory)/events.sock" }

    // MARK: - Executables

    /// The folder where `swift build` put every product (see ``BuiltExecutables``).
    private static func findBinDirectory() throws -> URL {
        try BuiltExecutables.folder(
            containing: [daemonExecutable, "flowctl", "login-service", "movie-service", "movie-presenter"]
        )
    }

    // MARK: - Processes

    /// Starts `executable` (a product name) with `arguments`; the process is ended when the test ends.
    /// With `softDescriptorLimit`, the process starts under that soft `RLIMIT_NOFILE` (`/bin/sh`'s `ulimit -Sn`, then
    /// `exec`: the same pid); with `descriptorLimit`, under that soft and hard limit (`ulimit -n`).
    @discardableResult
    func launch(
        _ executable: String, _ arguments: [String], name: String? = nil, softDescriptorLimit: Int? = nil,
        descriptorLimit: Int? = nil
    ) throws -> ManagedProcess {
        var environment = ProcessInfo.processInfo.environment
        environment["FLOWD_RUNTIME_DIR"] = runtimeDirectory
        let base = name ?? executable
        let label = names.withLock { names -> String in
            names[base, default: 0] += 1
            return names[base]! == 1 ? base : "\(base)#\(names[base]!)"
        }
        var path = binDirectory.appendingPathComponent(executable)
        var arguments = arguments
        let ulimit = softDescriptorLimit.map { "ulimit -Sn \($0)" } ?? descriptorLimit.map { "ulimit -n \($0)" }
        if let ulimit {
            arguments = ["-c", "\(ulimit) && exec \"$0\" \"$@\"", path.path] + arguments
            path = URL(fileURLWithPath: "/bin/sh")
        }
        let process = try ManagedProcess(
            name: label, executable: path, arguments: arguments, environment: environment
        )
        processes.withLock { $0.append(process) }
        return process
    }

    /// Ends every process still running (newest first: clients before the daemon), by pid, and waits for each.
    func stopAll() async {
        let all = processes.withLock { $0 }
        for process in all.reversed() { await process.stop() }
    }

    /// The tails of every process's output, for failure messages.
    var diagnostics: String {
        processes.withLock { $0 }.map(\.diagnostics).joined(separator: "\n")
    }

    // MARK: - flowd

    /// Starts the daemon (labelled `flowd` in the diagnostics) with a short heartbeat and waits until it is ready (its
    /// `flowd ready` log line).
    ///
    /// - Returns: the daemon and the endpoints it reported as bound (a `tcp://…:*` endpoint with its real port).
    @discardableResult
    func startFlowd(
        _ extraArguments: [String] = [], executable: String = daemonExecutable, softDescriptorLimit: Int? = nil,
        descriptorLimit: Int? = nil
    ) async throws -> Daemon {
        let process = try launch(
            executable,
            ["--runtime-dir", runtimeDirectory, "--heartbeat-ms", "\(heartbeatMs)", "--log-level", "info"]
                + extraArguments,
            name: "flowd", softDescriptorLimit: softDescriptorLimit, descriptorLimit: descriptorLimit
        )
        let index = try await process.waitForError("the 'flowd ready' log line") { $0.contains("flowd ready") }
        let line = process.stderr.lines[index]
        guard let control = Self.metadata("control", in: line), let events = Self.metadata("events", in: line) else {
            throw HarnessError("flowd's ready line names no endpoints: \(line)")
        }
        return Daemon(process: process, control: control, events: events)
    }

    /// A `key=value` field of a swift-log `StreamLogHandler` line.
    static func metadata(_ key: String, in line: String) -> String? {
        guard let range = line.range(of: " \(key)=") else { return nil }
        let rest = line[range.upperBound...]
        return String(rest.prefix { $0 != " " })
    }

    // MARK: - Services and presenters

    /// Starts the login service.
    @discardableResult
    func startLoginService(_ extraArguments: [String] = []) throws -> ManagedProcess {
        try launch("login-service", ["--heartbeat-ms", "\(heartbeatMs)"] + extraArguments)
    }

    /// Starts the movie service.
    @discardableResult
    func startMovieService(_ extraArguments: [String] = []) throws -> ManagedProcess {
        try launch("movie-service", ["--heartbeat-ms", "\(heartbeatMs)"] + extraArguments)
    }

    /// Starts a headless presenter.
    func startPresenter(_ extraArguments: [String] = [], name: String = "movie-presenter") throws -> Presenter {
        Presenter(
            process: try launch(
                "movie-presenter", ["--heartbeat-ms", "\(heartbeatMs)", "--name", name] + extraArguments,
                name: name
            )
        )
    }

    // MARK: - flowctl

    /// What a `flowctl` run printed, and how it ended.
    struct CommandResult: Sendable, CustomStringConvertible {
        let exit: ManagedProcess.Exit
        let stdout: [String]
        let stderr: [String]

        var description: String {
            "\(exit)\nstdout:\n\(stdout.joined(separator: "\n"))\nstderr:\n\(stderr.joined(separator: "\n"))"
        }

        /// Standard output as one string (lines joined with newlines).
        var output: String { stdout.joined(separator: "\n") }
    }

    /// Runs `flowctl` to its end.
    func flowctl(_ arguments: [String]) async throws -> CommandResult {
        try await runToEnd("flowctl", arguments)
    }

    /// Runs `executable` to its end (bounded by a generous deadline: then it is killed and the test fails).
    func runToEnd(_ executable: String, _ arguments: [String]) async throws -> CommandResult {
        let process = try launch(executable, arguments)
        guard let exit = await process.waitForExit(within: generousDeadline) else {
            await process.kill9()
            throw HarnessError("\(executable) \(arguments.joined(separator: " ")) did not end\n\(process.diagnostics)")
        }
        // The output is complete once both pipes are closed.
        _ = try await withDeadline("\(executable)'s output to close") {
            _ = try? await process.stdout.waitForLine(from: Int.max) { _ in false }
            _ = try? await process.stderr.waitForLine(from: Int.max) { _ in false }
        }
        return CommandResult(exit: exit, stdout: process.stdout.lines, stderr: process.stderr.lines)
    }

    /// Runs `flowctl` and fails unless it exits with 0.
    func flowctlSucceeding(_ arguments: [String]) async throws -> CommandResult {
        let result = try await flowctl(arguments)
        guard result.exit == .exited(0) else {
            throw HarnessError("flowctl \(arguments.joined(separator: " ")) failed: \(result)")
        }
        return result
    }

    /// `flowctl health --json`, decoded.
    func health(_ connection: [String] = []) async throws -> [String: Any] {
        let result = try await flowctlSucceeding(["health", "--json"] + connection)
        return try Self.jsonObject(result.output)
    }

    /// `flowctl sessions --json`: each session's `seq` by ID.
    func sessionSeqs(_ connection: [String] = []) async throws -> [String: Int] {
        let result = try await flowctlSucceeding(["sessions", "--json"] + connection)
        guard let sessions = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String: Any]] else {
            throw HarnessError("flowctl sessions --json is not an array: \(result.output)")
        }
        var seqs: [String: Int] = [:]
        for session in sessions {
            if let id = session["id"] as? String, let seq = session["seq"] as? Int { seqs[id] = seq }
        }
        return seqs
    }

    static func jsonObject(_ text: String) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw HarnessError("not a JSON object: \(text)")
        }
        return object
    }

    // MARK: - Watching

    /// Starts `flowctl watch` (with dropped steps) and waits until its subscription is live: it deep-links the
    /// harmless `fakeStep` (every flow navigates to it and does nothing) until the watch prints it, so no event after
    /// this returns can be missed. Probe lines contain `step=fakeStep`; ``Watch/lines`` leaves them out.
    func startWatch(session: String? = nil, connection: [String] = []) async throws -> Watch {
        var arguments = ["watch", "--drops"] + connection
        if let session { arguments += ["--session", session] }
        let process = try launch("flowctl", arguments, name: "watch-\(session ?? "all")")
        let watch = Watch(process: process)
        let probed = session ?? "default"
        for attempt in 1...20 {
            _ = try await flowctlSucceeding(["step", "--session", probed, "fakeStep"] + connection)
            let seen = try? await withDeadline("the watch to print a probe", deadline: .seconds(attempt < 3 ? 1 : 3)) {
                try await process.stdout.waitForLine { $0.contains("step=fakeStep") }
            }
            if seen != nil { return watch }
            if let exit = process.exit { throw HarnessError("flowctl watch ended (\(exit))\n\(process.diagnostics)") }
        }
        throw HarnessError("flowctl watch never printed a probe\n\(process.diagnostics)")
    }
}

/// A running `flowd`.
struct Daemon: Sendable {
    let process: ManagedProcess
    /// The control endpoint it bound (as it logged it).
    let control: String
    /// The events endpoint it bound.
    let events: String

    /// `--control … --events …` for a client of this daemon.
    var connectionArguments: [String] { ["--control", control, "--events", events] }
}

/// A running `flowctl watch`.
struct Watch: Sendable {
    let process: ManagedProcess

    /// The lines printed so far, without the subscription probes.
    var lines: [String] { process.stdout.lines.filter { !$0.contains("step=fakeStep") } }

    /// Waits until the watch prints `line`.
    func waitFor(_ line: String) async throws {
        try await process.waitForOutput(line: line)
    }
}

/// A running `movie-presenter`: what it printed, and commands for its standard input.
struct Presenter: Sendable {
    let process: ManagedProcess

    /// Every line printed so far.
    var lines: [String] { process.stdout.lines }

    /// The `command <seq> …` lines' sequence numbers, in order.
    var commandSeqs: [Int] {
        lines.compactMap { line in
            guard line.hasPrefix("command ") else { return nil }
            return Int(line.split(separator: " ")[1])
        }
    }

    /// The `command <seq> <command>` lines, without their sequence numbers: `push x onto y`.
    var commands: [String] {
        lines.compactMap { line in
            guard line.hasPrefix("command ") else { return nil }
            return line.split(separator: " ", maxSplits: 2).dropFirst(2).first.map(String.init)
        }
    }

    /// Waits for a line equal to `line`, from index `from` on; returns its index.
    @discardableResult
    func waitFor(_ line: String, from: Int = 0) async throws -> Int {
        try await process.waitForOutput(from: from, line: line)
    }

    /// Waits for a line starting with `prefix`, from index `from` on; returns its index.
    @discardableResult
    func waitFor(prefix: String, from: Int = 0) async throws -> Int {
        try await process.waitForOutput(from: from, "a line starting with '\(prefix)'") { $0.hasPrefix(prefix) }
    }

    /// Sends an input line and waits for its `ok …` answer (failing on `error …`); returns the answer.
    @discardableResult
    func run(_ input: String) async throws -> String {
        let from = process.stdout.count
        try process.send(input)
        let index = try await process.waitForOutput(from: from, "the answer to '\(input)'") {
            $0.hasPrefix("ok \(input)") || $0.hasPrefix("error \(input)")
        }
        let answer = process.stdout.lines[index]
        guard answer.hasPrefix("ok ") else { throw HarnessError("the presenter refused '\(input)': \(answer)") }
        return answer
    }

    /// Prints the UI (`screens`) and returns the lines between `--- screens` and `--- end`.
    func screens() async throws -> [String] {
        let from = process.stdout.count
        try process.send("screens")
        let start = try await process.waitForOutput(from: from, line: "--- screens")
        let end = try await process.waitForOutput(from: start, line: "--- end")
        return Array(process.stdout.lines[(start + 1)..<end])
    }
}

/// Runs `body` with a fresh ``Cluster`` whose processes use `heartbeatMs`; whatever happens, every process it started
/// is ended (SIGTERM, then SIGKILL) and waited for, and the runtime folder is removed. A failure adds the processes'
/// output to the error.
func withCluster<T: Sendable>(
    heartbeatMs: Int = Cluster.defaultHeartbeatMs, _ body: (Cluster) async throws -> T
) async throws -> T {
    let cluster = try Cluster(heartbeatMs: heartbeatMs)
    let result: Result<T, any Error>
    do {
        result = .success(try await body(cluster))
    } catch {
        result = .failure(error)
    }
    let diagnostics = cluster.diagnostics
    await cluster.stopAll()
    try? FileManager.default.removeItem(atPath: cluster.runtimeDirectory)
    switch result {
    case .success(let value):
        return value
    case .failure(let error as HarnessError):
        throw HarnessError("\(error)\n\(diagnostics)")
    case .failure(let error):
        throw error
    }
}
