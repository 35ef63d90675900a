import FlowClient
import FlowCore
import FlowWire
import Synchronization
import ZeroMQ

/// What the library presenter's handler keeps between changes, on the client's I/O thread: the side channel's socket
/// (used there only, after the main task bound it) and the figures so far.
private struct PresenterRecord {
    let plan: PhasePlan
    let side: ZMQSocket
    var sawSnapshot = false
    var lastSeq: UInt64 = 0
    var gaps = 0
    var received = 0
    var latencies: [UInt64] = []
    var loaded: [UInt64] = []
    var count = 0
    var firstTime: UInt64 = 0
    var lastTime: UInt64 = 0
    var finished = false
    var failure: (any Error)?

    init(plan: PhasePlan, side: ZMQSocket) {
        self.plan = plan
        self.side = side
        latencies.reserveCapacity(plan.samples)
        loaded.reserveCapacity(1 << 20)
    }

    /// Takes one change at `time`.
    mutating func take(_ change: PresenterChange, at time: UInt64) throws {
        guard sawSnapshot else {
            // The first change is the SYNC's snapshot; the client reports its screens visible right after it.
            sawSnapshot = true
            lastSeq = change.lastSeq
            return
        }
        guard case .commands(let commands) = change.cause else {
            // A snapshot in the middle of the run: the client lost commands and synced again.
            gaps += 1
            lastSeq = change.lastSeq
            return
        }
        for command in commands {
            if command.seq != lastSeq + 1 { gaps += 1 }
            lastSeq = command.seq
            guard case .setStack(_, let screens) = command.command, case .int(let value)? = screens.first?.data else {
                throw BenchError("a COMMAND without the stamp: \(command.command)")
            }
            let stamp = UInt64(value)
            if received < plan.warmup + plan.samples {
                try side.send(ZMQMessage([SideMessage.go]))
                if received >= plan.warmup { latencies.append(time &- stamp) }
                received += 1
            } else if stamp == BenchWire.endMarker {
                finished = true
                try side.send(ZMQMessage([SideMessage.done]))
            } else {
                count += 1
                if count == 1 { firstTime = time }
                lastTime = time
                loaded.append(time &- stamp)
                if count % plan.progressEvery == 0 { try side.send(ZMQMessage([SideMessage.progress(count)])) }
            }
        }
    }

    var result: PresenterResult {
        let seconds = Double(lastTime &- firstTime) / 1e9
        return PresenterResult(
            latency: LatencyStats(nanoseconds: latencies), throughputCommands: count, throughputSeconds: seconds,
            throughputPerSecond: count > 1 && seconds > 0 ? Double(count - 1) / seconds : 0,
            loadedLatency: LatencyStats(nanoseconds: loaded), gaps: gaps
        )
    }
}

/// The record behind its lock, for the handler's closure.
private final class PresenterRecorder: Sendable {
    let record: Mutex<PresenterRecord>

    init(plan: PhasePlan, side: sending ZMQSocket) {
        record = Mutex(PresenterRecord(plan: plan, side: side))
    }
}

/// What the handler tells the main task: the snapshot came (the presenter is ready), the run ended.
private enum PresenterMilestone: Sendable {
    case ready
    case ended
}

/// The presenter as a user's UI: `PresenterClient.run(onChange:)`, every change taken by the handler on the client's
/// I/O thread as its batch is applied (the time a UI would draw it).
func runLibraryPresenter(plan: PhasePlan, side sideEndpoint: String) async throws {
    let client = PresenterClient(
        name: "bench-presenter", session: BenchWire.session,
        configuration: libraryConfiguration(control: plan.control, label: "flowd-bench.presenter")
    )
    let context = try ZMQContext()
    let side = try ZMQSocket(.push, context: context, options: ZMQSocketOptions(linger: .seconds(5)))
    try side.bind(sideEndpoint)
    let endpoint = try side.option(.lastEndpoint)
    let recorder = PresenterRecorder(plan: plan, side: side)
    let (milestones, milestone) = AsyncStream.makeStream(of: PresenterMilestone.self)
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask {
            try await runUntilCancelled {
                try await client.run { change in
                    let time = monotonicNanoseconds()
                    let (first, ended) = recorder.record.withLock { record -> (Bool, Bool) in
                        guard !record.finished, record.failure == nil else { return (false, false) }
                        let first = !record.sawSnapshot
                        do {
                            try record.take(change, at: time)
                        } catch {
                            record.failure = error
                        }
                        return (first, record.finished || record.failure != nil)
                    }
                    if first { milestone.yield(.ready) }
                    if ended { milestone.yield(.ended) }
                }
            }
        }
        var iterator = milestones.makeAsyncIterator()
        guard await iterator.next() == .ready else { throw BenchError("the library presenter ended before its SNAPSHOT") }
        emit("READY " + endpoint)
        guard await iterator.next() == .ended else {
            throw BenchError("the library presenter's changes ended before the end marker")
        }
        let result = try recorder.record.withLock { record -> PresenterResult in
            defer { record.side.close() }
            if let failure = record.failure { throw failure }
            return record.result
        }
        emit("RESULT " + (try encodeJSON(result)))
        group.cancelAll()
    }
}
