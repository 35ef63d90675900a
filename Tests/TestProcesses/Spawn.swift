import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Starts `executable` with `posix_spawn`, its standard input, output and error on the given descriptors, every other
/// descriptor closed in the child, in a process group of its own; returns its pid.
///
/// Not Foundation's `Process.run()`: on Linux it lists `/proc/self/fd` copying each entry's whole 256-byte name,
/// which can read past glibc's buffer and crashed the test process (SIGSEGV in `memmove`) while it held hundreds of
/// sockets (swift-corelibs-foundation pull request 5472, not in Swift 6.3.1's Foundation); every test suite runs in
/// that one process. `FileManager` lists it safely.
public func spawn(
    _ executable: URL, arguments: [String], environment: [String: String],
    standardInput: Int32, standardOutput: Int32, standardError: Int32
) throws -> pid_t {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    for (descriptor, target) in [(standardInput, 0), (standardOutput, 1), (standardError, 2)] {
        try check(posix_spawn_file_actions_adddup2(&actions, descriptor, Int32(target)), "adddup2")
    }
    // Every other descriptor open now (pipes of processes started beside it among them) is closed in the child; one
    // closed meanwhile is passed over by glibc.
    let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd"))?.compactMap { Int32($0) } ?? []
    for descriptor in open where descriptor > 2 {
        try check(posix_spawn_file_actions_addclose(&actions, descriptor), "addclose")
    }
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    try check(posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP)), "setflags")

    let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
    let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { for pointer in argv + envp { free(pointer) } }
    var pid = pid_t()
    try check(posix_spawn(&pid, executable.path, &actions, &attributes, argv, envp), "posix_spawn \(executable.path)")
    return pid
}

/// A process started with its standard input, output and error on pipes, and the test's ends of them.
///
/// `Sendable`: a pid and file handles, which are.
public struct PipedProcess: Sendable {
    public let pid: pid_t
    /// The process's standard input: closing it gives the process the end of its input.
    public let input: FileHandle
    /// The process's standard output; its end comes once the process (and any child it left) has exited.
    public let output: FileHandle
    /// The process's standard error, likewise.
    public let errors: FileHandle

    /// Starts `executable` with `arguments` and `environment`, with `spawn`.
    public init(_ executable: URL, arguments: [String], environment: [String: String]) throws {
        let input = Pipe()
        let output = Pipe()
        let errors = Pipe()
        pid = try spawn(
            executable, arguments: arguments, environment: environment,
            standardInput: input.fileHandleForReading.fileDescriptor,
            standardOutput: output.fileHandleForWriting.fileDescriptor,
            standardError: errors.fileHandleForWriting.fileDescriptor
        )
        // The child's ends are the child's now.
        for end in [input.fileHandleForReading, output.fileHandleForWriting, errors.fileHandleForWriting] {
            try? end.close()
        }
        self.input = input.fileHandleForWriting
        self.output = output.fileHandleForReading
        self.errors = errors.fileHandleForReading
    }
}

/// How a process ended.
public enum ProcessExit: Sendable, Hashable, CustomStringConvertible {
    case exited(Int32)
    case signalled(Int32)

    /// How a process ended, from `waitpid`'s status (`WIFEXITED`, `WEXITSTATUS`, `WTERMSIG`, which Swift does not
    /// import).
    public init(waitStatus status: Int32) {
        let signal = status & 0x7f
        self = signal == 0 ? .exited((status >> 8) & 0xff) : .signalled(signal)
    }

    public var description: String {
        switch self {
        case .exited(let code): return "exit code \(code)"
        case .signalled(let signal): return "killed by signal \(signal)"
        }
    }
}

/// A process that could not be started.
public struct SpawnError: Error, CustomStringConvertible {
    public let description: String
}

private func check(_ result: Int32, _ call: String) throws {
    guard result == 0 else { throw SpawnError(description: "\(call): \(String(cString: strerror(result)))") }
}
