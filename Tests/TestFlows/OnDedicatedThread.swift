import Foundation

/// Runs blocking work (libzmq calls that wait up to their socket timeouts, a fuzz run) on a dedicated OS thread
/// (8 MiB stack) and returns its result: blocking on Swift's cooperative pool (two threads on a two-core machine,
/// shared by every test in the process) would stall the other tests' tasks meanwhile, and two such calls at once all
/// of them.
public func onDedicatedThread<Result: Sendable>(
    _ name: String, _ body: @escaping @Sendable () throws -> Result
) async throws -> Result {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Result, any Error>) in
        let thread = Thread {
            continuation.resume(with: Swift.Result { try body() })
        }
        thread.name = name
        thread.stackSize = 8 << 20
        thread.start()
    }
}
