import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What a process run to its end printed, and how it ended.
public struct ProcessRun: Sendable {
    public var exit: ProcessExit
    public var output: String
    public var errors: String

    /// The exit status, or 128 plus the signal that ended it, as a shell gives it.
    public var status: Int32 {
        switch exit {
        case .exited(let code): return code
        case .signalled(let signal): return 128 + signal
        }
    }

    /// Runs `executable` with `arguments` and `environment` (this process's by default), its standard input empty, and
    /// waits for its end, its output and error read meanwhile (on a thread each, so that neither pipe fills up).
    public init(
        _ executable: URL, arguments: [String],
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws {
        let process = try PipedProcess(executable, arguments: arguments, environment: environment)
        try? process.input.close()
        let errorData = Mutex(Data())
        let errorsRead = DispatchSemaphore(value: 0)
        Thread {
            errorData.withLock { $0 = process.errors.readDataToEndOfFile() }
            errorsRead.signal()
        }.start()
        let outputData = process.output.readDataToEndOfFile()
        var status: Int32 = 0
        while waitpid(process.pid, &status, 0) == -1, errno == EINTR {}
        errorsRead.wait()
        exit = ProcessExit(waitStatus: status)
        self.output = String(decoding: outputData, as: UTF8.self)
        self.errors = String(decoding: errorData.withLock { $0 }, as: UTF8.self)
    }
}
