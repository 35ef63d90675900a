import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Where a spawned process's standard input, output or error goes.
public enum StandardStream: Sendable {
    /// A descriptor of the test's (one end of a pipe).
    case descriptor(Int32)
    /// A file, created if need be, written at its end.
    case appending(toFile: String)
    /// `/dev/null`.
    case null
}

/// Starts `executable` with `posix_spawn` and returns its pid: its standard streams as given, every other descriptor
/// closed in the child, no signal blocked and every one at its default, in a process group of its own unless
/// `ownProcessGroup` is `false`.
///
/// Not Foundation's `Process.run()`: on Linux it lists `/proc/self/fd` copying each entry's whole 256-byte name,
/// which can read past glibc's buffer and crashed the test process (SIGSEGV in `memmove`) while it held hundreds of
/// sockets (swift-corelibs-foundation pull request 5472, not in Swift 6.3.1's Foundation); every test suite runs in
/// that one process. The signals are reset as the spawning thread (a concurrency worker) may block them, and a child
/// (a tmux server and its panes) would inherit that.
public func spawn(
    _ executable: URL, arguments: [String], environment: [String: String],
    standardInput: StandardStream, standardOutput: StandardStream, standardError: StandardStream,
    ownProcessGroup: Bool = true
) throws -> pid_t {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    for (stream, target) in [(standardInput, Int32(0)), (standardOutput, 1), (standardError, 2)] {
        switch stream {
        case .descriptor(let descriptor):
            try check(posix_spawn_file_actions_adddup2(&actions, descriptor, target), "adddup2")
        case .appending(let path):
            let flags = O_WRONLY | O_CREAT | O_APPEND
            try check(posix_spawn_file_actions_addopen(&actions, target, path, flags, 0o644), "addopen \(path)")
        case .null:
            let flags = target == 0 ? O_RDONLY : O_WRONLY
            try check(posix_spawn_file_actions_addopen(&actions, target, "/dev/null", flags, 0), "addopen /dev/null")
        }
    }
    try closeOtherDescriptors(&actions)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var noSignals = sigset_t()
    sigemptyset(&noSignals)
    var allSignals = sigset_t()
    sigfillset(&allSignals)
    try check(posix_spawnattr_setsigmask(&attributes, &noSignals), "setsigmask")
    try check(posix_spawnattr_setsigdefault(&attributes, &allSignals), "setsigdefault")
    let flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | (ownProcessGroup ? POSIX_SPAWN_SETPGROUP : 0)
    try check(posix_spawnattr_setflags(&attributes, Int16(flags)), "setflags")

    let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
    let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { for pointer in argv + envp { free(pointer) } }
    var pid = pid_t()
    try check(posix_spawn(&pid, executable.path, &actions, &attributes, argv, envp), "posix_spawn \(executable.path)")
    return pid
}

/// Closes every descriptor above 2 in the child: with glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and
/// later, not visible to Swift) when the C library has it, else each one open now, as `FileManager` lists them.
private func closeOtherDescriptors(_ actions: inout posix_spawn_file_actions_t) throws {
    if let closeFrom = closeDescriptorsFrom {
        try check(closeFrom(&actions, 3), "addclosefrom_np")
        return
    }
    // One closed meanwhile is passed over by glibc.
    let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd"))?.compactMap { Int32($0) } ?? []
    for descriptor in open where descriptor > 2 {
        try check(posix_spawn_file_actions_addclose(&actions, descriptor), "addclose")
    }
}

private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
private let closeDescriptorsFrom: AddCloseFrom? = {
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else {
        return nil
    }
    return unsafeBitCast(symbol, to: AddCloseFrom.self)
}()

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
            standardInput: .descriptor(input.fileHandleForReading.fileDescriptor),
            standardOutput: .descriptor(output.fileHandleForWriting.fileDescriptor),
            standardError: .descriptor(errors.fileHandleForWriting.fileDescriptor)
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
