import FlowCore
import FlowDaemon
import FlowWire
import Foundation
import Testing
import ZeroMQ

/// A client that sends faster than the daemon reads (docs/LIMITS.md, the incoming queue per client and the messages
/// handled per wake-up). The daemon's I/O thread is held inside a flow while one client floods it with `HEARTBEAT`s
/// and another asks for `HEALTH`; then it is let go. Its heartbeat (100 ms) is long due by then.
struct IncomingFloodTests {
    @Test func aFloodOfAHeldDaemonStopsAtTheQueuesLosesNothingAndDoesNotStarveAnotherClient() async throws {
        let atLibzmqs = try await flood(receiveHighWaterMark: nil)
        let atMore = try await flood(receiveHighWaterMark: 20_000)
        for (setting, flood) in [("libzmq's 1000", atLibzmqs), ("20000", atMore)] {
            print(
                "incoming flood, receive_high_water_mark \(setting): \(flood.sent) HEARTBEATs queued before sends "
                    + "blocked; the other client's HEALTH was answered after \(flood.inBeforeOtherHealth) messages, "
                    + "the flooder's after \(flood.inAtTheEnd)")
            // Fair queueing: the other client's HEALTH, queued as the flood began, was among the first messages read.
            #expect(flood.inBeforeOtherHealth < 256)
            // Nothing was lost: the flooder's HEALTH, after its flood, counts every message since the first HEALTH
            // (the held STEP, the other HEALTH, the flood, and itself); none was refused.
            #expect(flood.inAtTheEnd == flood.sent + 3)
            #expect(flood.errorsAdded == 0)
        }
        // The queues hold the flood back: the daemon's for the client (`receive_high_water_mark` messages), the socket
        // buffers (one to a few thousand of these messages, as the kernel counts them by its writes, which vary with
        // the load) and the flooder's own (100).
        #expect(atLibzmqs.sent > 1000)
        #expect(atLibzmqs.sent < 10_000)
        #expect(atMore.sent > 20_000)
    }

    /// A flood of 10000 `HEARTBEAT`s and a `HEALTH`, all queued while the daemon is held, is read 256 messages at a
    /// time with the timers run in between: the daemon's heartbeat, long due, reaches the flooder before the answer to
    /// its `HEALTH` (read whole first, the flood would have the answer come first).
    @Test func theDaemonsTimersRunBetweenBatchesOfAFlood() async throws {
        let flood = try await flood(.queued(10_000), receiveHighWaterMark: 20_000)
        print(
            "a queued flood: \(flood.heartbeatsBeforeFloodersHealth) of the daemon's heartbeats came before the "
                + "answer to the HEALTH after 10000 HEARTBEATs")
        #expect(flood.heartbeatsBeforeFloodersHealth >= 1)
        #expect(flood.inBeforeOtherHealth < 256)
        #expect(flood.inAtTheEnd == flood.sent + 3)
        #expect(flood.errorsAdded == 0)
    }

    private func flood(
        _ kind: HeldDaemonFlood.Kind = .untilItWouldBlock, receiveHighWaterMark: Int32?
    ) async throws -> FloodOutcome {
        let gate = ThreadGate()
        let sockets = ZMQSocketOptions(heartbeat: nil, receiveHighWaterMark: receiveHighWaterMark)
        var daemon = DaemonConfiguration()
        daemon.heartbeatMs = 100
        return try await withIPCTickerDaemon(
            daemon, sockets: sockets, application: GatedTickerApplication(gate: gate)
        ) { endpoints in
            defer { gate.open() }  // a failure must not leave the daemon's thread held: it could not stop
            return try HeldDaemonFlood(kind, endpoints: endpoints, gate: gate).run()
        }
    }
}

/// What ``HeldDaemonFlood/run()`` saw; message counts are `messages_in` from `HEALTH`, less the first `HEALTH`'s.
private struct FloodOutcome: Sendable {
    /// `HEARTBEAT`s the flooder queued before a send would block, the daemon reading nothing.
    var sent = 0
    /// Messages the daemon had read when it answered the other client's `HEALTH`.
    var inBeforeOtherHealth = 0
    /// Messages the daemon had read when it answered the flooder's `HEALTH`, sent after its flood.
    var inAtTheEnd = 0
    /// `errors` added over the run.
    var errorsAdded = 0
    /// The daemon's `HEARTBEAT`s the flooder received after the daemon was let go and before its `HEALTH`'s answer.
    var heartbeatsBeforeFloodersHealth = 0
}

/// One run on one thread: an operator, a stepper serving `ticker` in session `held`, and a flooding client.
private final class HeldDaemonFlood {
    enum Kind {
        /// The flooder sends until its sends block, and its `HEALTH` once the daemon was let go.
        case untilItWouldBlock
        /// The flooder sends this many and its `HEALTH` while the daemon is held; the queues take them all.
        case queued(Int)
    }

    static let session = "held"

    let kind: Kind
    let context: ZMQContext
    let gate: ThreadGate
    let operatorPeer: WirePeer
    let stepper: WirePeer
    let flooder: WirePeer

    init(_ kind: Kind, endpoints: BoundEndpoints, gate: ThreadGate) throws {
        self.kind = kind
        self.gate = gate
        context = try ZMQContext()
        operatorPeer = try WirePeer(context: context, endpoint: endpoints.control)
        stepper = try WirePeer(context: context, endpoint: endpoints.control)
        let queue: Int
        switch kind {
        case .untilItWouldBlock: queue = FloodingPeer.sendHighWaterMark
        case .queued(let count): queue = count + 10
        }
        flooder = try WirePeer(context: context, endpoint: endpoints.control, sendHighWaterMark: Int32(queue))
    }

    func run() throws -> FloodOutcome {
        defer {
            for peer in [operatorPeer, stepper, flooder] { peer.close() }
            context.shutdown()
        }
        _ = try operatorPeer.hello(role: .operator, name: "flood-operator")
        _ = try stepper.hello(role: .stepper, name: "flood-ticker", serves: ["ticker"])
        _ = try flooder.hello(role: .operator, name: "flooder")
        _ = try OperatorCall(operatorPeer).ok { .createSession(SessionRequest(req: $0, session: Self.session)) }
        let attachment = try attachmentInHeldSession()
        let before = try OperatorCall(operatorPeer).counters()

        // The daemon's I/O thread takes the `hold` step and stays in the flow until the gate opens.
        try stepper.send(
            .step(StepMessage(req: stepper.req(), session: Self.session, attachment: attachment, step: Step("hold"))))
        guard gate.waitUntilHeld() else { throw ScenarioFailure("the hold step did not reach the flow in 30 s") }
        let otherHealth = operatorPeer.req()
        try operatorPeer.send(.health(PlainRequest(req: otherHealth)))
        var outcome = FloodOutcome()
        let floodersHealth = flooder.req()
        switch kind {
        case .untilItWouldBlock:
            outcome.sent = try FloodingPeer(flooder).floodUntilItWouldBlock()
        case .queued(let count):
            try FloodingPeer(flooder).flood(count)
            try flooder.send(.health(PlainRequest(req: floodersHealth)))
            outcome.sent = count
            Thread.sleep(forTimeInterval: 0.5)  // libzmq's I/O threads move the flood into the daemon's queue
        }
        while try flooder.tryReceive() != nil {}  // the heartbeats sent before the hold (half a second ago at least)
        gate.open()

        let otherAnswer = try OperatorCall(operatorPeer).reply(to: otherHealth)
        outcome.inBeforeOtherHealth = try HealthCounters(otherAnswer).messagesIn - before.messagesIn
        let verdict = try stepper.receiveReply()
        guard case .ok = verdict else { throw ScenarioFailure("the hold step was refused: \(verdict)") }
        if case .untilItWouldBlock = kind { try flooder.send(.health(PlainRequest(req: floodersHealth))) }
        var answer = try flooder.receive()
        while case .heartbeat = answer {
            outcome.heartbeatsBeforeFloodersHealth += 1
            answer = try flooder.receive()
        }
        guard case .ok(let last) = answer, last.req == floodersHealth else {
            throw ScenarioFailure("expected OK \(floodersHealth), got \(answer)")
        }
        let counters = try HealthCounters(last)
        outcome.inAtTheEnd = counters.messagesIn - before.messagesIn
        outcome.errorsAdded = counters.errors - before.errors
        return outcome
    }

    private func attachmentInHeldSession() throws -> Int {
        while true {
            let message = try stepper.receiveReply()
            if case .attach(let attach) = message, attach.session == Self.session { return attach.attachment }
        }
    }
}

/// A client that sends `HEARTBEAT`s without waiting: libzmq queues them in its own queue (``sendHighWaterMark``),
/// the socket buffers and the daemon's queue for it, until it stops reading the connection.
///
/// Its queue is small: libzmq's sender learns that its queue has room again only each time half of it was taken.
private struct FloodingPeer {
    static let sendHighWaterMark = 100
    /// More than the queues and buffers can hold by far: a flood this long that never blocks fails the run.
    static let attempts = 10_000_000

    let peer: WirePeer

    init(_ peer: WirePeer) { self.peer = peer }

    /// Sends until sends have waited for room twice in a row, a second each (libzmq's I/O threads move what they can
    /// from the flooder's queue on meanwhile, even on a busy machine); returns how many were sent.
    func floodUntilItWouldBlock() throws -> Int {
        let heartbeat = ZMQMessage(WireCodec().encode(ClientMessage.heartbeat(Heartbeat())))
        try peer.socket.setOption(.sendTimeout, to: 1000)
        defer { try? peer.socket.setOption(.sendTimeout, to: 30_000) }
        var sent = 0
        var blocked = 0
        while blocked < 2 {
            do throws(ZMQError) {
                try peer.socket.send(heartbeat)
                sent += 1
                blocked = 0
            } catch {
                guard error.code == .wouldBlock else { throw error }
                blocked += 1
            }
            guard sent < Self.attempts else { throw ScenarioFailure("\(sent) HEARTBEATs queued without blocking") }
        }
        return sent
    }

    /// Sends `count`, waiting for room as it needs to.
    func flood(_ count: Int) throws {
        let heartbeat = ZMQMessage(WireCodec().encode(ClientMessage.heartbeat(Heartbeat())))
        for _ in 0..<count { try peer.socket.send(heartbeat) }
    }
}

/// An operator's requests, each waiting for its `OK`.
private struct OperatorCall {
    let peer: WirePeer

    init(_ peer: WirePeer) { self.peer = peer }

    func ok(_ make: (UInt64) -> ClientMessage) throws -> OKReply {
        let req = peer.req()
        try peer.send(make(req))
        return try reply(to: req)
    }

    /// The reply to request `req`, which must be an `OK`.
    func reply(to req: UInt64) throws -> OKReply {
        let reply = try peer.receiveReply()
        guard case .ok(let ok) = reply, ok.req == req else { throw ScenarioFailure("expected OK \(req), got \(reply)") }
        return ok
    }

    func counters() throws -> HealthCounters {
        try HealthCounters(ok { .health(PlainRequest(req: $0)) })
    }
}

/// The counters of a `HEALTH` reply this test reads.
private struct HealthCounters {
    var messagesIn: Int
    /// Refusals of every code, added up (`errors` counts them by code).
    var errors: Int

    init(_ health: OKReply) throws {
        guard case .object(let counters) = try HealthReport(json: health.result).counters,
            let messagesIn = counters["messages_in"]?.intValue, case .object(let errorsByCode)? = counters["errors"]
        else { throw ScenarioFailure("HEALTH without its counters: \(health)") }
        self.messagesIn = messagesIn
        errors = errorsByCode.values.reduce(0) { $0 + ($1.intValue ?? 0) }
    }
}

/// ``TickerApplication`` whose flow, given a `hold` step, holds the daemon's I/O thread until ``ThreadGate/open()``.
private struct GatedTickerApplication: FlowApplication {
    let gate: ThreadGate
    var stepNames: Set<String>? { ["tick", "hold"] }

    func makeRoot(session: String) -> FlowRoot {
        FlowRoot(flow: GatedTickerFlow(gate: gate), stepper: RemoteStepper(kind: "ticker"))
    }
}

private final class GatedTickerFlow: Flow {
    let root = Screen.stack("app")
    let gate: ThreadGate

    init(gate: ThreadGate) { self.gate = gate }

    func navigate(to step: Step, with navigator: Navigator) -> FlowContributors {
        if step.name == "hold" { gate.pass() }
        return .none
    }
}
