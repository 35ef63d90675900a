import FlowCore
import FlowDaemon
import FlowWire
import Testing
import ZeroMQ

/// A subscriber of the events socket that stops reading (docs/LIMITS.md): when its queue is found full the daemon
/// counts an overflow (`event_queue_overflows` in `HEALTH`); once its connection is full through, it misses every
/// event and nothing more is counted; once it has read, the next overflow is counted. The subscriber that reads gets
/// every event, in order.
///
/// ZMTP heartbeats are off: a subscriber full through reads nothing, so it answers no PING, and would be dropped
/// after the heartbeat timeout (docs/LIMITS.md), which a busy machine reaches within the run. (It may also count more
/// than one overflow as a subscriber stops: libzmq's I/O thread, late, finds the queue full, then moves part of it on
/// to the socket buffers, which makes room again.)
struct EventQueueOverflowTests {
    @Test func aFullSubscriberIsCountedPerOverflowNotPerEventAndTheOneThatReadsGetsEveryEvent() async throws {
        let sockets = ZMQSocketOptions(heartbeat: nil, sendHighWaterMark: 20)
        let watch = try await withIPCTickerDaemon(DaemonConfiguration(), sockets: sockets) { endpoints in
            try TickerWatch(endpoints: endpoints).run()
        }
        print(
            "events: overflows first counted by tick \(watch.ticksUntilOverflow[0]), again by tick "
                + "\(watch.ticksUntilOverflow[1]), \(watch.overflows) after \(watch.ticks) ticks; the stalled "
                + "subscriber got \(watch.stalledReceived), the reader \(watch.readerTicks.count)")
        let overflows = watch.overflows
        #expect(overflows[0] >= 1)
        #expect(overflows[1] > overflows[0], "no overflow counted after the stalled subscriber read")
        #expect(overflows[3] == overflows[2], "a subscriber full through was counted as it missed events")
        // The stalled subscriber missed most of what the reader got: its queue and socket buffers hold a few dozen.
        #expect(watch.stalledReceived < 2 * watch.ticksUntilOverflow[0])
        // From the first event it received on, the reader got `will` and `did` of every tick, in order.
        let first = try #require(watch.readerTicks.first)
        let expected = (first..<first + watch.readerTicks.count / 2).flatMap { [$0, $0] }
        #expect(watch.readerTicks == expected)
        #expect(watch.readerTicks.last == watch.ticks)
    }
}

/// One run on one thread: an operator, a stepper serving `ticker` in session `watched`, a subscriber that reads every
/// event as it comes, and one with `ZMQ_RCVHWM` 1 that reads only once: what is queued for it after the first
/// overflows. Each tick is sent once the last one was answered and its events read, so the reader never falls behind.
private final class TickerWatch {
    struct Outcome: Sendable {
        var ticks = 0
        /// The tick by which `HEALTH` first counted an overflow, and another after the stalled subscriber read.
        var ticksUntilOverflow: [Int] = []
        /// `event_queue_overflows` when the first was counted, when another was after the read, after
        /// ``ticksToFillThrough`` more ticks, and after ``ticksFullThrough`` more again.
        var overflows: [Int] = []
        /// The tick of each event the reader received (`will`, then `did`).
        var readerTicks: [Int] = []
        /// What the stalled subscriber had queued when it read, after the first overflow.
        var stalledReceived = 0
    }

    static let session = "watched"
    /// Ticks after the second overflow that fill the stalled subscriber's connection through (its queue, the socket
    /// buffers and its own queue hold some 80 events, 40 ticks), then ticks while it is full through.
    static let ticksToFillThrough = 100
    static let ticksFullThrough = 50
    /// Bytes of padding in each step, hence in each event: larger events fill the socket buffers sooner.
    static let padding = String(repeating: "p", count: 2048)

    let context: ZMQContext
    let operatorPeer: WirePeer
    let stepper: WirePeer
    let reader: ZMQSocket
    let stalled: ZMQSocket
    let codec = WireCodec()
    var outcome = Outcome()

    init(endpoints: BoundEndpoints) throws {
        context = try ZMQContext()
        operatorPeer = try WirePeer(context: context, endpoint: endpoints.control)
        stepper = try WirePeer(context: context, endpoint: endpoints.control)
        let topic = Array("nav/\(Self.session)".utf8)
        let stalledOptions = ZMQSocketOptions(linger: .zero, heartbeat: nil, receiveHighWaterMark: 1)
        stalled = try ZMQSocket(.sub, context: context, options: stalledOptions)
        try stalled.setOption(.receiveTimeout, to: 2000)
        try stalled.setOption(.subscribe, to: topic)
        try stalled.connect(endpoints.events)
        reader = try ZMQSocket(.sub, context: context, options: ZMQSocketOptions(linger: .zero, heartbeat: nil))
        try reader.setOption(.receiveTimeout, to: 30_000)
        try reader.setOption(.subscribe, to: topic)
        try reader.connect(endpoints.events)
    }

    func run() throws -> Outcome {
        defer {
            for socket in [reader, stalled] { socket.close() }
            for peer in [operatorPeer, stepper] { peer.close() }
            context.shutdown()
        }
        _ = try operatorPeer.hello(role: .operator, name: "events-operator")
        _ = try stepper.hello(role: .stepper, name: "events-ticker", serves: ["ticker"])
        _ = try request { .createSession(SessionRequest(req: $0, session: Self.session)) }
        let attachment = try attachmentInWatchedSession()

        // Until the reader's subscription is in place, events go to nobody; then every tick's two are read in turn.
        while outcome.readerTicks.isEmpty {
            try tick(attachment)
            if let event = try reader.tryReceive() { try record(event) }
            guard outcome.ticks < 1000 else { throw ScenarioFailure("no event reached the reader in 1000 ticks") }
        }
        try tickUntilOverflowsExceed(0, attachment)
        outcome.stalledReceived = readStalled()
        try tickUntilOverflowsExceed(outcome.overflows[0], attachment)
        for ticks in [Self.ticksToFillThrough, Self.ticksFullThrough] {
            for _ in 0..<ticks { try tickAndRead(attachment) }
            outcome.overflows.append(try overflows())
        }
        return outcome
    }

    /// Ticks, 25 at a time, until `HEALTH` counts more than `counted` overflows; records the tick and the count.
    private func tickUntilOverflowsExceed(_ counted: Int, _ attachment: Int) throws {
        while try overflows() <= counted {
            for _ in 0..<25 { try tickAndRead(attachment) }
            guard outcome.ticks < 5000 else { throw ScenarioFailure("no overflow counted past \(counted) by 5000") }
        }
        outcome.ticksUntilOverflow.append(outcome.ticks)
        outcome.overflows.append(try overflows())
    }

    /// Sends the next tick and reads its two events.
    private func tickAndRead(_ attachment: Int) throws {
        try tick(attachment)
        while outcome.readerTicks.last != outcome.ticks || outcome.readerTicks.count % 2 == 1 {
            try record(try reader.receive())
        }
    }

    /// Reads what the stalled subscriber has queued, until nothing comes for two seconds.
    private func readStalled() -> Int {
        var received = 0
        while (try? stalled.receive()) != nil { received += 1 }
        return received
    }

    /// Sends the next `tick` and waits for its verdict.
    private func tick(_ attachment: Int) throws {
        outcome.ticks += 1
        let step = Step("tick", payload: ["n": .int(outcome.ticks), "pad": .string(Self.padding)])
        try stepper.send(
            .step(StepMessage(req: stepper.req(), session: Self.session, attachment: attachment, step: step)))
        let reply = try stepper.receiveReply()
        guard case .ok(let ok) = reply, case .object(let verdict) = ok.result, verdict["accepted"] == .bool(true) else {
            throw ScenarioFailure("tick \(outcome.ticks) not accepted: \(reply)")
        }
    }

    /// Records the tick of an event the reader received, from its first `will` on.
    private func record(_ message: ZMQMessage) throws {
        let event = try codec.decodeEvent(message.frames)
        if outcome.readerTicks.isEmpty, event.event != "will" { return }
        guard case .object(let fields) = event.step.payload, let n = fields["n"]?.intValue else {
            throw ScenarioFailure("an event without its tick: \(event.text)")
        }
        outcome.readerTicks.append(n)
    }

    private func attachmentInWatchedSession() throws -> Int {
        while true {
            let message = try stepper.receiveReply()
            if case .attach(let attach) = message, attach.session == Self.session { return attach.attachment }
        }
    }

    private func overflows() throws -> Int {
        let ok = try request { .health(PlainRequest(req: $0)) }
        guard case .object(let fields) = ok.result, case .object(let counters)? = fields["counters"] else {
            throw ScenarioFailure("HEALTH without counters: \(ok)")
        }
        return counters["event_queue_overflows"]?.intValue ?? 0
    }

    private func request(_ make: (UInt64) -> ClientMessage) throws -> OKReply {
        try operatorPeer.send(make(operatorPeer.req()))
        let reply = try operatorPeer.receiveReply()
        guard case .ok(let ok) = reply else { throw ScenarioFailure("operator request refused: \(reply)") }
        return ok
    }
}
