internal import LibC
public import Logging
import ServiceLifecycle
public import UnixSignals

/// A headless presenter that follows a script: it hosts a ``PresenterClient``'s session, prints what is visible
/// after every change (`visible: hello, hello.greeting "Hello, default!"`), carries out the ``PresenterScript``'s
/// steps as the UI allows (`done: action:hello.greeting:about (delivered 1)`) and ends when they are all done, the
/// timeout passed or the daemon ended the session (``Outcome`` says which). An app's own headless presenter, or
/// `flowctl present`, is this and a command line:
///
/// ```swift
/// let presenter = PresenterClient(name: "hello-presenter", session: "default", createSession: true)
/// let script = try PresenterScript(parsing: ["wait:hello.greeting", "action:hello.greeting:about"])
/// let scripted = ScriptedPresenter(script: script, timeout: .seconds(60))
/// if let failure = scripted.failure(of: try await scripted.run(presenter, logger: logger)) { /* print it, exit 1 */ }
/// ```
///
/// The decisions are a ``PresenterScriptWalk``'s (tested with a clock the test moves); this type runs the presenter
/// and a timer for the deadline.
///
/// `Sendable`: its properties are immutable and `output` is `@Sendable`.
public struct ScriptedPresenter: Sendable {
    /// How a run ended.
    public enum Outcome: Sendable, Hashable {
        /// Every step was done.
        case finished
        /// The timeout passed before every step was done.
        case timedOut
        /// The timeout passed before the daemon gave the session's UI (no `SNAPSHOT` or replay came: the daemon is
        /// not running, or not at the endpoint).
        case timedOutUnsynced
        /// The presenter stopped first (a graceful shutdown signal, or its client ended); the normal end of a
        /// script without steps.
        case stopped
        /// The timeout passed while the `SNAPSHOT`s the daemon announced (its answer to `SYNC`) did not come, the
        /// last ones in a row: one larger than the client's largest message (`maxMessageSize`, given here; `nil`: no
        /// bound) never comes, since its connection drops it (docs/LIMITS.md, Known gaps).
        case snapshotNotReceived(maxMessageSize: Int64?)
        /// The daemon ended the session before every step was done (an operator's `END_SESSION`: the notice
        /// `sessionEnded`); a failure with steps or without, since there is nothing left to host.
        case sessionEnded
    }

    /// The steps.
    public let script: PresenterScript
    /// How long the steps may take in all (`nil`: no limit).
    public let timeout: Duration?
    private let output: @Sendable (String) -> Void

    /// A presenter following `script` within `timeout`, printing each line with `output` (standard output, at once,
    /// by default).
    public init(
        script: PresenterScript, timeout: Duration? = .seconds(60),
        output: @escaping @Sendable (String) -> Void = ScriptedPresenter.writeLine
    ) {
        self.script = script
        self.timeout = timeout
        self.output = output
    }

    /// Hosts `presenter`'s session in a service group (which leaves, `BYE`, on `gracefulShutdownSignals`) and walks
    /// the script over its changes; returns when the steps are done, the timeout passed, the daemon ended the
    /// session or the presenter stopped.
    ///
    /// - Throws: ``PresenterScriptError/Code/stepFailed`` when the UI or the daemon refused a step; what
    ///   ``PresenterClient/run()`` throws (a refused `SYNC`: `sessionHosted`, `unknownSession`).
    public func run(
        _ presenter: PresenterClient, logger: Logger, gracefulShutdownSignals: [UnixSignal] = [.sigterm, .sigint]
    ) async throws -> Outcome {
        let group = ServiceGroup(
            configuration: .init(
                services: [.init(service: presenter)], gracefulShutdownSignals: gracefulShutdownSignals, logger: logger
            )
        )
        let walk = PresenterScriptWalk(script, timeout: timeout, startingAt: .now)
        // Subscribed before the presenter runs, so the first change is not missed.
        let changes = presenter.changes()
        return try await withThrowingTaskGroup(of: Outcome.self) { tasks in
            tasks.addTask {
                try await group.run()
                return .stopped
            }
            if let deadline = walk.deadline {
                tasks.addTask {
                    try? await Task.sleep(until: deadline, clock: .continuous)
                    return .timedOut
                }
            }
            tasks.addTask { try await self.walk(walk, over: changes, on: presenter) }
            // The first task to end stops the others, whose errors (a step cut short) follow from that; a walk that
            // finished meanwhile still counts as finished. A presenter that stopped on an error (a refused `SYNC`)
            // ends the walk too, whose `stopped` comes first: then the presenter's error (not a step's cut short) is
            // the outcome.
            do {
                var outcome = try await tasks.next() ?? .stopped
                await group.triggerGracefulShutdown()
                tasks.cancelAll()
                var failure: (any Error)?
                while let other = await tasks.nextResult() {
                    switch other {
                    case .success(let other):
                        if other == .finished || (other == .timedOutUnsynced && outcome == .timedOut) { outcome = other }
                    case .failure(let error):
                        if !(error is PresenterScriptError), !(error is CancellationError) { failure = failure ?? error }
                    }
                }
                if outcome == .stopped, let failure { throw failure }
                // Out of time with a SNAPSHOT announced and not come: say so, rather than that the daemon is silent.
                let missed = presenter.missedSnapshots
                if outcome == .timedOut || outcome == .timedOutUnsynced, missed.count > 0 {
                    return .snapshotNotReceived(maxMessageSize: missed.maxMessageSize)
                }
                return outcome
            } catch {
                await group.triggerGracefulShutdown()
                tasks.cancelAll()
                throw error
            }
        }
    }

    /// Prints every change's visible line and carries out the steps as they become due.
    private func walk(
        _ walk: PresenterScriptWalk, over changes: AsyncStream<PresenterChange>, on presenter: PresenterClient
    ) async throws -> Outcome {
        var walk = walk
        var synced = false
        for await change in changes {
            synced = true
            // After the empty SNAPSHOT (whose change may have finished the steps, as a `gone:` does): nothing is left.
            if change.cause == .sessionEnded { return .sessionEnded }
            if let line = walk.visibleLine(for: change.model) { output(line) }
            walking: while true {
                switch walk.next(in: change.model, at: .now) {
                case .perform(let step):
                    let note = try await step.perform(on: presenter)
                    output("done: \(step)\(note)")
                case .waiting: break walking
                case .finished: return .finished
                case .timedOut: return .timedOut
                }
            }
        }
        // The presenter stopped, or the deadline cancelled the walk: then one that never got the UI says so.
        return synced || !Task.isCancelled ? .stopped : .timedOutUnsynced
    }

    /// Why a run that ended with `outcome` failed, for a person (`the steps did not complete within 60.0 s`), or
    /// `nil` when it succeeded: every step done, or a script without steps stopped.
    public func failure(of outcome: Outcome) -> String? {
        let within = timeout.map { " within \(Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18) s" }
        switch outcome {
        case .finished: return nil
        case .stopped: return script.steps.isEmpty ? nil : "the presenter stopped before the steps completed"
        case .timedOut: return "the steps did not complete\(within ?? "")"
        case .timedOutUnsynced: return "the daemon did not send the session's UI\(within ?? ""): is it running?"
        case .snapshotNotReceived(let maxMessageSize):
            let bound = maxMessageSize.map { $0 % (1 << 20) == 0 ? "\($0 >> 20) MiB" : "\($0) bytes" } ?? "no bound"
            return "the session's SNAPSHOT that flowd announced did not come\(within ?? ""): one larger than this "
                + "client's largest message (\(bound)) never comes, as its connection drops it"
        case .sessionEnded:
            let before = script.steps.isEmpty ? "" : " before the steps completed"
            return "flowd ended the session (sessionEnded)\(before)"
        }
    }

    /// Writes `line` to standard output at once, even into a pipe (where `print` buffers); a write that fails (other
    /// than by a signal) drops the rest of the line. flowctl prints every line with it too.
    public static func writeLine(_ line: String) {
        var text = line + "\n"
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(STDOUT_FILENO, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { return }
                offset += written
            }
        }
    }
}
