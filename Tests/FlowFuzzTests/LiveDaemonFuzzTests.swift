import FlowCore
import FlowDaemon
import FlowWire
import Foundation
import Logging
import Synchronization
import TestFlows
import Testing
import ZeroMQ

/// Part 3 of the fuzzing of issue 5: a `DaemonServer` running in this process (its own I/O thread, ZeroMQ over
/// `ipc://` in a temporary folder) takes a million malformed and mutated messages from four raw DEALERs (two welcomed,
/// as an operator and as a stepper, two that never say HELLO), each with at most ``window`` messages outstanding so
/// that nothing overflows a high-water mark, plus a handful over the socket's hard `ZMQ_MAXMSGSIZE`, which libzmq
/// answers by dropping the connection (the DEALER reconnects, says HELLO again if it had, and carries on).
///
/// Every message below the hard limit gets its `ERROR`, in order; the daemon is still running at the end, `HEALTH`
/// counts exactly the refusals and messages sent, and a presenter and a stepper then do a normal round (HELLO, SYNC,
/// REPORT, STEP, COMMAND).
struct LiveDaemonFuzzTests {
    static let messageCount = 1_000_000
    static let oversizedCount = 6
    static let window = 256

    /// Starts a daemon in a temporary folder, fuzzes it, stops it; the folder is removed afterwards.
    static func runLive(seed: UInt64, messages: Int, oversized: Int) async throws -> LiveFuzz.Summary {
        // ipc:// paths must stay short (about 107 bytes).
        let directory = "/tmp/flowd-fuzz-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = DaemonServer(
            application: TestApplication(stepNames: ["start", "openDetail", "back"]),
            configuration: DaemonServer.Configuration(
                controlEndpoint: "ipc://\(directory)/control.sock", eventsEndpoint: "ipc://\(directory)/events.sock"
            ),
            logger: Logger(label: "FlowFuzzTests.live", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        let stopped = StoppedFlag()
        let report = try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                defer { stopped.value.withLock { $0 = true } }
                try await server.run()
            }
            // Whatever happens below, the daemon stops, or the group would wait for it forever.
            defer { server.stop() }
            let bound = try await server.waitUntilReady()
            let report = try await onDedicatedThread("fuzz-live") {
                var fuzz = LiveFuzz(seed: seed, endpoint: bound.control)
                return try fuzz.run(messages: messages, oversized: oversized, window: Self.window)
            }
            #expect(!stopped.value.withLock { $0 }, "the daemon is still running after the fuzzing")
            return report
        }
        #expect(!FileManager.default.fileExists(atPath: "\(directory)/control.sock"), "the daemon removed its socket")
        return report
    }

    @Test func aMillionMutatedMessagesToALiveDaemonAreEachAnsweredAndItKeepsServing() async throws {
        let seed = FuzzSeed.value
        let report = try await Self.runLive(seed: seed, messages: Self.messageCount, oversized: Self.oversizedCount)

        print(
            "live daemon fuzz: seed \(FuzzSeed.hex(seed)), \(report.sent) messages below the hard limit and "
                + "\(report.oversizedSent) over it in \(String(format: "%.1f", report.seconds)) s "
                + "(client thread CPU \(String(format: "%.1f", report.cpuSeconds)) s); replies=\(report.replies), "
                + "disconnects=\(report.disconnects), reconnects=\(report.reconnects), skipped=\(report.skipped)"
        )
        print("  ERROR replies by code: \(report.tally)")
        print("  HEALTH errors: \(report.healthErrors.keys.sorted().map { "\($0)=\(report.healthErrors[$0]!)" })")
        #expect(
            report.failureCount == 0, "\(report.failureCount) failures:\n\(report.failures.joined(separator: "\n"))"
        )
        #expect(report.sent >= Self.messageCount)
        #expect(report.replies == report.sent, "every message below the hard limit got its ERROR")
        #expect(report.tally.total == report.sent)
        #expect(report.oversizedSent == Self.oversizedCount)
        #expect(report.disconnects == Self.oversizedCount, "libzmq dropped each oversized message's connection")
        #expect(report.reconnects == Self.oversizedCount)
        #expect(report.healthAnswered)
        #expect(report.healthErrors == report.tally.counts, "HEALTH counts every refusal")
        #expect(
            report.healthMessagesIn == report.sent + report.validSentBeforeHealth,
            "HEALTH counts every message below the limit"
        )
        #expect(Set(report.tally.counts.keys).isSubset(of: ProtocolCodes.documented))
        #expect(report.normalRoundWorked)
    }
}

/// Set when the daemon's `run()` returned.
final class StoppedFlag: Sendable {
    let value = Mutex(false)
}

/// One live fuzz run, on one thread that owns every socket.
struct LiveFuzz {
    struct Summary: Sendable {
        var sent = 0
        var skipped = 0
        var oversizedSent = 0
        var replies = 0
        var validSent = 0
        var validSentBeforeHealth = 0
        var disconnects = 0
        var reconnects = 0
        var tally = CodeTally()
        var failures: [String] = []
        var failureCount = 0
        var healthAnswered = false
        var healthErrors: [String: Int] = [:]
        var healthMessagesIn = -1
        var normalRoundWorked = false
        var seconds = 0.0
        var cpuSeconds = 0.0
    }

    /// The `ERROR` a dealer waits for (replies come in order): its code (any refusal code when `nil`) and, when
    /// known, its `req`.
    struct Expectation: CustomStringConvertible {
        var code: String?
        var req: UInt64??

        static func error(code: String?, req: UInt64??) -> Expectation { Expectation(code: code, req: req) }

        var description: String {
            let reqText = req.map { $0.map(String.init) ?? "null" } ?? "unchecked"
            return "ERROR \(code ?? "(any code)") req \(reqText)"
        }
    }

    /// One raw DEALER and its bookkeeping.
    final class Dealer {
        let socket: ZMQSocket
        let monitor: ZMQSocket
        /// The role it says HELLO as, `nil` for one that never does.
        let role: PeerRole?
        let name: String
        var expected: [Expectation] = []
        var head = 0
        var nextCase: Int
        var pending: (frames: [[UInt8]], expectation: Expectation)?
        /// Waiting for its connection to come back after an oversized message.
        var reconnecting = false
        var disconnected = false
        var oversizedDue = false

        init(socket: ZMQSocket, monitor: ZMQSocket, role: PeerRole?, name: String, firstCase: Int) {
            self.socket = socket
            self.monitor = monitor
            self.role = role
            self.name = name
            self.nextCase = firstCase
        }

        var outstanding: Int { expected.count - head }

        func expect(_ expectation: Expectation) {
            if head > 4096 {
                expected.removeFirst(head)
                head = 0
            }
            expected.append(expectation)
        }

        func takeExpectation() -> Expectation? {
            guard head < expected.count else { return nil }
            defer { head += 1 }
            return expected[head]
        }
    }

    let seed: UInt64
    let endpoint: String
    let codec = WireCodec()
    let fuzzer = FrameFuzzer()
    let helloType = Array("HELLO".utf8)
    var report = Summary()
    var nextReq: UInt64 = 1

    init(seed: UInt64, endpoint: String) {
        self.seed = seed
        self.endpoint = endpoint
    }

    mutating func fail(_ what: String) {
        report.failureCount += 1
        if report.failures.count < 30 { report.failures.append(what) }
    }

    mutating func req() -> UInt64 {
        nextReq += 1
        return nextReq
    }

    // MARK: - Running

    mutating func run(messages: Int, oversized: Int, window: Int) throws -> Summary {
        let context = try ZMQContext()
        defer { context.shutdown() }
        let roles: [PeerRole?] = [.operator, nil, .stepper, nil]
        var dealers: [Dealer] = []
        for (index, role) in roles.enumerated() {
            dealers.append(try makeDealer(context: context, role: role, name: "live-\(index)", firstCase: index))
        }
        defer {
            for dealer in dealers {
                dealer.socket.close()
                dealer.monitor.close()
            }
        }
        let (_, seconds, cpuSeconds) = try measure {
            for dealer in dealers where dealer.role != nil { try hello(dealer) }
            try fuzz(dealers, messages: messages, oversized: oversized, window: window)
            try health(context: context)
            try normalRound(context: context)
        }
        report.seconds = seconds
        report.cpuSeconds = cpuSeconds
        return report
    }

    private func makeDealer(context: ZMQContext, role: PeerRole?, name: String, firstCase: Int) throws -> Dealer {
        // No ZMTP heartbeats of its own: a busy machine must not make the test's side drop a connection.
        let socket = try ZMQSocket(.dealer, context: context, options: ZMQSocketOptions(heartbeat: nil))
        try socket.setOption(.receiveTimeout, to: 30_000)
        try socket.setOption(.sendTimeout, to: 30_000)
        try socket.setOption(.reconnectInterval, to: 20)
        let monitorEndpoint = "inproc://fuzz-monitor-\(name)"
        try socket.startMonitor(at: monitorEndpoint, events: [.disconnected, .handshakeSucceeded])
        let monitor = try ZMQSocket(.pair, context: context, options: ZMQSocketOptions(linger: .zero, heartbeat: nil))
        try monitor.connect(monitorEndpoint)
        try socket.connect(endpoint)
        return Dealer(socket: socket, monitor: monitor, role: role, name: name, firstCase: firstCase)
    }

    /// Says HELLO (blocking) and checks the WELCOME, skipping heartbeats.
    mutating func hello(_ dealer: Dealer, serves: [String] = []) throws {
        guard let role = dealer.role else { return }
        let number = req()
        let hello = Hello(
            req: number, role: role, name: dealer.name, instance: "live", heartbeatMs: 60_000, serves: serves
        )
        try dealer.socket.send(ZMQMessage(codec.encode(.hello(hello))))
        report.validSent += 1
        let reply = try receive(dealer.socket)
        guard case .welcome(let welcome) = reply, welcome.req == number else {
            return fail("\(dealer.name): HELLO answered \(reply)")
        }
    }

    /// The next message that is not a HEARTBEAT, decoded (blocking, up to the receive timeout).
    private func receive(_ socket: ZMQSocket) throws -> DaemonMessage {
        while true {
            let message = try socket.receive()
            guard case .daemon(let decoded) = try codec.decode(message.frames, from: .daemon) else { continue }
            if case .heartbeat = decoded { continue }
            return decoded
        }
    }

    // MARK: - Afterwards

    /// A fresh operator asks for HEALTH.
    private mutating func health(context: ZMQContext) throws {
        let dealer = try makeDealer(context: context, role: .operator, name: "live-health", firstCase: 0)
        defer {
            dealer.socket.close()
            dealer.monitor.close()
        }
        try hello(dealer)
        let number = req()
        try dealer.socket.send(ZMQMessage(codec.encode(.health(PlainRequest(req: number)))))
        report.validSent += 1
        let reply = try receive(dealer.socket)
        guard case .ok(let ok) = reply, ok.req == number, case .object(let result) = ok.result,
            result["status"] == "ok", case .object(let counters)? = result["counters"],
            case .object(let errors)? = counters["errors"], let messagesIn = counters["messages_in"]?.intValue
        else {
            return fail("HEALTH answered \(reply)")
        }
        report.healthAnswered = true
        report.validSentBeforeHealth = report.validSent
        report.healthErrors = errors.compactMapValues(\.intValue)
        report.healthMessagesIn = messagesIn
    }

    /// A presenter syncs the default session and reports it, a stepper serving `home` gets its attachment and emits
    /// a step, and the presenter receives the command.
    private mutating func normalRound(context: ZMQContext) throws {
        let presenter = try makeDealer(context: context, role: .presenter, name: "live-presenter", firstCase: 0)
        let stepper = try makeDealer(context: context, role: .stepper, name: "live-stepper", firstCase: 0)
        defer {
            for dealer in [presenter, stepper] {
                dealer.socket.close()
                dealer.monitor.close()
            }
        }
        try hello(presenter)
        let syncReq = req()
        try presenter.socket.send(ZMQMessage(codec.encode(.sync(Sync(req: syncReq, session: "default", lastSeq: 0)))))
        guard case .ok(let synced) = try receive(presenter.socket), synced.req == syncReq,
            case .object(let syncResult) = synced.result, let seq = syncResult["seq"]?.intValue,
            case .snapshot(let snapshot) = try receive(presenter.socket), snapshot.seq == UInt64(seq)
        else {
            return fail("SYNC did not give OK and a SNAPSHOT")
        }
        let reportReq = req()
        let reports = [
            PresentableReport(presentable: "app", state: .visible),
            PresentableReport(presentable: "home", state: .visible),
        ]
        let shown = Report(req: reportReq, session: "default", reports: reports)
        try presenter.socket.send(ZMQMessage(codec.encode(.report(shown))))
        guard case .ok(let reported) = try receive(presenter.socket), reported.req == reportReq else {
            return fail("REPORT not answered OK")
        }
        let helloReq = req()
        let hello = Hello(
            req: helloReq, role: .stepper, name: "live-stepper", instance: "live", heartbeatMs: 60_000,
            serves: ["home"]
        )
        try stepper.socket.send(ZMQMessage(codec.encode(.hello(hello))))
        guard case .welcome = try receive(stepper.socket),
            case .attach(let attach) = try receive(stepper.socket), attach.session == "default", attach.kind == "home"
        else {
            return fail("the stepper got no WELCOME and ATTACH")
        }
        let stepReq = req()
        let step = StepMessage(
            req: stepReq, session: "default", attachment: attach.attachment, step: Step("openDetail", payload: 1)
        )
        try stepper.socket.send(ZMQMessage(codec.encode(.step(step))))
        guard case .ok(let accepted) = try receive(stepper.socket), accepted.req == stepReq,
            accepted.result == ["accepted": true]
        else {
            return fail("the STEP was not accepted")
        }
        let expected = CommandMessage(
            session: "default", seq: UInt64(seq) + 1, command: .push(Screens.detail(1), onto: "app")
        )
        guard case .command(let command) = try receive(presenter.socket), command == expected else {
            return fail("the presenter did not get \(expected)")
        }
        report.normalRoundWorked = true
    }
}
