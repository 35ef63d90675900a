import FlowClient
import FlowCore
import FlowWire
import Foundation
import Logging
import Synchronization
import ZeroMQ

// The library client mode: the stepper and the presenter are the project's own StepperClient and PresenterClient, as
// a user's service and UI would use them at their fastest (each step's verdict handed to `emit`'s `onVerdict`, each
// change to `run(onChange:)`'s handler, both on the clients' I/O threads). The phases, the side channel and the
// results are the hand-written mode's (Roles.swift).

/// A client configuration for the benchmark's daemon, logging warnings only.
func libraryConfiguration(control: String, label: String) -> FlowClientConfiguration {
    LoggingSystem.bootstrap { label in
        var handler = StreamLogHandler.standardError(label: label)
        handler.logLevel = .warning
        return handler
    }
    // The clients here never open the events socket; it is named for completeness.
    return FlowClientConfiguration(
        endpoints: FlowdEndpoints(control: control, events: control), logger: Logger(label: label)
    )
}

/// Runs a client until its task is cancelled (once the results are out), which is not a failure.
func runUntilCancelled(_ run: @Sendable () async throws -> Void) async throws {
    do {
        try await run()
    } catch is CancellationError {}
}

/// The stepper's end of the side channel, read on a thread of its own: what the presenter said so far, and a stream
/// that wakes the stepper whenever that changes.
final class SideListener: Sendable {
    struct Counts: Sendable {
        /// Lock-step: commands the presenter saw.
        var go = 0
        /// Throughput: commands the presenter reported.
        var presented = 0
        var done = false
    }

    let wakeUps: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation
    private let counts = Mutex(Counts())

    init(endpoint: String) throws {
        (wakeUps, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        // The wake-ups outlive the thread (a verdict may come after the presenter's last word): they end only when
        // the side channel cannot connect.
        let thread = Thread { [self] in
            guard let context = try? ZMQContext(), let socket = try? ZMQSocket(.pull, context: context),
                (try? socket.connect(endpoint)) != nil
            else {
                note("library stepper: the side channel could not connect")
                continuation.finish()
                return
            }
            defer { socket.close() }
            let poller = ZMQPoller()
            poller.register(socket, for: .pollIn)
            while true {
                _ = try? poller.poll(timeout: .milliseconds(200))
                var finished = false
                while let message = try? socket.tryReceive(), let frame = message.frames.first {
                    counts.withLock { counts in
                        if frame == SideMessage.go {
                            counts.go += 1
                        } else if frame == SideMessage.done {
                            counts.done = true
                            finished = true
                        } else if frame.first == 0x70, let count = Bytes.integer(after: [0x70], in: frame) {
                            counts.presented = max(counts.presented, count)
                        }
                    }
                    continuation.yield()
                }
                if finished { return }
            }
        }
        thread.start()
    }

    var now: Counts { counts.withLock { $0 } }

    /// Wakes the stepper (a verdict came).
    func poke() { continuation.yield() }
}

/// The verdicts the stepper's `onVerdict` got so far, and the first that was not `accepted`.
private final class Verdicts: Sendable {
    private let state = Mutex<(answered: Int, failure: String?)>((0, nil))

    func take(_ result: Result<StepOutcome, any Error>) {
        state.withLock { state in
            state.answered += 1
            switch result {
            case .success(.accepted): break
            case .success(let outcome): state.failure = state.failure ?? "a step was not accepted: \(outcome)"
            case .failure(let error): state.failure = state.failure ?? "a step was refused: \(error)"
            }
        }
    }

    /// How many were answered; throws the first failure.
    func answered() throws -> Int {
        let (answered, failure) = state.withLock { $0 }
        if let failure { throw BenchError(failure) }
        return answered
    }
}

/// The stepper as a user's service: `StepperClient`, its attachment from `events`, steps through
/// `emit(_:for:onVerdict:)`.
func runLibraryStepper(plan: PhasePlan, side sideEndpoint: String) async throws {
    let client = StepperClient(
        name: "bench-stepper", serves: [BenchWire.kind],
        configuration: libraryConfiguration(control: plan.control, label: "flowd-bench.stepper")
    )
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await runUntilCancelled(client.run) }
        var attachment: RemoteAttachment?
        for await event in client.events {
            if case .attached(let attached) = event, attached.session == BenchWire.session,
                attached.kind == BenchWire.kind
            {
                attachment = attached
                break
            }
        }
        guard let attachment else { throw BenchError("the library stepper ended before its ATTACH") }
        let side = try SideListener(endpoint: sideEndpoint)
        var wakeUps = side.wakeUps.makeAsyncIterator()
        emit("READY")
        var result = StepperResult()
        let verdicts = Verdicts()
        var sent = 0

        /// Emits a step; its verdict wakes the stepper when `wakes` says the stepper waits for nothing else.
        func step(_ stamp: UInt64, wakes: @escaping @Sendable () -> Bool = { true }) {
            client.emit(Step(BenchWire.stepName, payload: .int(Int(stamp))), for: attachment) { verdict in
                verdicts.take(verdict)
                if wakes() { side.poke() }
            }
            sent += 1
        }
        /// Waits for the next wake-up (a verdict, or the presenter's word).
        func wait() async throws {
            guard await wakeUps.next() != nil else { throw BenchError("the side channel ended") }
        }

        // Latency: one step at a time; the next once the presenter saw this one's command and its verdict came.
        for _ in 0..<(plan.warmup + plan.samples) {
            let seen = side.now.go
            // The side channel wakes the stepper when the presenter saw the command, the verdict only when that came
            // first (each is counted before the other is looked at: no wake-up is lost), so the task wakes once a step.
            step(monotonicNanoseconds()) { side.now.go > seen }
            while try side.now.go <= seen || verdicts.answered() < sent { try await wait() }
            result.latencySteps += 1
        }
        let before = sent

        // Throughput: at most `window` steps without a verdict, or whose commands the presenter has not seen yet.
        emit("PHASE throughput-start")
        let start = monotonicNanoseconds()
        let end = start + UInt64(plan.seconds * 1e9)
        while monotonicNanoseconds() < end {
            var batch = 0
            while try sent - verdicts.answered() < plan.window, sent - before - side.now.presented < plan.window {
                step(monotonicNanoseconds())
                batch += 1
            }
            if batch == 0 { try await wait() }
        }
        result.throughputSeconds = Double(monotonicNanoseconds() - start) / 1e9
        emit("PHASE throughput-end")
        result.throughputSteps = sent - before
        // The end marker: its verdict (and every other), then the presenter saw it (and so every command before it).
        step(BenchWire.endMarker)
        while try verdicts.answered() < sent || !side.now.done { try await wait() }
        result.accepted = try verdicts.answered()
        emit("RESULT " + (try encodeJSON(result)))
        group.cancelAll()
    }
}
