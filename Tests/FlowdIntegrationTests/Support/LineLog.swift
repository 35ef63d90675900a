import Foundation
import Synchronization

/// A failure of the harness: a line that did not come, a process that ended early, a command that failed.
struct HarnessError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}

/// The lines a process wrote on one of its pipes, as they arrive, with waits for an expected line.
///
/// The reader thread appends bytes; tests wait for the first line at or after an index that matches a predicate.
/// A wait ends when the line comes, when the pipe closes without it (the process ended: the wait fails at once with
/// the output so far) or when its task is cancelled (the deadline of ``withDeadline(_:deadline:_:)``).
///
/// `Sendable`: everything is behind one mutex.
final class LineLog: Sendable {
    private struct Waiter {
        let from: Int
        let predicate: @Sendable (String) -> Bool
        let continuation: CheckedContinuation<Int, any Error>
    }

    private struct State {
        var lines: [String] = []
        var partial: [UInt8] = []
        var closed = false
        var waiters: [Int: Waiter] = [:]
        var nextWaiter = 0
        var closeWaiters: [CheckedContinuation<Void, Never>] = []
    }

    /// What the log is of (`flowd stdout`), for messages.
    let label: String
    private let state = Mutex(State())

    init(label: String) {
        self.label = label
    }

    /// Every complete line so far.
    var lines: [String] { state.withLock { $0.lines } }

    /// The number of complete lines so far.
    var count: Int { state.withLock { $0.lines.count } }

    /// The last `count` lines, for failure messages.
    func tail(_ count: Int = 40) -> String {
        let lines = state.withLock { $0.lines + ($0.partial.isEmpty ? [] : [String(decoding: $0.partial, as: UTF8.self)]) }
        return lines.suffix(count).map { "    \($0)" }.joined(separator: "\n")
    }

    /// Adds bytes read from the pipe.
    func append(_ bytes: some Sequence<UInt8>) {
        let resumed: [(CheckedContinuation<Int, any Error>, Int)] = state.withLock { state in
            let start = state.lines.count
            for byte in bytes {
                if byte == UInt8(ascii: "\n") {
                    state.lines.append(String(decoding: state.partial, as: UTF8.self))
                    state.partial.removeAll(keepingCapacity: true)
                } else {
                    state.partial.append(byte)
                }
            }
            guard state.lines.count > start else { return [] }
            var resumed: [(CheckedContinuation<Int, any Error>, Int)] = []
            for (id, waiter) in state.waiters {
                if let index = Self.firstMatch(in: state.lines, from: max(waiter.from, start), waiter.predicate) {
                    state.waiters[id] = nil
                    resumed.append((waiter.continuation, index))
                }
            }
            return resumed
        }
        for (continuation, index) in resumed { continuation.resume(returning: index) }
    }

    /// Waits until the pipe has closed: every line the process wrote is in ``lines`` then.
    func waitUntilClosed() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let closed = state.withLock { state in
                if !state.closed { state.closeWaiters.append(continuation) }
                return state.closed
            }
            if closed { continuation.resume() }
        }
    }

    /// The pipe closed: pending waits fail.
    func close() {
        let (waiters, tail, closeWaiters) = state.withLock { state in
            if !state.partial.isEmpty {
                state.lines.append(String(decoding: state.partial, as: UTF8.self))
                state.partial = []
            }
            state.closed = true
            defer {
                state.waiters = [:]
                state.closeWaiters = []
            }
            return (
                Array(state.waiters.values), state.lines.suffix(40).map { "    \($0)" }.joined(separator: "\n"),
                state.closeWaiters
            )
        }
        for waiter in closeWaiters { waiter.resume() }
        for waiter in waiters {
            waiter.continuation.resume(
                throwing: HarnessError("\(label) closed (the process ended) before the expected line; last lines:\n\(tail)")
            )
        }
    }

    /// Waits for the first line at index `from` or later for which `predicate` holds; returns its index.
    ///
    /// - Throws: ``HarnessError`` when the pipe closes first, `CancellationError` when the task is cancelled.
    func waitForLine(from: Int = 0, where predicate: @escaping @Sendable (String) -> Bool) async throws -> Int {
        let id = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int, any Error>) in
                let outcome: Result<Int, any Error>? = state.withLock { state in
                    if let index = Self.firstMatch(in: state.lines, from: from, predicate) { return .success(index) }
                    if state.closed {
                        let tail = state.lines.suffix(40).map { "    \($0)" }.joined(separator: "\n")
                        return .failure(HarnessError("\(label) closed before the expected line; last lines:\n\(tail)"))
                    }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.waiters[id] = Waiter(from: from, predicate: predicate, continuation: continuation)
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    private static func firstMatch(in lines: [String], from: Int, _ predicate: (String) -> Bool) -> Int? {
        guard from < lines.count else { return nil }
        return lines[from...].firstIndex(where: predicate)
    }
}

/// How long a wait for something that should happen may take before the test fails. Generous: the machine may be
/// busy (a test of a few seconds has taken over a minute at load 20); a healthy run takes a fraction of it.
let generousDeadline: Duration = .seconds(60)

/// Runs `body`, failing with a ``HarnessError`` naming `what` when it takes longer than `deadline`.
///
/// The deadline only bounds a wait that never ends (so a failure fails instead of hanging); nothing is synchronised
/// by it.
func withDeadline<T: Sendable>(
    _ description: String,
    deadline: Duration = generousDeadline,
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    return try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: deadline)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else { throw HarnessError("no result for \(description)") }
        guard let value = first else { throw HarnessError("timed out after \(deadline) waiting for \(description)") }
        return value
    }
}
