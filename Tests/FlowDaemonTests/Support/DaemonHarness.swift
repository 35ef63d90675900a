import FlowCore
import FlowDaemon
import FlowWire
import FlowdTesting
import TestFlows
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

// MARK: - Harness

/// An ``EmbeddedDaemon`` running ``TestApplication`` (daemon ID `test-daemon`), with the messages of each role as
/// one call and times as absolute milliseconds.
///
/// Error replies are compared without their human text (the embedded daemon checks it is not empty): the harness
/// blanks it, so tests can compare whole messages with ``refused(_:_:_:)``.
struct DaemonHarness {
    let daemon: EmbeddedDaemon

    /// - Parameters:
    ///   - now: the clock's time at the start, in milliseconds.
    ///   - journaling: whether the core journals its changes (see ``restarted(journal:)``).
    ///   - accessPolicy: the allow-list peers are held to; they send with ``receive(_:from:userID:)``.
    init(
        application: any FlowApplication = TestApplication(),
        configuration: DaemonConfiguration = DaemonConfiguration(),
        now: UInt64 = 0,
        journaling: Bool = false,
        accessPolicy: AccessPolicy? = nil
    ) {
        daemon = EmbeddedDaemon(
            application: application, configuration: configuration, daemonID: "test-daemon",
            clock: ManualClock(milliseconds: now), journaling: journaling, accessPolicy: accessPolicy
        )
    }

    private init(daemon: EmbeddedDaemon) { self.daemon = daemon }

    /// A daemon restarted from this one's journal, as after a SIGKILL: a fresh core with a new run ID that recovers
    /// the state; no peer is connected. This one keeps running.
    /// `lazily`: the sessions recovery keeps pending stay so until first used (``EmbeddedDaemon/recovered(journal:daemonID:lazily:)``).
    /// `configuration`: the restarted daemon's settings (this one's by default).
    func restarted(
        journal: [[UInt8]]? = nil, lazily: Bool = false, configuration: DaemonConfiguration? = nil
    ) throws -> DaemonHarness {
        DaemonHarness(
            daemon: try daemon.recovered(
                journal: journal, daemonID: "restarted-daemon", lazily: lazily, configuration: configuration))
    }

    /// The daemon's state machine (settable: a test may call what a transport calls on it).
    var core: DaemonCore {
        get { daemon.core }
        nonmutating set { daemon.core = newValue }
    }
    /// What the daemon did when it started (the default session's creation, the recovered attachments).
    var started: DaemonOutcome { blanked(daemon.started) }
    /// Everything each peer received, in order.
    var received: [PeerAddress: [DaemonMessage]] { daemon.received.mapValues { $0.map(blanked) } }
    /// Every event published, in order.
    var events: [EventMessage] { daemon.events }

    /// Everything a session's state consists of that clients can observe: tree, UI and seq.
    func state(of session: String = "default") -> String { daemon.state(of: session) }

    // MARK: Inputs

    /// A peer sends a message (encoded with the codec).
    @discardableResult
    func receive(_ message: ClientMessage, from peer: PeerAddress, at time: UInt64? = nil) -> DaemonOutcome {
        advance(to: time)
        return blanked(daemon.receive(message, from: peer))
    }

    /// A peer sends a message on a connection admitted as `userID` (its public key, Z85; `nil`: none).
    @discardableResult
    func receive(_ message: ClientMessage, from peer: PeerAddress, userID: String?) -> DaemonOutcome {
        blanked(daemon.receive(message, from: peer, userID: userID))
    }

    /// A peer sends raw frames.
    @discardableResult
    func receive(frames: [[UInt8]], from peer: PeerAddress, at time: UInt64? = nil) -> DaemonOutcome {
        advance(to: time)
        return blanked(daemon.receive(frames: frames, from: peer))
    }

    /// Time passes to `time`.
    @discardableResult
    func tick(at time: UInt64) -> DaemonOutcome {
        advance(to: time)
        return blanked(daemon.tick())
    }

    /// Any other input.
    @discardableResult
    func handle(_ input: DaemonInput, at time: UInt64? = nil) -> DaemonOutcome {
        advance(to: time)
        return blanked(daemon.handle(input))
    }

    private func advance(to time: UInt64?) {
        guard let time else { return }
        #expect(daemon.clock.advance(toMilliseconds: time), "time goes forward")
    }

    // MARK: Conveniences

    /// `HELLO` from `peer`.
    @discardableResult
    func hello(
        _ peer: PeerAddress, _ role: PeerRole, name: String, serves: [String] = [], heartbeatMs: Int = 1000,
        req: UInt64 = 1, at time: UInt64? = nil
    ) -> DaemonOutcome {
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
    func presenter(
        _ peer: PeerAddress, name: String, session: String = "default", lastSeq: UInt64 = 0, create: Bool = false,
        at time: UInt64? = nil
    ) -> DaemonOutcome {
        hello(peer, .presenter, name: name, at: time)
        return receive(.sync(Sync(req: 2, session: session, lastSeq: lastSeq, create: create)), from: peer)
    }

    /// A `REPORT` from a presenter.
    @discardableResult
    func report(
        _ peer: PeerAddress, _ reports: [(PresentableID, PresentableState)], session: String = "default",
        req: UInt64 = 3, at time: UInt64? = nil
    ) -> DaemonOutcome {
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
    func step(
        _ peer: PeerAddress, _ step: Step, attachment: Int, session: String = "default", req: UInt64 = 2,
        at time: UInt64? = nil
    ) -> DaemonOutcome {
        receive(
            .step(StepMessage(req: req, session: session, attachment: attachment, step: step)), from: peer, at: time)
    }

    /// A `DEEPLINK` from an operator.
    @discardableResult
    func deepLink(_ peer: PeerAddress, _ step: Step, session: String = "default", req: UInt64 = 2) -> DaemonOutcome {
        receive(.deepLink(DeepLinkRequest(req: req, session: session, step: step)), from: peer)
    }

    // MARK: Error texts

    private func blanked(_ outcome: DaemonOutcome) -> DaemonOutcome {
        var blanked = outcome
        blanked.sent = outcome.sent.map { Delivery($0.peer, self.blanked($0.message)) }
        return blanked
    }

    private func blanked(_ message: DaemonMessage) -> DaemonMessage {
        guard case .error(var reply) = message else { return message }
        reply.message = ""
        return .error(reply)
    }
}

// MARK: - Expected messages

func welcome(req: UInt64 = 1, peer: String, heartbeatMs: Int = 1000) -> DaemonMessage {
    .welcome(Welcome(req: req, peer: peer, daemon: "test-daemon", heartbeatMs: heartbeatMs, protocol: 1))
}

func ok(_ req: UInt64, _ result: JSONValue = [:]) -> DaemonMessage { .ok(OKReply(req: req, result: result)) }

/// An `ERROR` reply as the harness shows it (text blanked).
func refused(_ req: UInt64?, _ code: WireError.Code, _ type: MessageType?) -> DaemonMessage {
    .error(ErrorReply(req: req, code: code, message: "", type: type?.rawValue))
}

let accepted: JSONValue = ["accepted": true]
func dropped(_ reason: String) -> JSONValue { ["accepted": false, "reason": .string(reason)] }

func attach(
    _ attachment: Int, kind: String, on presentable: PresentableID, role: String = "contributor",
    context: JSONValue, session: String = "default"
) -> DaemonMessage {
    .attach(
        Attach(
            session: session, attachment: attachment, kind: kind, presentable: presentable.rawValue, role: role,
            context: context
        )
    )
}

func detach(_ attachment: Int, _ reason: String, session: String = "default") -> DaemonMessage {
    .detach(Detach(session: session, attachment: attachment, reason: reason))
}

func command(_ seq: UInt64, _ command: NavigationCommand, session: String = "default") -> DaemonMessage {
    .command(CommandMessage(session: session, seq: seq, command: command))
}

func heartbeat(_ sessions: [String: UInt64] = [:]) -> DaemonMessage { .heartbeat(Heartbeat(sessions: sessions)) }

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
