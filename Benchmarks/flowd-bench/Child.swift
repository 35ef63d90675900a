import Foundation

/// A child process, by default this executable in another mode, its standard output read line by line.
final class Child {
    let name: String
    let process = Process()
    private let output = Pipe()
    private var reader: LineReader

    /// Starts `executable` (this one when `nil`) with `arguments`, under `prefix` if any.
    /// `quiet`: its standard error is dropped (else it is this process's).
    init(
        _ name: String, executable: String? = nil, arguments: [String], prefix: [String] = [], quiet: Bool = false
    ) throws {
        self.name = name
        let executable = try executable ?? Child.executablePath()
        if prefix.isEmpty {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = prefix + [executable] + arguments
        }
        process.standardOutput = output
        if quiet { process.standardError = FileHandle.nullDevice }
        reader = LineReader(fd: output.fileHandleForReading.fileDescriptor)
        try process.run()
        Leftovers.shared.hold(pid: process.processIdentifier)
    }

    var pid: Int32 { process.processIdentifier }

    /// Reads lines until one starts with `prefix`; returns the rest of it. Other lines go to standard error, but for
    /// `PHASE` lines.
    func expect(_ prefix: String, timeout: Double) throws -> String {
        let deadline = monotonicNanoseconds() + UInt64(timeout * 1e9)
        while true {
            let left = Double(deadline &- monotonicNanoseconds()) / 1e9
            guard left > 0, left < timeout + 1 else { throw BenchError("\(name): timed out waiting for \(prefix)") }
            let line = try reader.next(timeout: left, what: "\(name) \(prefix)")
            if line.hasPrefix(prefix) { return String(line.dropFirst(prefix.count)) }
            // A phase the orchestrator does not wait for (the paced one) is no news.
            if !line.hasPrefix("PHASE ") { note("[\(name)] \(line)") }
        }
    }

    /// Waits `grace` seconds for the child to exit by itself, then ends it by its pid (SIGTERM, then SIGKILL) and
    /// waits for it.
    func finish(grace: Double) {
        let deadline = monotonicNanoseconds() + UInt64(grace * 1e9)
        while process.isRunning, monotonicNanoseconds() < deadline { usleep(10_000) }
        if process.isRunning {
            kill(pid, SIGTERM)
            let killDeadline = monotonicNanoseconds() + 10_000_000_000
            while process.isRunning, monotonicNanoseconds() < killDeadline { usleep(10_000) }
            if process.isRunning { kill(pid, SIGKILL) }
        }
        process.waitUntilExit()
        Leftovers.shared.release(pid: pid)
    }

    private static func executablePath() throws -> String {
        try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
    }
}
