public import FlowWire

/// A wait of ``FakeDaemon`` that ran into ``FakeDaemon/deadline``.
public struct DeadlineExceeded: Error, CustomStringConvertible {
    public let what: String

    public var description: String { "nothing after \(FakeDaemon.deadline) waiting for \(what)" }
}

/// A message the fake daemon did not expect.
public struct UnexpectedMessage: Error, CustomStringConvertible {
    public let expected: String
    public let got: WireMessage

    public var description: String { "expected \(expected), got \(got.type.rawValue): \(got)" }
}

/// Runs `body`, failing with ``DeadlineExceeded`` after ``FakeDaemon/deadline``.
public func withDeadline<T: Sendable>(
    _ what: String, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: FakeDaemon.deadline)
            throw DeadlineExceeded(what: what)
        }
        defer { group.cancelAll() }
        guard let result = try await group.next() else { throw DeadlineExceeded(what: what) }
        return result
    }
}

/// Runs `run` (a client's `run()`) in a child task while `body` drives the test, then cancels it.
///
/// - Returns: what `body` returns; rethrows what `body` throws, or an error `run` threw.
@discardableResult
public func whileRunning<T: Sendable>(
    _ run: @escaping @Sendable () async throws -> Void,
    _ body: () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await run() }
        let result: T
        do {
            result = try await body()
        } catch {
            group.cancelAll()
            throw error
        }
        group.cancelAll()
        try await group.waitForAll()
        return result
    }
}

extension ClientMessage {
    /// The `HELLO` body, if this is one.
    public var hello: Hello? { if case .hello(let body) = self { body } else { nil } }
    /// The `SYNC` body, if this is one.
    public var sync: Sync? { if case .sync(let body) = self { body } else { nil } }
    /// The `REPORT` body, if this is one.
    public var report: Report? { if case .report(let body) = self { body } else { nil } }
    /// The `ACK` body, if this is one.
    public var ack: Ack? { if case .ack(let body) = self { body } else { nil } }
    /// The `STEP` body, if this is one.
    public var step: StepMessage? { if case .step(let body) = self { body } else { nil } }
    /// The `ADAPTED` body, if this is one.
    public var adapted: AdaptedMessage? { if case .adapted(let body) = self { body } else { nil } }
    /// Whether this is `BYE`.
    public var isBye: Bool { if case .bye = self { true } else { false } }
}
