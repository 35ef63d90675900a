import FlowClient
import FlowCore
import FlowWire
import Foundation
import Logging
import Synchronization
import ZeroMQ

// The library client mode: the stepper and the presenter are the project's own StepperClient and PresenterClient, as
// a user's service and UI would use them (each step awaited through `emit`, each command taken from `changes()`).
// The phases, the side channel and the results are the hand-written mode's (Roles.swift).

/// A client configuration for the benchmark's daemon, logging warnings only.
private func libraryConfiguration(control: String, label: String) -> FlowClientConfiguration {
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
private func runUntilCancelled(_ run: @Sendable () async throws -> Void) async throws {
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
        let thread = Thread { [self] in
            defer { continuation.finish() }
            guard let context = try? ZMQContext(), let socket = try? ZMQSocket(.pull, context: context),
                (try? socket.connect(endpoint)) != nil
            else {
                note("library stepper: the side channel could not connect")
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
}

/// The stepper as a user's service: `StepperClient`, its attachment from `events`, steps through `emit`.
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

        @Sendable func step(_ stamp: UInt64) async throws {
            let outcome = try await client.emit(Step(BenchWire.stepName, payload: .int(Int(stamp))), for: attachment)
            guard outcome == .accepted else { throw BenchError("a step was not accepted: \(outcome)") }
        }

        // Latency: one step at a time; the next once the presenter saw this one's command (and its verdict came).
        for _ in 0..<(plan.warmup + plan.samples) {
            let seen = side.now.go
            try await step(monotonicNanoseconds())
            result.accepted += 1
            while side.now.go <= seen {
                guard await wakeUps.next() != nil else { throw BenchError("the side channel ended") }
            }
            result.latencySteps += 1
        }

        // Throughput: at most `window` emits awaiting their verdict, or commands not yet seen by the presenter.
        emit("PHASE throughput-start")
        let start = monotonicNanoseconds()
        let end = start + UInt64(plan.seconds * 1e9)
        var sent = 0
        var answered = 0
        try await withThrowingTaskGroup(of: Void.self) { steps in
            while monotonicNanoseconds() < end {
                while sent - answered < plan.window, sent - side.now.presented < plan.window {
                    let stamp = monotonicNanoseconds()
                    steps.addTask { try await step(stamp) }
                    sent += 1
                }
                if sent - answered >= plan.window {
                    try await steps.next()
                    answered += 1
                } else {
                    guard await wakeUps.next() != nil else { throw BenchError("the side channel ended") }
                }
            }
            result.throughputSeconds = Double(monotonicNanoseconds() - start) / 1e9
            emit("PHASE throughput-end")
            while try await steps.next() != nil { answered += 1 }
        }
        result.throughputSteps = sent
        result.accepted += answered
        // The end marker: its verdict, then the presenter saw it (and so every command before it).
        try await step(BenchWire.endMarker)
        result.accepted += 1
        while !side.now.done {
            guard await wakeUps.next() != nil else { break }
        }
        guard side.now.done else { throw BenchError("the side channel ended before the presenter's end") }
        emit("RESULT " + (try encodeJSON(result)))
        group.cancelAll()
    }
}

/// The presenter as a user's UI: `PresenterClient`, every command taken from `changes()` when its batch is applied.
func runLibraryPresenter(plan: PhasePlan, side sideEndpoint: String) async throws {
    let client = PresenterClient(
        name: "bench-presenter", session: BenchWire.session,
        configuration: libraryConfiguration(control: plan.control, label: "flowd-bench.presenter")
    )
    let changes = client.changes()
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await runUntilCancelled(client.run) }
        var iterator = changes.makeAsyncIterator()
        // The first change is the SYNC's snapshot; the client reports its screens visible right after it.
        guard let first = await iterator.next() else { throw BenchError("the library presenter ended before its SNAPSHOT") }
        var lastSeq = first.lastSeq
        let context = try ZMQContext()
        let side = try ZMQSocket(.push, context: context, options: ZMQSocketOptions(linger: .seconds(5)))
        defer { side.close() }
        try side.bind(sideEndpoint)
        emit("READY " + (try side.option(.lastEndpoint)))

        var gaps = 0
        var received = 0
        var latencies: [UInt64] = []
        latencies.reserveCapacity(plan.samples)
        var loaded: [UInt64] = []
        loaded.reserveCapacity(1 << 20)
        var count = 0
        var firstTime: UInt64 = 0
        var lastTime: UInt64 = 0
        var finished = false
        while !finished, let change = await iterator.next() {
            let time = monotonicNanoseconds()
            guard case .commands(let commands) = change.cause else {
                // A snapshot in the middle of the run: the client lost commands and synced again.
                gaps += 1
                lastSeq = change.lastSeq
                continue
            }
            for command in commands {
                if command.seq != lastSeq + 1 { gaps += 1 }
                lastSeq = command.seq
                guard case .setStack(_, let screens) = command.command, case .int(let value)? = screens.first?.data
                else {
                    throw BenchError("a COMMAND without the stamp: \(command.command)")
                }
                let stamp = UInt64(value)
                if received < plan.warmup + plan.samples {
                    try side.send(ZMQMessage([SideMessage.go]))
                    if received >= plan.warmup { latencies.append(time &- stamp) }
                    received += 1
                } else if stamp == BenchWire.endMarker {
                    finished = true
                } else {
                    count += 1
                    if count == 1 { firstTime = time }
                    lastTime = time
                    loaded.append(time &- stamp)
                    if count % 16 == 0 { try side.send(ZMQMessage([SideMessage.progress(count)])) }
                }
            }
        }
        guard finished else { throw BenchError("the library presenter's changes ended before the end marker") }
        try side.send(ZMQMessage([SideMessage.done]))
        let seconds = Double(lastTime &- firstTime) / 1e9
        let result = PresenterResult(
            latency: LatencyStats(nanoseconds: latencies), throughputCommands: count, throughputSeconds: seconds,
            throughputPerSecond: count > 1 && seconds > 0 ? Double(count - 1) / seconds : 0,
            loadedLatency: LatencyStats(nanoseconds: loaded), gaps: gaps
        )
        emit("RESULT " + (try encodeJSON(result)))
        group.cancelAll()
    }
}
