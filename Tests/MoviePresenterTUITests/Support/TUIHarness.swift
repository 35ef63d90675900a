import FlowdTesting
import Foundation
import Synchronization
import TestProcesses

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A failure of the harness (a process that does not start, a screen that does not come), with what was seen.
struct HarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// How long any awaited condition may take before the test fails: generous, for a loaded 2-core machine.
let generousDeadline: Duration = .seconds(60)

/// Checks `condition` every 50 ms until it returns a value or `deadline` passes (then throws, describing `what`).
@discardableResult
func poll<T>(
    _ what: String, deadline: Duration = generousDeadline, _ condition: () throws -> T?
) async throws -> T {
    let clock = ContinuousClock()
    let end = clock.now + deadline
    while true {
        if let value = try condition() { return value }
        guard clock.now < end else { throw HarnessError("timed out waiting for \(what)") }
        try await Task.sleep(for: .milliseconds(50))
    }
}

// MARK: - Processes

/// Starts `executable` with standard input from /dev/null and its output and error appended to files; returns its
/// pid. `posix_spawn` and `waitpid` rather than Foundation's `Process`: the test reaps its children itself (a tmux
/// client whose server inherited its descriptors was left unreaped under `Process`).
func spawn(
    _ executable: String, _ arguments: [String], environment: [String: String], output: String, error: String
) throws -> pid_t {
    try TestProcesses.spawn(
        URL(fileURLWithPath: executable), arguments: arguments, environment: environment, standardInput: .null,
        standardOutput: .appending(toFile: output), standardError: .appending(toFile: error), ownProcessGroup: false)
}

/// A process the test started: output and error go to files in the runtime folder; it is ended by its own pid.
///
/// `Sendable`: its pid and paths are constants; whether it was reaped is behind a mutex.
final class ServiceProcess: Sendable {
    let name: String
    let pid: pid_t
    let errorFile: String
    private let ended = Mutex(false)

    init(name: String, executable: String, arguments: [String], environment: [String: String], folder: String) throws {
        self.name = name
        errorFile = "\(folder)/\(name).err"
        pid = try spawn(
            executable, arguments, environment: environment, output: "\(folder)/\(name).out", error: errorFile
        )
    }

    /// What it wrote on standard error so far.
    var errorOutput: String { (try? String(contentsOfFile: errorFile, encoding: .utf8)) ?? "" }

    /// Whether it has ended (it is reaped then).
    var hasEnded: Bool {
        ended.withLock { ended in
            if !ended {
                var status: Int32 = 0
                let result = waitpid(pid, &status, WNOHANG)
                if result == pid || (result < 0 && errno == ECHILD) { ended = true }
            }
            return ended
        }
    }

    /// Waits for a line of standard error containing every one of `fragments`.
    func waitForLog(_ fragments: String...) async throws {
        try await poll("\(name) to log \(fragments)") { () throws -> Bool? in
            let lines = errorOutput.split(separator: "\n")
            if lines.contains(where: { line in fragments.allSatisfy { line.contains($0) } }) { return true }
            if hasEnded { throw HarnessError("\(name) ended before logging \(fragments)") }
            return nil
        }
    }

    /// SIGTERM, then SIGKILL if it is still running after 10 s; by its own pid.
    func stop() async {
        guard !hasEnded else { return }
        kill(pid, SIGTERM)
        if (try? await poll("\(name) to end", deadline: .seconds(10), { hasEnded ? true : nil })) == nil {
            kill(pid, SIGKILL)
            _ = try? await poll("\(name) to be killed", deadline: .seconds(10)) { hasEnded ? true : nil }
        }
    }
}

/// The demo's daemon (movie-flowd), the login service and the movie service in a runtime folder of their own
/// (`ipc://` sockets), and the built executables' folder. ``stop()`` ends every process by its pid and removes the
/// folder.
///
/// `Sendable`: the list of processes is behind a mutex.
final class DemoProcesses: Sendable {
    let folder: String
    let binaries: String
    private let processes = Mutex<[ServiceProcess]>([])

    /// Every process's `--heartbeat-ms`: the product's default. flowd counts a client dead after 3 of its intervals
    /// without a message, and on a loaded 2-core machine a process can go 0.6 s without running.
    static let heartbeatMs = "1000"

    /// The executables this test runs, found next to the test binary (or in `FLOWD_BIN_DIR`).
    static let executables = ["movie-flowd", "login-service", "movie-service", "movie-presenter"]

    init() throws {
        binaries = try Self.findBinaries()
        folder = "/tmp/tui-" + UUID().uuidString.prefix(8).lowercased()
        try FileManager.default.createDirectory(
            atPath: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700]
        )
    }

    /// The environment every process gets: the runtime folder, so the default endpoints are the test's.
    var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["FLOWD_RUNTIME_DIR"] = folder
        return environment
    }

    /// Starts the daemon, waits until it is ready, then the two services, and waits until the movie service has the
    /// wishlist's attachment (the lists are attached at launch).
    func start() async throws {
        let flowd = try launch(
            "movie-flowd", ["--runtime-dir", folder, "--heartbeat-ms", Self.heartbeatMs, "--log-level", "info"]
        )
        try await flowd.waitForLog("flowd ready")
        try launch("login-service", ["--heartbeat-ms", Self.heartbeatMs])
        let movies = try launch("movie-service", ["--heartbeat-ms", Self.heartbeatMs])
        try await movies.waitForLog("attachment=movies.wishlist", " attached")
    }

    @discardableResult
    func launch(_ executable: String, _ arguments: [String]) throws -> ServiceProcess {
        let process = try ServiceProcess(
            name: executable, executable: "\(binaries)/\(executable)", arguments: arguments,
            environment: environment, folder: folder
        )
        processes.withLock { $0.append(process) }
        return process
    }

    /// The processes' logs, for failure messages.
    var diagnostics: String {
        processes.withLock { $0 }.map { "--- \($0.name) stderr:\n\($0.errorOutput.suffix(3000))" }
            .joined(separator: "\n")
    }

    /// Ends every process (newest first) and removes the runtime folder.
    func stop() async {
        for process in processes.withLock({ $0 }).reversed() { await process.stop() }
        try? FileManager.default.removeItem(atPath: folder)
    }

    private static func findBinaries() throws -> String {
        try BuiltExecutables.folder(containing: executables).path
    }
}

// MARK: - tmux

/// A tmux server of the test's own (`tmux -L <unique>`), one window of a fixed size; killed at the end.
struct Tmux: Sendable {
    let socket = "flowd-tui-" + UUID().uuidString.prefix(8).lowercased()
    let executable: String

    init() throws {
        let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        guard
            let found = (paths.map { "\($0)/tmux" } + ["/usr/bin/tmux"]).first(where: {
                FileManager.default.isExecutableFile(atPath: $0)
            })
        else {
            throw HarnessError("tmux is not installed: scripts/bootstrap installs it (apt-get install -y tmux)")
        }
        executable = found
    }

    /// Runs a tmux command on the test's server to its end (reaped by its pid); returns what it printed.
    @discardableResult
    func run(_ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment) throws
        -> String
    {
        let outputPath = NSTemporaryDirectory() + "/\(socket)-\(UUID().uuidString.prefix(8)).out"
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        let pid = try spawn(
            executable, ["-L", socket, "-u", "-f", "/dev/null"] + arguments, environment: environment,
            output: outputPath, error: outputPath
        )
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw HarnessError("waitpid(\(pid)): \(String(cString: strerror(errno)))") }
        }
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        guard status == 0 else {
            throw HarnessError("tmux \(arguments.joined(separator: " ")) failed (status \(status)): \(text)")
        }
        return text
    }

    /// Starts the server with one `columns`×`rows` window running `command` (through `sh -c`).
    func start(_ command: String, columns: Int, rows: Int, environment: [String: String]) throws {
        var environment = environment
        environment["LC_ALL"] = "C.UTF-8"
        environment["TERM"] = environment["TERM"] ?? "xterm-256color"
        try run(
            ["new-session", "-d", "-s", "tui", "-x", "\(columns)", "-y", "\(rows)", command], environment: environment
        )
    }

    /// The window's text now.
    func capture() throws -> String { try run(["capture-pane", "-p", "-t", "tui"]) }

    /// Types keys (tmux key names: `Enter`, `Escape`, `j`).
    func send(_ keys: String...) throws { try run(["send-keys", "-t", "tui"] + keys) }

    /// Waits until the window shows every one of `texts` and none of `absent`; returns that capture.
    @discardableResult
    func waitForScreen(_ texts: String..., absent: [String] = []) async throws -> String {
        var last = ""
        do {
            return try await poll("the screen to show \(texts)" + (absent.isEmpty ? "" : " and not \(absent)")) {
                last = try capture()
                let shown = texts.allSatisfy { last.contains($0) } && !absent.contains { last.contains($0) }
                return shown ? last : nil
            }
        } catch let error as HarnessError {
            throw HarnessError("\(error)\n--- last screen:\n\(last)")
        }
    }

    /// The pid of the process the window runs (the shell around the presenter).
    func panePID() throws -> pid_t {
        let text = try run(["display-message", "-p", "-t", "tui", "#{pane_pid}"])
        guard let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw HarnessError("tmux gave no pane pid: \(text)")
        }
        return pid
    }

    /// Ends what the window runs by pid (the shell's children, then the shell; SIGTERM, SIGKILL after 10 s), then
    /// kills the test's tmux server.
    func stop(panePID: pid_t?) async {
        if let panePID {
            for pid in childPIDs(of: panePID) + [panePID] { await end(pid) }
        }
        _ = try? run(["kill-server"])
        let folder = ProcessInfo.processInfo.environment["TMUX_TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        try? FileManager.default.removeItem(atPath: "\(folder)/tmux-\(getuid())/\(socket)")
    }
}

/// Sends `signal` to `pid`.
private func send(_ signal: Int32, to pid: pid_t) { _ = kill(pid, signal) }

/// Whether `pid` is gone (or a zombie).
private func isGone(_ pid: pid_t) -> Bool {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return true }
    guard let end = stat.lastIndex(of: ")") else { return true }
    return stat[end...].dropFirst(2).first == "Z"
}

/// SIGTERM, then SIGKILL if `pid` is still there after 10 s (it is not the test's child: it is not reaped here).
private func end(_ pid: pid_t) async {
    guard !isGone(pid) else { return }
    send(SIGTERM, to: pid)
    if (try? await poll("process \(pid) to end", deadline: .seconds(10), { isGone(pid) ? true : nil })) == nil {
        send(SIGKILL, to: pid)
    }
}

/// The processes whose parent is `pid` (from /proc).
private func childPIDs(of pid: pid_t) -> [pid_t] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.compactMap { entry -> pid_t? in
        guard let child = pid_t(entry),
            let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
            let end = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        return fields.count > 1 && pid_t(fields[1]) == pid ? child : nil
    }
}
