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

/// One process the test started: its standard output and error as ``LineLog``s (read on threads of their own), its
/// standard input as a pipe, and its end, awaited without polling.
///
/// The harness ends every process it started, by its own pid: ``stop(grace:)`` sends SIGTERM, then SIGKILL when the
/// grace period runs out, and waits for the exit.
///
/// `Sendable`: the process is reached through its pid; the exit is behind a mutex.
final class ManagedProcess: Sendable {
    /// How a process ended.
    typealias Exit = ProcessExit

    private struct ExitState {
        var exit: Exit?
        var waiters: [Int: CheckedContinuation<Exit?, Never>] = [:]
        var nextWaiter = 0
    }

    /// The exit, shared with the termination handler.
    private final class ExitBox: Sendable {
        let state = Mutex(ExitState())
    }

    /// A short name for messages (`flowd`, `presenter-kiosk`).
    let name: String
    /// The command line, for messages.
    let commandLine: String
    let pid: Int32
    let stdout: LineLog
    let stderr: LineLog
    private let input: FileHandle
    private let exitBox: ExitBox

    /// Starts `executable` with `arguments` and `environment`.
    ///
    /// - Throws: when the executable cannot be started.
    init(name: String, executable: URL, arguments: [String], environment: [String: String]) throws {
        self.name = name
        self.commandLine = ([executable.lastPathComponent] + arguments).joined(separator: " ")
        let stdout = LineLog(label: "\(name) stdout")
        let stderr = LineLog(label: "\(name) stderr")
        let exitBox = ExitBox()
        let process = try PipedProcess(executable, arguments: arguments, environment: environment)
        let pid = process.pid
        Self.startWaiter(for: pid, name: name, into: exitBox)
        self.pid = pid
        self.stdout = stdout
        self.stderr = stderr
        self.input = process.input
        self.exitBox = exitBox
        Self.startReader(process.output, into: stdout, name: "\(name)-out")
        Self.startReader(process.errors, into: stderr, name: "\(name)-err")
    }

    /// Waits for the process's end on a thread of its own (a blocking `waitpid`) and hands it to the waiters.
    private static func startWaiter(for pid: pid_t, name: String, into exitBox: ExitBox) {
        let thread = Thread {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1, errno == EINTR {}
            let exit = Exit(waitStatus: status)
            let waiters = exitBox.state.withLock { state in
                state.exit = exit
                defer { state.waiters = [:] }
                return Array(state.waiters.values)
            }
            for waiter in waiters { waiter.resume(returning: exit) }
        }
        thread.name = "\(name)-wait"
        thread.start()
    }

    /// Reads `handle` until its end on a thread of its own (a blocking read), appending to `log`.
    private static func startReader(_ handle: FileHandle, into log: LineLog, name: String) {
        let thread = Thread {
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                log.append(data)
            }
            try? handle.close()
            log.close()
        }
        thread.name = name
        thread.start()
    }

    // MARK: - Input

    /// Writes `line` and a newline to the process's standard input.
    func send(_ line: String) throws {
        try input.write(contentsOf: Data((line + "\n").utf8))
    }

    /// Closes the writing end of the process's standard input. A test that starts hundreds of short processes (the
    /// fault-injection tests poll with `flowctl`) closes it once each has ended, or the test process runs out of file
    /// descriptors.
    func closeInput() {
        try? input.close()
    }

    // MARK: - Output

    /// Waits for the first line of standard output from index `from` on that satisfies `predicate`; returns its index.
    @discardableResult
    func waitForOutput(
        from: Int = 0, _ what: String, where predicate: @escaping @Sendable (String) -> Bool
    ) async throws -> Int {
        try await wait(on: stdout, from: from, what, predicate)
    }

    /// Waits for the first line of standard output from `from` on equal to `line`; returns its index.
    @discardableResult
    func waitForOutput(from: Int = 0, line: String) async throws -> Int {
        try await waitForOutput(from: from, "the line '\(line)'") { $0 == line }
    }

    /// Waits for the first line of standard error from `from` on that satisfies `predicate`; returns its index.
    @discardableResult
    func waitForError(
        from: Int = 0, _ what: String, where predicate: @escaping @Sendable (String) -> Bool
    ) async throws -> Int {
        try await wait(on: stderr, from: from, what, predicate)
    }

    private func wait(
        on log: LineLog, from: Int, _ what: String, _ predicate: @escaping @Sendable (String) -> Bool
    ) async throws -> Int {
        do {
            return try await withDeadline("\(what) on \(log.label)") {
                try await log.waitForLine(from: from, where: predicate)
            }
        } catch let error as HarnessError {
            throw HarnessError("\(error)\n\(diagnostics)")
        }
    }

    /// The tail of both outputs, for failure messages.
    var diagnostics: String {
        "--- \(name) (\(commandLine)) stdout:\n\(stdout.tail())\n--- \(name) stderr:\n\(stderr.tail())"
    }

    // MARK: - End

    /// How the process ended, if it did.
    var exit: Exit? { exitBox.state.withLock { $0.exit } }

    /// Waits for the process to end; `nil` when the task is cancelled first.
    /// Waits for the process's end and then for its output pipes to close, so that ``stdout`` and ``stderr`` hold
    /// every line it wrote (the termination handler can run before the readers reach the end of the pipes).
    private func waitForExitOrCancellation() async -> Exit? {
        guard let exit = await waitForTermination() else { return nil }
        await stdout.waitUntilClosed()
        await stderr.waitUntilClosed()
        return exit
    }

    private func waitForTermination() async -> Exit? {
        let id = exitBox.state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Exit?, Never>) in
                let exit: Exit?? = exitBox.state.withLock { state in
                    if let exit = state.exit { return .some(exit) }
                    if Task.isCancelled { return .some(nil) }
                    state.waiters[id] = continuation
                    return nil
                }
                if let exit { continuation.resume(returning: exit) }
            }
        } onCancel: {
            let waiter = exitBox.state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume(returning: nil)
        }
    }

    /// Waits for the process to end, at most `deadline`; `nil` when it is still running then.
    func waitForExit(within deadline: Duration = generousDeadline) async -> Exit? {
        let result = try? await withDeadline("\(name) to exit", deadline: deadline) {
            await self.waitForExitOrCancellation()
        }
        return result ?? nil
    }

    /// Sends `signal` to the process (by its pid), unless it has ended already.
    func signal(_ signal: Int32) {
        guard exit == nil else { return }
        kill(pid, signal)
    }

    /// Ends the process: SIGTERM, then SIGKILL if it is still running after `grace`; waits for its end.
    @discardableResult
    func stop(grace: Duration = .seconds(5)) async -> Exit {
        if let exit { return exit }
        signal(SIGTERM)
        if let exit = await waitForExit(within: grace) { return exit }
        signal(SIGKILL)
        return await waitForExitAfterKill()
    }

    /// Kills the process at once (SIGKILL) and waits for its end.
    @discardableResult
    func kill9() async -> Exit {
        signal(SIGKILL)
        return await waitForExitAfterKill()
    }

    /// After SIGKILL the end comes; waits for it (a process in uninterruptible sleep can take a while).
    private func waitForExitAfterKill() async -> Exit {
        while true {
            if let exit = await waitForExitOrCancellation() { return exit }
            if Task.isCancelled { return exit ?? .signalled(SIGKILL) }
        }
    }
}
