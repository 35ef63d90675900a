#if canImport(Glibc)
import Glibc
#endif
import FlowCore
import FlowWire
import ZeroMQ

/// Which system a run measures.
enum BenchSystem: String, Codable, Sendable, CaseIterable {
    /// A stepper → `flowd` (a ``DaemonServer`` running ``BenchApplication``) → a presenter, speaking the protocol.
    case flowd
    /// A stepper → a raw ZeroMQ ROUTER relay in Swift → a presenter: the same sockets, wrapper and frame sizes, no
    /// decoding, no flow logic.
    case raw
    /// The same relay written in C on libzmq (`Benchmarks/CZMQRelay`): the floor of this hardware and libzmq.
    case cZMQ = "c-zmq"
    /// A relay of the same shape on D-Bus (`Benchmarks/dbus-relay`: sd-bus, a private `dbus-daemon`, no-reply calls
    /// in, a signal out), with C clients of its own; run only where libsystemd's headers and `dbus-daemon` are.
    case dbus

    /// Whether the server is a relay that only forwards (the clients then check order by the step's `req`).
    var isRelay: Bool { self != .flowd }
}

/// The wire bytes the benchmark's clients send and look for, made once.
enum BenchWire {
    static let signature = WireProtocol.signature
    static let stepType = Array(MessageType.step.rawValue.utf8)
    static let ackType = Array(MessageType.ack.rawValue.utf8)
    static let okType = Array(MessageType.ok.rawValue.utf8)
    static let errorType = Array(MessageType.error.rawValue.utf8)
    static let commandType = Array(MessageType.command.rawValue.utf8)
    static let heartbeatType = Array(MessageType.heartbeat.rawValue.utf8)
    static let welcomeType = Array(MessageType.welcome.rawValue.utf8)
    static let helloType = Array(MessageType.hello.rawValue.utf8)
    static let snapshotType = Array(MessageType.snapshot.rawValue.utf8)
    static let sessionField = Array("\"session\":\"\(session)\"".utf8)
    static let seqKey = Array("\"seq\":".utf8)
    static let reqKey = Array("\"req\":".utf8)
    static let dataKey = Array("\"data\":".utf8)
    static let payloadKey = Array("\"payload\":".utf8)
    static let accepted = Array("\"accepted\":true".utf8)

    /// The session every benchmark step goes to.
    static let session = "default"
    /// The step the stepper sends.
    static let stepName = "tick"
    /// The stepper kind the benchmark flow contributes.
    static let kind = "bench"
    /// The payload of the step that ends the throughput phase.
    static let endMarker: UInt64 = 0

    /// The body of `STEP` exactly as ``WireCodec`` writes it (keys sorted), built without a JSON encoder so the
    /// stepper spends its time sending, not encoding. ``checkEncodings()`` proves the bytes are the codec's.
    static func stepBody(attachment: Int, req: UInt64, stamp: UInt64) -> [UInt8] {
        var body: [UInt8] = []
        body.reserveCapacity(96)
        body.append(contentsOf: stepPrefix)
        Bytes.appendDecimal(UInt64(attachment), to: &body)
        body.append(contentsOf: stepReq)
        Bytes.appendDecimal(req, to: &body)
        body.append(contentsOf: stepMiddle)
        Bytes.appendDecimal(stamp, to: &body)
        body.append(contentsOf: stepSuffix)
        return body
    }

    /// The body of `ACK` exactly as ``WireCodec`` writes it.
    static func ackBody(seq: UInt64) -> [UInt8] {
        var body: [UInt8] = []
        body.reserveCapacity(40)
        body.append(contentsOf: ackPrefix)
        Bytes.appendDecimal(seq, to: &body)
        body.append(contentsOf: ackSuffix)
        return body
    }

    private static let stepPrefix = Array("{\"attachment\":".utf8)
    private static let stepReq = Array(",\"req\":".utf8)
    private static let stepMiddle = Array(",\"session\":\"\(session)\",\"step\":{\"name\":\"\(stepName)\",\"payload\":".utf8)
    private static let stepSuffix = Array("}}".utf8)
    private static let ackPrefix = Array("{\"seq\":".utf8)
    private static let ackSuffix = Array(",\"session\":\"\(session)\"}".utf8)

    /// Checks that the hand-made bodies are byte for byte what the codec writes, so both systems carry real protocol
    /// messages.
    static func checkEncodings() throws {
        let codec = WireCodec()
        let step = StepMessage(req: 123_456, session: session, attachment: 7, step: Step(stepName, payload: .int(1_234_567)))
        guard codec.encodeBody(.client(.step(step))) == stepBody(attachment: 7, req: 123_456, stamp: 1_234_567) else {
            throw BenchError("the hand-made STEP body differs from WireCodec's")
        }
        guard codec.encodeBody(.client(.ack(Ack(session: session, seq: 98_765)))) == ackBody(seq: 98_765) else {
            throw BenchError("the hand-made ACK body differs from WireCodec's")
        }
    }

    /// The sizes of the messages of one step in flowd, for the raw relay to reproduce: how many bytes the `COMMAND`
    /// body has more than the `STEP` body (same number of digits in `req` and `seq`), and the `OK` body's size.
    static func messageSizes(stamp: UInt64) -> (commandExtra: Int, okBytes: Int, stepBytes: Int, commandBytes: Int) {
        let codec = WireCodec()
        let req: UInt64 = 100_000
        let step = stepBody(attachment: 1, req: req, stamp: stamp)
        let command = codec.encodeBody(
            .daemon(
                .command(CommandMessage(session: session, seq: req, command: BenchFlow.tickCommand(payload: .int(Int(stamp)))))
            )
        )
        let ok = codec.encodeBody(.daemon(.ok(OKReply(req: req, result: ["accepted": true]))))
        return (command.count - step.count, ok.count, step.count, command.count)
    }
}

/// A benchmark client's DEALER on the control endpoint, used synchronously from the process's main thread.
final class BenchClient {
    let system: BenchSystem
    let context: ZMQContext
    let dealer: ZMQSocket
    /// Decodes a SNAPSHOT of a deep UI too (`--ui-screens`), larger than the protocol's default body limit.
    let codec = WireCodec(maxBodyBytes: 64 << 20)
    private(set) var lastSend: UInt64 = 0
    private var nextReq: UInt64 = 0

    init(system: BenchSystem, endpoint: String) throws {
        self.system = system
        context = try ZMQContext()
        // A SNAPSHOT of a deep UI (`--ui-screens`) is larger than the wrapper's default 1 MiB limit.
        dealer = try ZMQSocket(.dealer, context: context, options: ZMQSocketOptions(maxMessageSize: 64 << 20))
        try dealer.connect(endpoint)
    }

    /// A new request number.
    func makeReq() -> UInt64 {
        nextReq += 1
        return nextReq
    }

    /// Sends the three frames of a protocol message.
    func send(type: [UInt8], body: [UInt8]) throws {
        try dealer.send(ZMQMessage([BenchWire.signature, type, body]))
        lastSend = monotonicNanoseconds()
    }

    /// Sends a message encoded by the codec (handshakes, not the hot path).
    func send(_ message: ClientMessage) throws {
        try dealer.send(ZMQMessage(codec.encode(message)))
        lastSend = monotonicNanoseconds()
    }

    /// Sends a `HEARTBEAT` when nothing was sent for half a second (flowd counts a silent client dead after 3 s).
    func heartbeatIfDue(now: UInt64) throws {
        guard system == .flowd, now &- lastSend > 500_000_000 else { return }
        try send(.heartbeat(Heartbeat()))
    }

    /// `HELLO`, then waits for `WELCOME` (in raw mode the relay answers a bare `WELCOME`).
    func hello(role: PeerRole, name: String, serves: [String] = []) throws {
        let hello = Hello(
            req: makeReq(), role: role, name: name, instance: "bench-\(getpid())", heartbeatMs: 1000, serves: serves
        )
        try send(.hello(hello))
        _ = try awaitMessage(what: "WELCOME") { frames in frames[1] == BenchWire.welcomeType }
    }

    /// Waits for a message the predicate accepts, skipping others (heartbeats, attachments of other sessions).
    func awaitMessage(timeout: Double = 30, what: String, _ accept: ([[UInt8]]) -> Bool) throws -> [[UInt8]] {
        let deadline = monotonicNanoseconds() + UInt64(timeout * 1e9)
        let poller = ZMQPoller()
        poller.register(dealer, for: .pollIn)
        while monotonicNanoseconds() < deadline {
            try heartbeatIfDue(now: monotonicNanoseconds())
            _ = try poller.poll(timeout: .milliseconds(100))
            while let message = try dealer.tryReceive() {
                if message.count == 3, accept(message.frames) { return message.frames }
                if message.count == 3, message.frames[1] == BenchWire.errorType {
                    throw BenchError("\(what): the server answered ERROR \(String(decoding: message.frames[2], as: UTF8.self))")
                }
            }
        }
        throw BenchError("timed out waiting for \(what)")
    }

    /// Waits for the decoded message the predicate picks (setup only: decodes with the codec).
    func awaitDecoded<T>(what: String, _ pick: (DaemonMessage) -> T?) throws -> T {
        var result: T?
        _ = try awaitMessage(what: what) { frames in
            guard case .daemon(let message)? = try? codec.decode(frames, from: .daemon) else { return false }
            result = pick(message)
            return result != nil
        }
        return result!
    }

    /// Says `BYE` (flowd) and closes the socket.
    func close() {
        if system == .flowd { try? send(.bye) }
        dealer.close()
    }
}
