import FlowCore
import FlowDaemon
import FlowWire
import Logging
import Testing

// MARK: - Fake peers

/// The connections of the in-memory transport: ROUTER routing IDs.
enum Peers {
    static let tui = PeerAddress([1])
    static let movies = PeerAddress([2])
    static let flowctl = PeerAddress([3])
    static let kiosk = PeerAddress([4])
    static let moviesB = PeerAddress([5])
    static let tuiRestarted = PeerAddress([6])
    static let moviesRestarted = PeerAddress([7])
    static let stranger = PeerAddress([9])
}

/// A message the daemon sent, to whom.
struct Delivery: Hashable, CustomStringConvertible {
    let peer: PeerAddress
    let message: WireMessage

    init(_ peer: PeerAddress, _ message: WireMessage) {
        self.peer = peer
        self.message = message
    }

    var description: String { "→\(peer) \(message)" }
}

/// What one input made the daemon do, in order.
struct Outcome {
    /// The messages sent, each decoded from the frames a transport would send (error texts blanked, see
    /// ``DaemonHarness``).
    var sent: [Delivery] = []
    /// The events published, each decoded from its four frames.
    var events: [EventMessage] = []
    /// The local work asked for: `attach <session> <attachment>`, `detach …`, `adapt …`.
    var local: [String] = []

    /// The messages sent to one peer, in order.
    func to(_ peer: PeerAddress) -> [WireMessage] { sent.filter { $0.peer == peer }.map(\.message) }
}

// MARK: - Harness

/// ``DaemonCore`` behind an in-memory transport: fake peers send it encoded frames, and what it sends goes through
/// the codec too (encoded as a transport would, then decoded as the peer would).
///
/// Error replies are compared without their human text: the harness checks the text is not empty and blanks it, so
/// tests can compare whole messages with ``refused(_:_:_:)``.
struct DaemonHarness {
    private(set) var core: DaemonCore
    /// The daemon's clock, in milliseconds.
    private(set) var now: UInt64
    private let codec: WireCodec
    /// What the daemon did when it started (the default session's creation).
    private(set) var started = Outcome()
    /// Everything each peer received, in order.
    private(set) var received: [PeerAddress: [WireMessage]] = [:]
    /// Every event published, in order.
    private(set) var events: [EventMessage] = []

    private let application: any FlowApplication
    private let configuration: DaemonConfiguration

    /// - Parameter journaling: whether the core journals its changes (see ``restarted()``).
    init(
        application: any FlowApplication = TestApplication(),
        configuration: DaemonConfiguration = DaemonConfiguration(),
        now: UInt64 = 0,
        journaling: Bool = false
    ) {
        self.now = now
        self.codec = WireCodec()
        self.application = application
        self.configuration = configuration
        self.core = DaemonCore(
            application: application, configuration: configuration, daemonID: "test-daemon",
            logger: Logger(label: "FlowDaemonTests", factory: { _ in SwiftLogNoOpLogHandler() }), now: now,
            journaling: journaling
        )
        started = absorb(core.start(now: now))
    }

    private init(recovering journal: [[UInt8]], from harness: DaemonHarness, daemonID: String) throws {
        now = harness.now
        codec = WireCodec()
        application = harness.application
        configuration = harness.configuration
        core = DaemonCore(
            application: application, configuration: configuration, daemonID: daemonID,
            logger: Logger(label: "FlowDaemonTests", factory: { _ in SwiftLogNoOpLogHandler() }), now: now,
            journaling: true
        )
        _ = try core.recover(from: journal)
        started = absorb(core.start(now: now))
    }

    /// A daemon restarted from this one's journal (its ``DaemonCore/journalHistory``), as after a SIGKILL: a fresh
    /// core with a new run ID that recovers the state; no peer is connected.
    func restarted(journal: [[UInt8]]? = nil) throws -> DaemonHarness {
        try DaemonHarness(recovering: journal ?? core.journalHistory, from: self, daemonID: "restarted-daemon")
    }

    /// Everything a session's state consists of that clients can observe: tree, UI, seq and outbox.
    func state(of session: String = "default") -> String {
        let tree = core.tree(of: session).map { "\($0)" } ?? "-"
        let ui = core.ui(of: session).map { "\(UISnapshot($0))" } ?? "-"
        return "seq \(core.seq(of: session) ?? 0)\n\(tree)\n\(ui)"
    }

    // MARK: Inputs

    /// A peer sends a message (encoded with the codec).
    @discardableResult
    mutating func receive(_ message: WireMessage, from peer: PeerAddress, at time: UInt64? = nil) -> Outcome {
        receive(frames: codec.encode(message), from: peer, at: time)
    }

    /// A peer sends raw frames.
    @discardableResult
    mutating func receive(frames: [[UInt8]], from peer: PeerAddress, at time: UInt64? = nil) -> Outcome {
        advance(to: time)
        return absorb(core.handle(.message(from: peer, frames: frames), now: now))
    }

    /// Time passes to `time`.
    @discardableResult
    mutating func tick(at time: UInt64) -> Outcome {
        advance(to: time)
        return absorb(core.handle(.tick, now: now))
    }

    /// Any other input.
    @discardableResult
    mutating func handle(_ input: DaemonInput, at time: UInt64? = nil) -> Outcome {
        advance(to: time)
        return absorb(core.handle(input, now: now))
    }

    private mutating func advance(to time: UInt64?) {
        guard let time else { return }
        #expect(time >= now, "time goes forward")
        now = max(now, time)
    }

    // MARK: Conveniences

    /// `HELLO` from `peer`.
    @discardableResult
    mutating func hello(
        _ peer: PeerAddress, _ role: PeerRole, name: String, serves: [String] = [], heartbeatMs: Int = 1000,
        req: UInt64 = 1, at time: UInt64? = nil
    ) -> Outcome {
        receive(
            .hello(
                Hello(
                    req: req, role: role, name: name, instance: "run-\(name)", heartbeatMs: heartbeatMs, serves: serves)
            ),
            from: peer, at: time
        )
    }

    /// `HELLO` then `SYNC` from a presenter; returns the outcome of the `SYNC`.
    @discardableResult
    mutating func presenter(
        _ peer: PeerAddress, name: String, session: String = "default", lastSeq: UInt64 = 0, create: Bool = false,
        at time: UInt64? = nil
    ) -> Outcome {
        hello(peer, .presenter, name: name, at: time)
        return receive(.sync(Sync(req: 2, session: session, lastSeq: lastSeq, create: create)), from: peer)
    }

    /// A `REPORT` from a presenter.
    @discardableResult
    mutating func report(
        _ peer: PeerAddress, _ reports: [(PresentableID, PresentableState)], session: String = "default",
        req: UInt64 = 3, at time: UInt64? = nil
    ) -> Outcome {
        receive(
            .report(
                Report(
                    req: req, session: session,
                    reports: reports.map { PresentableReport(presentable: $0.0.rawValue, state: $0.1) }
                )
            ),
            from: peer, at: time
        )
    }

    /// A `STEP` from a stepper.
    @discardableResult
    mutating func step(
        _ peer: PeerAddress, _ step: Step, attachment: Int, session: String = "default", req: UInt64 = 2,
        at time: UInt64? = nil
    ) -> Outcome {
        receive(
            .step(StepMessage(req: req, session: session, attachment: attachment, step: step)), from: peer, at: time)
    }

    /// A `DEEPLINK` from an operator.
    @discardableResult
    mutating func deepLink(_ peer: PeerAddress, _ step: Step, session: String = "default", req: UInt64 = 2) -> Outcome {
        receive(.deepLink(DeepLinkRequest(req: req, session: session, step: step)), from: peer)
    }

    // MARK: Outputs

    private mutating func absorb(_ outputs: [DaemonOutput]) -> Outcome {
        var outcome = Outcome()
        for output in outputs {
            switch output {
            case .send(let peer, let message):
                do {
                    let frames = codec.encode(message)
                    var decoded = try codec.decode(frames)
                    // Compared as bytes: JSON does not tell 0.0 from 0, so a double may come back as an integer.
                    #expect(codec.encode(decoded) == frames, "the codec changes \(message)")
                    if case .error(var reply) = decoded {
                        #expect(!reply.message.isEmpty, "an ERROR without text")
                        reply.message = ""
                        decoded = .error(reply)
                    }
                    outcome.sent.append(Delivery(peer, decoded))
                    received[peer, default: []].append(decoded)
                } catch {
                    Issue.record("the daemon sent a message its peer cannot decode: \(message): \(error)")
                }
            case .publish(let event):
                do {
                    let frames = codec.encodeEvent(event)
                    #expect(frames.first == Array("nav/\(event.session)".utf8))
                    let decoded = try codec.decodeEvent(frames)
                    #expect(decoded == event)
                    outcome.events.append(decoded)
                    events.append(decoded)
                } catch {
                    Issue.record("the daemon published an event a subscriber cannot decode: \(event): \(error)")
                }
            case .attachLocal(let session, let attachment):
                outcome.local.append("attach \(session) \(attachment.id)")
            case .resumeLocal(let session, let attachment):
                outcome.local.append("resume \(session) \(attachment.id)")
            case .detachLocal(let session, let attachment):
                outcome.local.append("detach \(session) \(attachment)")
            case .runAdapt(let session, let request):
                outcome.local.append("adapt \(session) \(request.id)")
            }
        }
        return outcome
    }
}

// MARK: - Expected messages

func welcome(req: UInt64 = 1, peer: String, heartbeatMs: Int = 1000) -> WireMessage {
    .welcome(Welcome(req: req, peer: peer, daemon: "test-daemon", heartbeatMs: heartbeatMs, protocol: 1))
}

func ok(_ req: UInt64, _ result: JSONValue = [:]) -> WireMessage { .ok(OKReply(req: req, result: result)) }

/// An `ERROR` reply as the harness shows it (text blanked).
func refused(_ req: UInt64?, _ code: WireError.Code, _ type: MessageType?) -> WireMessage {
    .error(ErrorReply(req: req, code: code, message: "", type: type?.rawValue))
}

let accepted: JSONValue = ["accepted": true]
func dropped(_ reason: String) -> JSONValue { ["accepted": false, "reason": .string(reason)] }

func attach(
    _ attachment: Int, kind: String, on presentable: PresentableID, role: String = "contributor",
    context: JSONValue, session: String = "default"
) -> WireMessage {
    .attach(
        Attach(
            session: session, attachment: attachment, kind: kind, presentable: presentable.rawValue, role: role,
            context: context
        )
    )
}

func detach(_ attachment: Int, _ reason: String, session: String = "default") -> WireMessage {
    .detach(Detach(session: session, attachment: attachment, reason: reason))
}

func command(_ seq: UInt64, _ command: NavigationCommand, session: String = "default") -> WireMessage {
    .command(CommandMessage(session: session, seq: seq, command: command))
}

func heartbeat(_ sessions: [String: UInt64] = [:]) -> WireMessage { .heartbeat(Heartbeat(sessions: sessions)) }

func navigation(
    _ kind: String, _ flow: String, coordinator: Int, _ step: Step, session: String = "default"
) -> EventMessage {
    EventMessage(
        event: kind, session: session, flow: flow, coordinator: coordinator, step: step,
        text: "\(kind) navigate flow=\(flow) step=\(step)"
    )
}

func drop(_ step: Step, _ reason: String, flow: String?, coordinator: Int?, session: String = "default") -> EventMessage
{
    EventMessage(
        event: "drop", session: session, flow: flow, coordinator: coordinator, step: step, reason: reason,
        text: "dropped step=\(step) reason=\(reason)"
    )
}

/// The snapshot of the default session's first UI: stack `app` holding `home`.
let homeSnapshot = UISnapshot(
    root: "app",
    screens: [
        UISnapshot.Entry(screen: Screens.app, placement: .window, children: ["home"]),
        UISnapshot.Entry(screen: Screens.home, placement: .childOf("app")),
    ]
)
