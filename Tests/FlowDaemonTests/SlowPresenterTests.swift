import FlowCore
import FlowDaemon
import FlowWire
import Foundation
import Logging
import Testing
import ZeroMQ

/// The limits of docs/LIMITS.md on a live `DaemonServer` (its own I/O thread, ZeroMQ over `ipc://` in a temporary
/// folder), with raw DEALERs as its clients, all driven from one test thread:
///
/// - a presenter that stops reading fills its queue on the control ROUTER (`ZMQ_SNDHWM`, libzmq's 1000 messages):
///   the daemon drops what does not fit and counts it (`sends_dropped` by type), while another presenter gets every
///   command of its session in order, the stepper every reply and the operator every `HEALTH`; when the slow
///   presenter reads again, the daemon's `HEARTBEAT` (or the gap) makes it `SYNC`, and the replay (or, past
///   `outbox_limit`, the snapshot) brings it to the daemon's `seq`, each command applied once;
/// - a body of exactly `max_body_bytes` is served, one byte more is `ERROR messageTooLarge`, and the daemon goes on.
struct SlowPresenterTests {
    /// How the presenter that fell behind catches up.
    struct Recovery: Sendable, CustomTestStringConvertible {
        /// `outbox_limit`: whether the outbox still holds what the presenter missed (`replay`), or not (`snapshot`).
        var outboxLimit: Int
        /// Steps for the slow session while its presenter reads again: none, and only the daemon's `HEARTBEAT`
        /// tells it that it missed commands; some, and the first one after the gap may tell it first.
        var stepsWhileCatchingUp: Int
        var expectedMode: String
        /// `sockets.send_high_water_mark`; libzmq's 1000 when `nil`.
        var sendHighWaterMark: Int32? = nil
        var testDescription: String {
            "outbox_limit \(outboxLimit), \(stepsWhileCatchingUp) steps while catching up, SNDHWM "
                + "\(sendHighWaterMark.map(String.init) ?? "1000"): \(expectedMode)"
        }
    }

    static let recoveries = [
        Recovery(outboxLimit: 1024, stepsWhileCatchingUp: 0, expectedMode: "replay"),
        Recovery(outboxLimit: 64, stepsWhileCatchingUp: 0, expectedMode: "snapshot"),
        Recovery(outboxLimit: 1024, stepsWhileCatchingUp: 50, expectedMode: "replay"),
        Recovery(outboxLimit: 1024, stepsWhileCatchingUp: 0, expectedMode: "replay", sendHighWaterMark: 100),
    ]

    @Test(arguments: recoveries)
    func aStuckPresenterCannotStallTheDaemonOrOtherPresentersAndCatchesUpLater(_ recovery: Recovery) async throws {
        var daemon = DaemonConfiguration()
        daemon.outboxLimit = recovery.outboxLimit
        let sockets = ZMQSocketOptions(sendHighWaterMark: recovery.sendHighWaterMark)
        let report = try await withLiveDaemon(daemon, sockets: sockets) { endpoint in
            let scenario = try StuckPresenterScenario(
                endpoint: endpoint, stepsWhileCatchingUp: recovery.stepsWhileCatchingUp
            )
            return try scenario.run()
        }
        print(
            "stuck presenter (\(recovery.testDescription)): first drop within \(report.stepsUntilFirstDrop) commands, "
                + "sends_dropped \(report.sendsDropped), recovery syncs \(report.recoveryModes) on "
                + "\(report.recoveryTriggers), "
                + "duplicates ignored \(report.duplicatesIgnored), converged at seq \(report.stuckFinalSeq)"
        )
        #expect(report.failures == [], "\(report.failures.joined(separator: "\n"))")
        if recovery.sendHighWaterMark != nil {
            // A smaller queue fills sooner (the socket buffers take a few dozen of these messages more).
            #expect(report.stepsUntilFirstDrop <= 500)
        }

        // While the slow presenter's queue was full, each of its session's commands was dropped and counted, and so
        // were its heartbeats; it stayed connected.
        #expect(report.commandsDroppedWhileStuck == StuckPresenterScenario.stepsWhileStuck)
        #expect((report.sendsDropped["HEARTBEAT"] ?? 0) >= 1)
        #expect(Set(report.sendsDropped.keys).isSubset(of: ["COMMAND", "HEARTBEAT"]))
        #expect(report.presentersWhileStuck == 2)
        #expect(report.healthAnsweredWhileStuck)

        // The other presenter got every command of its session, in order, without a gap or a second SYNC.
        #expect(report.healthyGaps == 0)
        #expect(report.healthySyncs == 1)
        #expect(report.healthyApplied == Array((report.healthyFirstSeq + 1)...report.healthyFinalSeq))
        #expect(report.healthyFinalSeq == report.healthyDaemonSeq)
        #expect(report.healthyFinalSeq >= report.healthyFirstSeq + UInt64(StuckPresenterScenario.stepsWhileStuck))

        // The slow one caught up: the daemon's seq, each command applied once, the same UI as the daemon's.
        if recovery.stepsWhileCatchingUp == 0 {
            // Nothing came after the gap: the heartbeat's seq is what told it. (A replay larger than the room left in
            // the queue loses commands in turn: then gaps and further heartbeats make it SYNC again.)
            #expect(report.recoveryTriggers.first == "heartbeat", "\(report.recoveryTriggers)")
        }
        #expect(report.stuckFinalSeq == report.stuckDaemonSeq)
        #expect(Set(report.stuckApplied).count == report.stuckApplied.count, "no command applied twice")
        #expect(report.recoveryModes.first == recovery.expectedMode, "\(report.recoveryModes)")
        if recovery.expectedMode == "replay" {
            // Nothing skipped: every command from its first snapshot on was applied, in order.
            #expect(report.stuckApplied == Array((report.stuckFirstSeq + 1)...report.stuckFinalSeq))
        }
        #expect(report.finalSyncSaysCaughtUp)
        #expect(report.modelMatchesDaemon)
    }

    @Test func aBodyOfMaxBodyBytesIsServedAndOneByteMoreIsTooLarge() async throws {
        var daemon = DaemonConfiguration()
        daemon.maxBodyBytes = 4096
        let failures = try await withLiveDaemon(daemon) { endpoint in
            let context = try ZMQContext()
            defer { context.shutdown() }
            let peer = try WirePeer(context: context, endpoint: endpoint)
            defer { peer.close() }
            _ = try peer.hello(role: .operator, name: "limits-operator")
            var failures: [String] = []
            for (req, size) in [(UInt64(11), 4096), (12, 4097), (13, 4096)] {
                // `{"req":11,"pad":"xxx…"}` of exactly `size` bytes.
                let prefix = #"{"req":\#(req),"pad":""#
                let body = prefix + String(repeating: "x", count: size - prefix.utf8.count - 2) + #""}"#
                try peer.send(frames: [Array("FLOWD1".utf8), Array("HEALTH".utf8), Array(body.utf8)])
                let reply = try peer.receiveReply()
                switch (size, reply) {
                case (4096, .ok(let ok)) where ok.req == req: break
                case (4097, .error(let error))
                where error.code == .messageTooLarge && error.req == req && error.type == "HEALTH":
                    break
                default: failures.append("a body of \(size) bytes got \(reply)")
                }
            }
            try peer.send(.health(PlainRequest(req: 14)))
            guard case .ok(let health) = try peer.receiveReply(), health.req == 14,
                case .object(let fields) = health.result, case .object(let counters)? = fields["counters"],
                case .object(let errors)? = counters["errors"]
            else {
                return failures + ["no HEALTH after the refusal"]
            }
            if errors != ["messageTooLarge": .int(1)] { failures.append("errors counted: \(errors)") }
            return failures
        }
        #expect(failures == [])
    }
}

extension SlowPresenterTests {
    @Test func theHighWaterMarksAreLibzmqsUnlessTheConfigFileSetsThem() throws {
        let environment = ["FLOWD_RUNTIME_DIR": "/tmp/flowd-limits-test"]
        let defaults = try FlowdOptions.parse([]).settings(environment: environment).server.socketOptions
        #expect(defaults.sendHighWaterMark == nil && defaults.receiveHighWaterMark == nil)

        let path = FileManager.default.temporaryDirectory.appendingPathComponent("flowd-limits-\(getpid()).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let config = #"{"sockets": {"send_high_water_mark": 200, "receive_high_water_mark": 50}}"#
        _ = FileManager.default.createFile(atPath: path, contents: Data(config.utf8))
        let options = try FlowdOptions.parse(["--config", path]).settings(environment: environment).server.socketOptions
        #expect(options.sendHighWaterMark == 200)
        #expect(options.receiveHighWaterMark == 50)

        let negative = #"{"sockets": {"send_high_water_mark": -1}}"#
        _ = FileManager.default.createFile(atPath: path, contents: Data(negative.utf8))
        #expect(throws: FlowdConfigError.self) {
            try FlowdOptions.parse(["--config", path]).settings(environment: environment)
        }
    }
}

// MARK: - The application

/// Sessions whose root flow has a remote flow stepper of kind `ticker` (steps from a flow stepper are taken whether
/// or not anything is visible, so a presenter that never reports does not stop them); each `tick` step replaces the
/// stack's only screen, whose data is the step's payload. The UI stays one screen however many commands go by.
struct TickerApplication: FlowApplication {
    var stepNames: Set<String>? { ["tick"] }

    func makeRoot(session: String) -> FlowRoot {
        FlowRoot(flow: TickerFlow(), stepper: RemoteStepper(kind: "ticker"))
    }
}

final class TickerFlow: Flow {
    let root = Screen.stack("app")

    func navigate(to step: Step, with navigator: Navigator) -> FlowContributors {
        guard step.name == "tick", case .object(let fields) = step.payload, let n = fields["n"]?.intValue else {
            return .none
        }
        navigator.setStack("app", [Screen.view(PresentableID("tick.\(n % 2)"), type: "Tick", data: step.payload)])
        return .none
    }
}

/// Runs `body` on a thread of its own against a `DaemonServer` serving ``TickerApplication`` with `configuration`
/// and `sockets` over `ipc://` in a temporary folder; the daemon is stopped and the folder removed afterwards.
private func withLiveDaemon<Result: Sendable>(
    _ configuration: DaemonConfiguration, sockets: ZMQSocketOptions = ZMQSocketOptions(),
    _ body: @escaping @Sendable (String) throws -> Result
) async throws -> Result {
    // ipc:// paths must stay short (about 107 bytes).
    let directory = "/tmp/flowd-limits-" + UUID().uuidString.prefix(8)
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let server = DaemonServer(
        application: TickerApplication(),
        configuration: DaemonServer.Configuration(
            controlEndpoint: "ipc://\(directory)/control.sock", eventsEndpoint: "ipc://\(directory)/events.sock",
            daemon: configuration, socketOptions: sockets
        ),
        logger: Logger(label: "SlowPresenterTests", factory: { _ in SwiftLogNoOpLogHandler() })
    )
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await server.run() }
        // Whatever happens below, the daemon stops, or the group would wait for it forever.
        defer { server.stop() }
        let bound = try await server.waitUntilReady()
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Result, any Error>) in
            let thread = Thread { continuation.resume(with: Swift.Result { try body(bound.control) }) }
            thread.name = "limits-test"
            thread.stackSize = 8 << 20
            thread.start()
        }
    }
}

// MARK: - Raw peers

/// A DEALER on the daemon's control endpoint that speaks the wire protocol through the codec; sends block for at most
/// 30 s, receives for at most 30 s (``receiveReply()``) or not at all (``tryReceive()``).
///
/// Not `Sendable`: libzmq sockets belong to one thread.
final class WirePeer {
    let socket: ZMQSocket
    /// Reads bodies of any size: a snapshot may be larger than what the daemon accepts.
    private let codec = WireCodec(maxBodyBytes: 64 << 20)
    private var nextReq: UInt64 = 1

    /// - Parameters:
    ///   - receiveHighWaterMark: `ZMQ_RCVHWM`; small for a peer meant to fall behind.
    ///   - zmtpHeartbeats: ZMTP PINGs every second, which keep the connection alive while the peer reads nothing (the
    ///     daemon's ZMTP timeout would drop a connection that sends nothing at all, docs/LIMITS.md).
    init(
        context: ZMQContext, endpoint: String, receiveHighWaterMark: Int32? = nil, zmtpHeartbeats: Bool = false
    ) throws {
        let heartbeat = zmtpHeartbeats ? ZMQSocketOptions.Heartbeat(timeout: .seconds(300), ttl: .seconds(10)) : nil
        let options = ZMQSocketOptions(
            linger: .zero, maxMessageSize: nil, heartbeat: heartbeat, receiveHighWaterMark: receiveHighWaterMark
        )
        socket = try ZMQSocket(.dealer, context: context, options: options)
        try socket.setOption(.receiveTimeout, to: 30_000)
        try socket.setOption(.sendTimeout, to: 30_000)
        try socket.connect(endpoint)
    }

    func close() { socket.close() }

    func req() -> UInt64 {
        nextReq += 1
        return nextReq
    }

    func send(_ message: WireMessage) throws { try send(frames: codec.encode(message)) }

    func send(frames: [[UInt8]]) throws { try socket.send(ZMQMessage(frames)) }

    /// The next message if one is queued.
    func tryReceive() throws -> WireMessage? {
        guard let message = try socket.tryReceive() else { return nil }
        return try codec.decode(message.frames)
    }

    /// Waits for the next message that is not a `HEARTBEAT`.
    func receiveReply() throws -> WireMessage {
        while true {
            let message = try codec.decode(try socket.receive().frames)
            if case .heartbeat = message { continue }
            return message
        }
    }

    /// Says `HELLO` (announcing a 60 s heartbeat, so that the daemon counts a silent peer alive for 3 minutes) and
    /// waits for the `WELCOME`.
    func hello(role: PeerRole, name: String, serves: [String] = []) throws -> Welcome {
        try send(
            .hello(Hello(req: req(), role: role, name: name, instance: name, heartbeatMs: 60_000, serves: serves)))
        let reply = try receiveReply()
        guard case .welcome(let welcome) = reply else { throw ScenarioFailure("expected WELCOME, got \(reply)") }
        return welcome
    }
}

struct ScenarioFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A presenter as docs/PROTOCOL.md §6 has it, over a ``WirePeer``: applies a `COMMAND` only when its `seq` is the
/// next one (an older one is a duplicate and ignored), adopts a `SNAPSHOT`, and `SYNC`s with its last applied `seq`
/// on a gap or when a `HEARTBEAT` announces a `seq` above it (§6.4). A `SYNC` unanswered for 5 s is sent again.
final class ModelPresenter {
    let session: String
    let peer: WirePeer
    var model = PresentationModel()
    var lastSeq: UInt64 = 0
    /// The `seq` of every command applied, in order.
    var applied: [UInt64] = []
    var snapshots: [UInt64] = []
    /// The `mode` of each `SYNC`'s `OK`, in order.
    var syncModes: [String] = []
    var syncsSent = 0
    var duplicatesIgnored = 0
    var gaps = 0
    /// What made each `SYNC` go: `start`, `gap`, `heartbeat` (one announced a `seq` above the last applied one) or
    /// `unanswered` (sent again).
    var syncTriggers: [String] = []
    var failures: [String] = []
    /// Whether the test reads its socket.
    var reading = true
    private var pendingSync: (reqs: Set<UInt64>, sentAt: ContinuousClock.Instant)?
    private var syncReqs: Set<UInt64> = []
    private var awaitingSnapshot = false

    init(session: String, peer: WirePeer) {
        self.session = session
        self.peer = peer
    }

    var isSyncing: Bool { pendingSync != nil || awaitingSnapshot }

    /// `SYNC` (creating the session) from nothing.
    func start() throws {
        try sync(create: true, because: "start")
    }

    func handle(_ message: WireMessage) throws {
        switch message {
        case .command(let command) where command.session == session:
            if command.seq <= lastSeq {
                duplicatesIgnored += 1
            } else if command.seq == lastSeq + 1, !awaitingSnapshot {
                do {
                    _ = try model.apply(command.command)
                } catch {
                    failures.append("\(session): command \(command.seq) does not apply: \(error)")
                }
                lastSeq = command.seq
                applied.append(command.seq)
            } else if !awaitingSnapshot {
                gaps += 1
                try syncIfIdle(because: "gap")
            }
        case .heartbeat(let heartbeat):
            if let announced = heartbeat.sessions[session], announced > lastSeq { try syncIfIdle(because: "heartbeat") }
        case .ok(let ok) where pendingSync?.reqs.contains(ok.req) == true:
            pendingSync = nil
            guard case .object(let fields) = ok.result, let mode = fields["mode"]?.stringValue else {
                return failures.append("\(session): OK to SYNC without a mode: \(ok)")
            }
            syncModes.append(mode)
            awaitingSnapshot = mode == "snapshot"
        case .ok(let ok) where syncReqs.contains(ok.req):
            break  // the answer to a SYNC sent again
        case .snapshot(let snapshot) where snapshot.session == session:
            // A snapshot covers every command up to its seq; an older one (of a SYNC sent again) is ignored.
            guard awaitingSnapshot || snapshot.seq > lastSeq else { break }
            awaitingSnapshot = false
            model = snapshot.ui.makeModel().model
            lastSeq = snapshot.seq
            snapshots.append(snapshot.seq)
        default:
            failures.append("\(session): unexpected \(message)")
        }
    }

    /// Sends a `SYNC` unless one is under way (again if that one is unanswered after 5 s).
    func syncIfIdle(because trigger: String) throws {
        if awaitingSnapshot { return }
        if let pendingSync, pendingSync.sentAt.duration(to: .now) < .seconds(5) { return }
        try sync(create: false, because: pendingSync == nil ? trigger : "unanswered")
    }

    private func sync(create: Bool, because trigger: String) throws {
        syncTriggers.append(trigger)
        let req = peer.req()
        try peer.send(.sync(Sync(req: req, session: session, lastSeq: lastSeq, create: create)))
        syncsSent += 1
        syncReqs.insert(req)
        pendingSync = ((pendingSync?.reqs ?? []).union([req]), .now)
    }
}

// MARK: - The scenario

/// One run, on one thread that owns every socket: an operator, a stepper serving `ticker`, a healthy presenter of
/// session `brisk`, and a presenter of session `slow` with `ZMQ_RCVHWM` 1 that stops reading after its first
/// snapshot (but keeps its connection alive with ZMTP heartbeats: it is slow, not dead).
final class StuckPresenterScenario {
    struct Report: Sendable {
        var failures: [String] = []
        var stepsUntilFirstDrop = 0
        var commandsDroppedWhileStuck = 0
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
    var replies: [UInt64: WireMessage] = [:]
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
            peer: try WirePeer(context: context, endpoint: endpoint, receiveHighWaterMark: 1, zmtpHeartbeats: true)
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
        // daemon answers HEALTH, and every command for the slow session is dropped and counted.
        let droppedBefore = try commandsDropped()
        for _ in 0..<Self.stepsWhileStuck {
            try step("slow")
            try step("brisk")
        }
        let health = try counters()
        report.healthAnsweredWhileStuck = true
        report.commandsDroppedWhileStuck = Self.dropped(health.counters, "COMMAND") - droppedBefore
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

        // 3. The slow presenter reads again (while steps for its session go on a while, or not). It catches up.
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
    func request(_ make: (UInt64) -> WireMessage) throws -> OKReply {
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

    func handleOperator(_ message: WireMessage) {
        switch message {
        case .heartbeat: break
        case .ok(let ok): replies[ok.req] = message
        case .error(let error) where error.req != nil: replies[error.req!] = message
        default: report.failures.append("operator: unexpected \(message)")
        }
    }

    func handleStepper(_ message: WireMessage) {
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
