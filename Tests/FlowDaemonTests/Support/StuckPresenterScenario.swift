import FlowCore
import FlowDaemon
import FlowWire
import Foundation
import Logging
import ZeroMQ

/// One run, on one thread that owns every socket: an operator, a stepper serving `ticker`, a healthy presenter of
/// session `brisk`, and a presenter of session `slow` with `ZMQ_RCVHWM` 1 that stops reading after its first
/// snapshot. The daemon runs without ZMTP heartbeats: a connection full through answers no PING, and libzmq would drop
/// it after the timeout (docs/LIMITS.md), which a busy machine can stretch the stuck phase past.
final class StuckPresenterScenario {
    struct Report: Sendable {
        var failures: [String] = []
        var stepsUntilFirstDrop = 0
        var commandsDroppedWhileStuck = 0
        /// Commands for the slow session while it was stuck that its queue took after all (libzmq's I/O thread went on
        /// moving queued messages into the kernel's socket buffers), received live once it read again.
        var commandsQueuedWhileStuck = 0
        /// Whether a command received live after the queue filled came after a dropped one: then the presenter sees
        /// the gap as soon as it reads again, before any `HEARTBEAT`.
        var liveCommandsSkippedASeq = false
        /// `sends_dropped` by type when the slow presenter reads again, and at the end of the run.
        var sendsDroppedWhileStuck: [String: Int] = [:]
        var sendsDropped: [String: Int] = [:]
        var presentersWhileStuck = 0
        var healthAnsweredWhileStuck = false
        var healthyGaps = 0
        var healthySyncs = 0
        var healthyFirstSeq: UInt64 = 0
        var healthyApplied: [UInt64] = []
        var healthyFinalSeq: UInt64 = 0
        var healthyDaemonSeq: UInt64 = 0
        var stuckFirstSeq: UInt64 = 0
        var stuckApplied: [UInt64] = []
        var stuckFinalSeq: UInt64 = 0
        var stuckDaemonSeq: UInt64 = 0
        var recoveryModes: [String] = []
        var recoveryTriggers: [String] = []
        var duplicatesIgnored = 0
        var finalSyncSaysCaughtUp = false
        var modelMatchesDaemon = false
    }

    /// Steps for each session while the slow presenter's queue is full.
    static let stepsWhileStuck = 200
    /// Bytes of padding in each step, and so in each command: larger messages fill the socket buffers sooner.
    static let padding = String(repeating: "p", count: 2048)
    /// Steps outstanding (sent, not yet answered) at most.
    static let window = 32

    let context: ZMQContext
    let operatorPeer: WirePeer
    let stepper: WirePeer
    let healthy: ModelPresenter
    let stuck: ModelPresenter
    let poller = ZMQPoller()
    var report = Report()
    var replies: [UInt64: DaemonMessage] = [:]
    var attachments: [String: Int] = [:]
    var stepsOutstanding = 0
    var nextTick = 0
    /// Steps for the slow session while its presenter catches up.
    let stepsWhileCatchingUp: Int

    init(endpoint: String, stepsWhileCatchingUp: Int) throws {
        self.stepsWhileCatchingUp = stepsWhileCatchingUp
        context = try ZMQContext()
        operatorPeer = try WirePeer(context: context, endpoint: endpoint)
        stepper = try WirePeer(context: context, endpoint: endpoint)
        healthy = ModelPresenter(session: "brisk", peer: try WirePeer(context: context, endpoint: endpoint))
        stuck = ModelPresenter(
            session: "slow",
            peer: try WirePeer(context: context, endpoint: endpoint, receiveHighWaterMark: 1)
        )
    }

    func run() throws -> Report {
        defer {
            for peer in [operatorPeer, stepper, healthy.peer, stuck.peer] { peer.close() }
            context.shutdown()
        }
        _ = try operatorPeer.hello(role: .operator, name: "limits-operator")
        _ = try stepper.hello(role: .stepper, name: "limits-ticker", serves: ["ticker"])
        _ = try stuck.peer.hello(role: .presenter, name: "slow-presenter")
        _ = try healthy.peer.hello(role: .presenter, name: "brisk-presenter")
        try stuck.start()
        try healthy.start()
        try waitUntil("both presenters synced and the stepper attached to both sessions") {
            !stuck.isSyncing && !healthy.isSyncing && attachments["slow"] != nil && attachments["brisk"] != nil
        }
        report.stuckFirstSeq = stuck.lastSeq
        report.healthyFirstSeq = healthy.lastSeq

        // 1. The slow presenter stops reading; its session's commands pile up until the daemon drops one.
        stuck.reading = false
        while try commandsDropped() == 0 {
            for _ in 0..<25 { try step("slow") }
            report.stepsUntilFirstDrop += 25
            if report.stepsUntilFirstDrop > 20_000 { throw ScenarioFailure("no command dropped after 20000 steps") }
        }

        // 2. Its queue full, steps keep coming for both sessions: the healthy presenter gets all of its commands, the
        // daemon answers HEALTH, and every command for the slow session is dropped and counted (or, where libzmq made
        // room meanwhile, queued).
        let droppedBefore = try commandsDropped()
        let slowSeqBefore = try daemonSeq("slow")
        for _ in 0..<Self.stepsWhileStuck {
            try step("slow")
            try step("brisk")
        }
        let health = try counters()
        report.healthAnsweredWhileStuck = true
        report.commandsDroppedWhileStuck = Self.dropped(health.counters, "COMMAND") - droppedBefore
        let slowSeqAfter = try daemonSeq("slow")
        report.presentersWhileStuck = health.presenters
        let briskSeq = try daemonSeq("brisk")
        try waitUntil("the healthy presenter applied every command") { healthy.lastSeq >= briskSeq }
        // The daemon's next HEARTBEAT to the slow presenter (every second) does not fit either.
        let heartbeatDeadline = ContinuousClock.now + .seconds(60)
        while Self.dropped(try counters().counters, "HEARTBEAT") == 0 {
            guard ContinuousClock.now < heartbeatDeadline else { throw ScenarioFailure("no HEARTBEAT dropped") }
            let pause = ContinuousClock.now + .milliseconds(200)
            try waitUntil("200 ms passed") { ContinuousClock.now >= pause }
        }
        report.sendsDroppedWhileStuck = try counters().counters.sendsDropped

        // 3. The slow presenter reads again (while steps for its session go on a while, or not). It catches up.
        let syncsAnsweredBeforeReading = stuck.syncModes.count
        stuck.reading = true
        for _ in 0..<stepsWhileCatchingUp { try step("slow") }
        try waitUntil("the steps answered") { stepsOutstanding == 0 }
        let slowSeq = try daemonSeq("slow")
        try waitUntil("the slow presenter caught up with seq \(slowSeq)") {
            stuck.lastSeq >= slowSeq && !stuck.isSyncing
        }

        // A SYNC from where it is now finds nothing missing; a SYNC from nothing brings the daemon's UI, which is
        // the one the presenter built.
        let recoveryModes = Array(stuck.syncModes.dropFirst())
        let recoveryTriggers = Array(stuck.syncTriggers.dropFirst())
        let builtModel = stuck.model
        let caughtUpSeq = stuck.lastSeq
        try stuck.syncIfIdle(because: "test")
        try waitUntil("the SYNC from the last seq answered") { !stuck.isSyncing }
        report.finalSyncSaysCaughtUp = stuck.syncModes.last == "replay" && stuck.lastSeq == caughtUpSeq
        stuck.lastSeq = 0
        try stuck.syncIfIdle(because: "test")
        try waitUntil("the SYNC from nothing answered") { !stuck.isSyncing }
        report.modelMatchesDaemon =
            stuck.syncModes.last == "snapshot" && stuck.lastSeq == caughtUpSeq
            && UISnapshot(stuck.model) == UISnapshot(builtModel)

        report.sendsDropped = try counters().counters.sendsDropped
        report.healthyGaps = healthy.gaps
        report.healthySyncs = healthy.syncsSent
        report.healthyApplied = healthy.applied
        report.healthyFinalSeq = healthy.lastSeq
        report.healthyDaemonSeq = try daemonSeq("brisk")
        report.stuckApplied = stuck.applied
        let receivedLive = stuck.received.filter { $0.syncsAnswered == syncsAnsweredBeforeReading }.map(\.seq)
        report.commandsQueuedWhileStuck = Set(receivedLive.filter { $0 > slowSeqBefore && $0 <= slowSeqAfter }).count
        let liveAfterFirstSnapshot = receivedLive.filter { $0 > report.stuckFirstSeq }
        report.liveCommandsSkippedASeq = zip([report.stuckFirstSeq] + liveAfterFirstSnapshot, liveAfterFirstSnapshot)
            .contains { previous, next in next > previous + 1 }
        report.stuckFinalSeq = caughtUpSeq
        report.stuckDaemonSeq = try daemonSeq("slow")
        report.recoveryModes = recoveryModes
        report.recoveryTriggers = recoveryTriggers
        report.duplicatesIgnored = stuck.duplicatesIgnored
        report.failures += healthy.failures + stuck.failures
        return report
    }

    // MARK: Steps and requests

    /// Sends the next `tick` to `session`, first waiting until fewer than ``window`` steps are outstanding.
    func step(_ session: String) throws {
        try waitUntil("a step answered") { stepsOutstanding < Self.window }
        guard let attachment = attachments[session] else { throw ScenarioFailure("no attachment in \(session)") }
        nextTick += 1
        let step = Step("tick", payload: ["n": .int(nextTick), "pad": .string(Self.padding)])
        try stepper.send(.step(StepMessage(req: stepper.req(), session: session, attachment: attachment, step: step)))
        stepsOutstanding += 1
    }

    /// Sends an operator request (once every step is answered, so that the answer counts them) and waits for its
    /// reply.
    func request(_ make: (UInt64) -> ClientMessage) throws -> OKReply {
        try waitUntil("the steps answered") { stepsOutstanding == 0 }
        let req = operatorPeer.req()
        try operatorPeer.send(make(req))
        try waitUntil("the operator's reply to \(req)") { replies[req] != nil }
        guard case .ok(let ok) = replies.removeValue(forKey: req)! else {
            throw ScenarioFailure("operator request \(req) refused")
        }
        return ok
    }

    /// `HEALTH`'s counters and how many presenters are connected.
    func counters() throws -> (counters: DaemonCountersView, presenters: Int) {
        let ok = try request { .health(PlainRequest(req: $0)) }
        guard case .object(let fields) = ok.result, case .object(let counters)? = fields["counters"],
            case .object(let peers)? = fields["peers"], let presenters = peers["presenter"]?.intValue
        else {
            throw ScenarioFailure("HEALTH without counters: \(ok)")
        }
        return (DaemonCountersView(counters), presenters)
    }

    func commandsDropped() throws -> Int { Self.dropped(try counters().counters, "COMMAND") }

    static func dropped(_ counters: DaemonCountersView, _ type: String) -> Int { counters.sendsDropped[type] ?? 0 }

    /// The daemon's latest `seq` in `session` (`SESSIONS`).
    func daemonSeq(_ session: String) throws -> UInt64 {
        let ok = try request { .sessions(SessionsRequest(req: $0)) }
        guard case .object(let fields) = ok.result, case .array(let sessions)? = fields["sessions"],
            let entry = sessions.first(where: {
                if case .object(let fields) = $0 { return fields["id"]?.stringValue == session }
                return false
            }),
            case .object(let entryFields) = entry, let seq = entryFields["seq"]?.intValue
        else {
            throw ScenarioFailure("SESSIONS without \(session): \(ok)")
        }
        return UInt64(seq)
    }

    // MARK: The loop

    /// Reads every peer (the slow presenter only while it reads) until `condition` holds; gives up after 60 s.
    func waitUntil(_ what: String, _ condition: () -> Bool) throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw ScenarioFailure("timed out waiting until \(what)") }
            try pump()
        }
    }

    /// Waits up to 50 ms for messages and handles all that are there.
    func pump() throws {
        poller.removeAll()
        var peers = [operatorPeer, stepper, healthy.peer]
        if stuck.reading { peers.append(stuck.peer) }
        for peer in peers { _ = poller.register(peer.socket, for: .pollIn) }
        let ready = try poller.poll(timeout: .milliseconds(50))
        for (index, peer) in peers.enumerated() where ready[index].contains(.pollIn) {
            while let message = try peer.tryReceive() {
                if peer === operatorPeer {
                    handleOperator(message)
                } else if peer === stepper {
                    handleStepper(message)
                } else if peer === healthy.peer {
                    try healthy.handle(message)
                } else {
                    try stuck.handle(message)
                }
            }
        }
        // A SYNC whose answer is overdue is sent again.
        if stuck.reading, stuck.isSyncing { try stuck.syncIfIdle(because: "unanswered") }
    }

    func handleOperator(_ message: DaemonMessage) {
        switch message {
        case .heartbeat: break
        case .ok(let ok): replies[ok.req] = message
        case .error(let error) where error.req != nil: replies[error.req!] = message
        default: report.failures.append("operator: unexpected \(message)")
        }
    }

    func handleStepper(_ message: DaemonMessage) {
        switch message {
        case .heartbeat: break
        case .attach(let attach): attachments[attach.session] = attach.attachment
        case .ok(let ok):
            stepsOutstanding -= 1
            if case .object(let fields) = ok.result, fields["accepted"] != .bool(true) {
                report.failures.append("step \(ok.req) not accepted: \(ok.result)")
            }
        default: report.failures.append("stepper: unexpected \(message)")
        }
    }
}

/// The counters of a `HEALTH` reply that the scenario reads.
struct DaemonCountersView: Sendable {
    var sendsDropped: [String: Int] = [:]

    init(_ counters: [String: JSONValue]) {
        if case .object(let dropped)? = counters["sends_dropped"] {
            sendsDropped = dropped.compactMapValues(\.intValue)
        }
    }
}
