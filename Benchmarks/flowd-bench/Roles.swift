#if canImport(Glibc)
import Glibc
#endif
import FlowCore
import FlowWire
import ZeroMQ

// MARK: - Side channel (presenter PUSH → stepper PULL)

/// The presenter's messages to the stepper on the side channel.
enum SideMessage {
    /// Lock-step: the command of the last step arrived.
    static let go: [UInt8] = Array("g".utf8)
    /// Throughput: the end marker arrived, every command before it too.
    static let done: [UInt8] = Array("d".utf8)

    /// Throughput: `count` commands arrived so far.
    static func progress(_ count: Int) -> [UInt8] {
        var bytes: [UInt8] = [0x70]  // "p"
        Bytes.appendDecimal(UInt64(count), to: &bytes)
        return bytes
    }
}

/// The options both clients share: what to connect to and how long each phase runs.
struct PhasePlan: Sendable {
    var system: BenchSystem
    var control: String
    var warmup: Int
    var samples: Int
    var seconds: Double
    var window: Int
    /// How many commands the presenter counts between two progress reports to the stepper: at most half the window,
    /// so that a stepper waiting for room in a small window hears of it.
    var progressEvery: Int { max(1, min(16, window / 2)) }
    /// Screens under the benchmark's own (flowd's `--ui-screens`): the screen is then on `bench.deck`.
    var uiScreens = 0
    /// Seconds of the paced phase (steps at half the throughput phase's rate); 0: none. Hand-written clients only.
    var pacedSeconds = 0.0
    /// The file the presenter writes each paced step's arrival and latency to (nanoseconds); `nil`: none.
    var pacedTrace: String?
}

// MARK: - Stepper

/// What the stepper saw.
struct StepperResult: Codable, Sendable {
    var latencySteps = 0
    var throughputSteps = 0
    var accepted = 0
    var rejected = 0
    var errors = 0
    var throughputSeconds = 0.0
    /// The paced phase: steps sent, and at what rate (half the throughput phase's).
    var pacedSteps: Int?
    var pacedRate: Double?
    /// Paced steps that left more than 2 ms after their time (the rate was not held).
    var pacedLate: Int?
}

/// The stepper process: `HELLO`, waits for its attachment, then sends `STEP`s lock-step (latency) and flat out within a
/// window (throughput).
func runStepper(plan: PhasePlan, side sideEndpoint: String) throws {
    try BenchWire.checkEncodings()
    let client = try BenchClient(system: plan.system, endpoint: plan.control)
    defer { client.close() }
    try client.hello(role: .stepper, name: "bench-stepper", serves: [BenchWire.kind])
    var attachment = 1
    if plan.system == .flowd {
        attachment = try client.awaitDecoded(what: "ATTACH of the default session") { message in
            if case .attach(let body) = message, body.session == BenchWire.session, body.kind == BenchWire.kind {
                return body.attachment
            }
            return nil
        }
    }
    let side = try ZMQSocket(.pull, context: client.context)
    defer { side.close() }
    try side.connect(sideEndpoint)
    emit("READY")

    let poller = ZMQPoller()
    poller.register(client.dealer, for: .pollIn)
    poller.register(side, for: .pollIn)
    var result = StepperResult()
    var replies = 0

    /// Reads every queued reply; returns how many were `OK` or `ERROR` (answers to steps).
    func drainReplies() throws {
        while let message = try client.dealer.tryReceive() {
            guard message.count == 3 else { continue }
            let type = message.frames[1]
            if type == BenchWire.okType {
                replies += 1
                if Bytes.contains(BenchWire.accepted, in: message.frames[2]) {
                    result.accepted += 1
                } else {
                    result.rejected += 1
                    throw BenchError("a step was not accepted: \(String(decoding: message.frames[2], as: UTF8.self))")
                }
            } else if type == BenchWire.errorType {
                replies += 1
                result.errors += 1
                throw BenchError("a step was refused: \(String(decoding: message.frames[2], as: UTF8.self))")
            }
        }
    }

    func sendStep(stamp: UInt64) throws {
        let body = BenchWire.stepBody(attachment: attachment, req: client.makeReq(), stamp: stamp)
        try client.send(type: BenchWire.stepType, body: body)
    }

    // Latency: one step at a time; the next leaves once its command reached the presenter and its OK came back.
    for _ in 0..<(plan.warmup + plan.samples) {
        let expected = replies + 1
        try sendStep(stamp: monotonicNanoseconds())
        var arrived = false
        while !arrived || replies < expected {
            _ = try poller.poll(timeout: .milliseconds(200))
            try drainReplies()
            while let message = try side.tryReceive() {
                if message.frames.first == SideMessage.go { arrived = true }
            }
            try client.heartbeatIfDue(now: monotonicNanoseconds())
        }
        result.latencySteps += 1
    }

    // Throughput: flat out, with at most `window` steps unanswered (no OK yet) or not yet at the presenter.
    let repliesBefore = replies
    var sent = 0
    var presented = 0
    emit("PHASE throughput-start")
    let start = monotonicNanoseconds()
    let end = start + UInt64(plan.seconds * 1e9)
    while true {
        let now = monotonicNanoseconds()
        if now >= end { break }
        try drainReplies()
        while let message = try side.tryReceive() {
            if let frame = message.frames.first, frame.first == 0x70 {
                presented = Bytes.integer(after: [0x70], in: frame) ?? presented
            }
        }
        var batch = 0
        while batch < 32, sent - (replies - repliesBefore) < plan.window, sent - presented < plan.window {
            try sendStep(stamp: monotonicNanoseconds())
            sent += 1
            batch += 1
        }
        if batch == 0 { _ = try poller.poll(timeout: .milliseconds(50)) }
    }
    result.throughputSeconds = Double(monotonicNanoseconds() - start) / 1e9
    emit("PHASE throughput-end")
    result.throughputSteps = sent
    // The end marker: wait until the presenter saw it (and so everything before it) and every step was answered.
    try sendStep(stamp: BenchWire.endMarker)
    var done = false
    let deadline = monotonicNanoseconds() + 60_000_000_000
    while !done || replies - repliesBefore < sent + 1 {
        guard monotonicNanoseconds() < deadline else { throw BenchError("the throughput phase did not drain") }
        _ = try poller.poll(timeout: .milliseconds(200))
        try drainReplies()
        while let message = try side.tryReceive() {
            if message.frames.first == SideMessage.done { done = true }
        }
        try client.heartbeatIfDue(now: monotonicNanoseconds())
    }

    // Paced: steps at half the rate just measured, for the latency under a load the server can take; then the end
    // marker again. Every millisecond the stepper sends the steps due by then (waking once a step would cost the
    // stepper more CPU than the server's share), within the window (a relay drops beyond the presenter's queue);
    // a step that leaves more than 2 ms after its time is counted late: the rate was not held.
    if plan.pacedSeconds > 0, result.throughputSeconds > 0, sent > 0 {
        let rate = 0.5 * Double(sent) / result.throughputSeconds
        let interval = 1e9 / rate
        let tick: UInt64 = 1_000_000
        emit("PHASE paced-start")
        let pacedReplies = replies
        let pacedStart = monotonicNanoseconds()
        let pacedEnd = pacedStart + UInt64(plan.pacedSeconds * 1e9)
        var paced = 0
        var pacedPresented = 0
        var late = 0
        while true {
            let now = monotonicNanoseconds()
            guard now < pacedEnd else { break }
            let due = Int(Double(now - pacedStart) / interval) + 1
            while paced < due, paced - (replies - pacedReplies) < plan.window, paced - pacedPresented < plan.window {
                let time = monotonicNanoseconds()
                if time > pacedStart + UInt64(Double(paced) * interval) + 2 * tick { late += 1 }
                try sendStep(stamp: time)
                paced += 1
            }
            try drainReplies()
            while let message = try side.tryReceive() {
                if let frame = message.frames.first, frame.first == 0x70 {
                    pacedPresented = Bytes.integer(after: [0x70], in: frame) ?? pacedPresented
                }
            }
            let elapsed = (monotonicNanoseconds() - pacedStart) % tick
            usleep(UInt32((tick - elapsed) / 1000))
        }
        try sendStep(stamp: BenchWire.endMarker)
        done = false
        let pacedDeadline = monotonicNanoseconds() + 60_000_000_000
        while !done || replies - pacedReplies < paced + 1 {
            guard monotonicNanoseconds() < pacedDeadline else { throw BenchError("the paced phase did not drain") }
            _ = try poller.poll(timeout: .milliseconds(200))
            try drainReplies()
            while let message = try side.tryReceive() {
                if message.frames.first == SideMessage.done { done = true }
            }
            try client.heartbeatIfDue(now: monotonicNanoseconds())
        }
        result.pacedSteps = paced
        result.pacedRate = rate
        result.pacedLate = late
    }
    emit("RESULT " + (try encodeJSON(result)))
}

// MARK: - Presenter

/// What the presenter measured.
struct PresenterResult: Codable, Sendable {
    /// Lock-step latency, stepper's send → presenter's receive, in nanoseconds.
    var latency: LatencyStats
    /// Commands received in the throughput phase (end marker excluded).
    var throughputCommands: Int
    /// First to last of those commands, in seconds.
    var throughputSeconds: Double
    /// Commands per second.
    var throughputPerSecond: Double
    /// Send → receive latency under that load (pure queueing: not a latency figure).
    var loadedLatency: LatencyStats
    /// The paced phase's commands and their send → receive latency (nil without a paced phase).
    var pacedCommands: Int?
    var pacedLatency: LatencyStats?
    /// Commands whose number (flowd's `seq`, a relay's forwarded `req`) was not the previous one plus one (should be 0).
    var gaps: Int
}

/// The presenter process: `HELLO`, `SYNC`, reports its screens visible, then receives `COMMAND`s and `ACK`s each.
func runPresenter(plan: PhasePlan, side sideEndpoint: String) throws {
    try BenchWire.checkEncodings()
    let client = try BenchClient(system: plan.system, endpoint: plan.control)
    defer { client.close() }
    try client.hello(role: .presenter, name: "bench-presenter")
    var lastSeq: UInt64 = 0
    if plan.system == .flowd {
        let syncReq = client.makeReq()
        try client.send(.sync(Sync(req: syncReq, session: BenchWire.session, lastSeq: 0)))
        // Only the SNAPSHOT's `seq` is needed, read from its bytes (keys sorted: the first `"seq":` is the body's own).
        // Decoding a deep UI's snapshot (3 MB at 16 000 screens) took seconds at load 20 without a heartbeat, and
        // flowd counted the presenter dead before its REPORT.
        let snapshot = try client.awaitMessage(what: "SNAPSHOT") { frames in
            frames[1] == BenchWire.snapshotType && Bytes.contains(BenchWire.sessionField, in: frames[2])
        }
        guard let seq = Bytes.integer(after: BenchWire.seqKey, in: snapshot[2]) else {
            throw BenchError("a SNAPSHOT without its seq")
        }
        lastSeq = UInt64(seq)
        let reportReq = client.makeReq()
        try client.send(
            .report(
                Report(
                    req: reportReq, session: BenchWire.session,
                    reports: (plan.uiScreens > 0 ? [BenchFlow.stackID, BenchFlow.deckID, BenchFlow.screenID]
                        : [BenchFlow.stackID, BenchFlow.screenID]).map {
                            PresentableReport(presentable: $0.rawValue, state: .visible)
                        }
                )
            )
        )
        _ = try client.awaitDecoded(what: "OK to REPORT") { message in
            if case .ok(let body) = message, body.req == reportReq { return true }
            return nil
        }
    }
    let side = try ZMQSocket(.push, context: client.context, options: ZMQSocketOptions(linger: .seconds(5)))
    defer { side.close() }
    try side.bind(sideEndpoint)
    emit("READY " + (try side.option(.lastEndpoint)))

    let poller = ZMQPoller()
    poller.register(client.dealer, for: .pollIn)
    let stampKey = plan.system == .flowd ? BenchWire.dataKey : BenchWire.payloadKey
    var gaps = 0
    var numbered = false

    /// Reads one command's stamp and acknowledges the command; `nil` for other messages.
    func command(_ message: ZMQMessage) throws -> UInt64? {
        guard message.count == 3, message.frames[1] == BenchWire.commandType else { return nil }
        let body = message.frames[2]
        guard let stamp = Bytes.integer(after: stampKey, in: body) else {
            throw BenchError("a COMMAND without the stamp: \(String(decoding: body, as: UTF8.self))")
        }
        // flowd numbers its commands (`seq`); a relay forwards the step's body, numbered by the stepper's `req`.
        let orderKey = plan.system == .flowd ? BenchWire.seqKey : BenchWire.reqKey
        guard let read = Bytes.integer(after: orderKey, in: body) else {
            throw BenchError("a COMMAND without its number: \(String(decoding: body, as: UTF8.self))")
        }
        let seq = UInt64(read)
        if seq != lastSeq + 1, plan.system == .flowd || numbered { gaps += 1 }
        numbered = true
        lastSeq = seq
        try client.send(type: BenchWire.ackType, body: BenchWire.ackBody(seq: seq))
        return UInt64(stamp)
    }

    // Latency.
    var latencies: [UInt64] = []
    latencies.reserveCapacity(plan.samples)
    var received = 0
    while received < plan.warmup + plan.samples {
        _ = try poller.poll(timeout: .milliseconds(200))
        while let message = try client.dealer.tryReceive() {
            let time = monotonicNanoseconds()
            guard let stamp = try command(message) else { continue }
            try side.send(ZMQMessage([SideMessage.go]))
            if received >= plan.warmup { latencies.append(time &- stamp) }
            received += 1
        }
        try client.heartbeatIfDue(now: monotonicNanoseconds())
    }

    // Throughput.
    var count = 0
    var first: UInt64 = 0
    var last: UInt64 = 0
    var loaded: [UInt64] = []
    loaded.reserveCapacity(1 << 20)
    var finished = false
    while !finished {
        _ = try poller.poll(timeout: .milliseconds(200))
        while let message = try client.dealer.tryReceive() {
            let time = monotonicNanoseconds()
            guard let stamp = try command(message) else { continue }
            if stamp == BenchWire.endMarker {
                finished = true
                break
            }
            count += 1
            if count == 1 { first = time }
            last = time
            loaded.append(time &- stamp)
            if count % plan.progressEvery == 0 { try side.send(ZMQMessage([SideMessage.progress(count)])) }
        }
        try client.heartbeatIfDue(now: monotonicNanoseconds())
    }
    try side.send(ZMQMessage([SideMessage.done]))
    let seconds = Double(last &- first) / 1e9
    var result = PresenterResult(
        latency: LatencyStats(nanoseconds: latencies), throughputCommands: count, throughputSeconds: seconds,
        throughputPerSecond: count > 1 && seconds > 0 ? Double(count - 1) / seconds : 0,
        loadedLatency: LatencyStats(nanoseconds: loaded), gaps: gaps
    )
    if plan.pacedSeconds > 0 {
        var paced: [UInt64] = []
        var arrivals: [UInt64] = []
        finished = false
        while !finished {
            _ = try poller.poll(timeout: .milliseconds(200))
            while let message = try client.dealer.tryReceive() {
                let time = monotonicNanoseconds()
                guard let stamp = try command(message) else { continue }
                if stamp == BenchWire.endMarker {
                    finished = true
                    break
                }
                paced.append(time &- stamp)
                if plan.pacedTrace != nil { arrivals.append(time) }
                if paced.count % plan.progressEvery == 0 { try side.send(ZMQMessage([SideMessage.progress(paced.count)])) }
            }
            try client.heartbeatIfDue(now: monotonicNanoseconds())
        }
        try side.send(ZMQMessage([SideMessage.done]))
        result.pacedCommands = paced.count
        if let path = plan.pacedTrace { try writeTrace(arrivals: arrivals, latencies: paced, to: path) }
        result.pacedLatency = LatencyStats(nanoseconds: paced)
        result.gaps = gaps
    }
    emit("RESULT " + (try encodeJSON(result)))
}

// MARK: - Raw relay

/// The raw ZeroMQ relay: a ROUTER that forwards each stepper message to the presenter as a message of the size
/// flowd's `COMMAND` has, and answers the stepper with a message of the size of flowd's `OK`; what the presenter
/// sends (its acknowledgements) is read and dropped. No decoding, no flow logic: peers are told apart by routing id.
func runRelay(control: String, commandExtra: Int, okBytes: Int) throws {
    let context = try ZMQContext()
    let router = try ZMQSocket(.router, context: context)
    defer { router.close() }
    try router.bind(control)
    emit("READY " + (try router.option(.lastEndpoint)))

    let padding = [UInt8](repeating: 0x20, count: max(0, commandExtra))  // JSON whitespace: the body stays JSON
    var okBody = Array("{\"req\":0,\"result\":{\"accepted\":true}}".utf8)
    if okBody.count < okBytes { okBody.append(contentsOf: [UInt8](repeating: 0x20, count: okBytes - okBody.count)) }
    let presenterWord = Array("\"presenter\"".utf8)
    var stepperID: [UInt8]?
    var presenterID: [UInt8]?
    var dropped = 0

    let poller = ZMQPoller()
    let index = poller.register(router, for: .pollIn)
    while true {
        let ready = try poller.poll(timeout: .seconds(1))
        guard ready[index].contains(.pollIn) else { continue }
        for _ in 0..<256 {
            guard let message = try router.tryReceive() else { break }
            guard message.count == 4 else { continue }
            let id = message.frames[0]
            if id == stepperID {
                if let presenterID {
                    var body = message.frames[3]
                    body.append(contentsOf: padding)
                    if try !router.trySend(ZMQMessage([presenterID, message.frames[1], BenchWire.commandType, body])) {
                        dropped += 1
                    }
                }
                _ = try router.trySend(ZMQMessage([id, message.frames[1], BenchWire.okType, okBody]))
            } else if id == presenterID {
                continue
            } else {
                // A HELLO: the only message the relay looks into.
                if Bytes.contains(presenterWord, in: message.frames[3]) { presenterID = id } else { stepperID = id }
                _ = try router.trySend(ZMQMessage([id, message.frames[1], BenchWire.welcomeType, Array("{}".utf8)]))
            }
        }
        if dropped > 0 {
            note("relay: \(dropped) messages dropped at the presenter's high-water mark")
            dropped = 0
        }
    }
}
