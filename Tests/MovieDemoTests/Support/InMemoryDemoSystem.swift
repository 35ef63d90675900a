import FlowCore
import FlowDaemon
import FlowWire
import Logging
import MovieDemo
import MovieVocabulary
import MovieServices
import Synchronization
import Testing

/// The movie demo as a multi-process system, in memory: FlowDaemon's ``DaemonCore`` running
/// ``MovieDemoApplication``, fake peers that exchange encoded messages with it: a login service and a movie service
/// (``LoginStepperLogic`` and ``MovieStepperLogic`` answering `ATTACH`, `DETACH` and `ACTION`) and a truthful
/// presenter (a ``PresentationModel`` applying `SNAPSHOT`s and `COMMAND`s, acknowledging and reporting them).
///
/// Every message goes through the wire codec. Messages and steps are handled one at a time, first in first out,
/// until nothing is left (``settle()``); the commands one daemon input sends the presenter are applied as one batch,
/// as a presenter does with what arrives together. Time does not pass for the daemon; the login service's clock is
/// ``loginNow``, moved by ``advanceLoginClock(by:)``.
///
/// With `journaling`, the core journals its state: ``restartDaemon()`` kills it and starts a new one from the journal
/// (the peers keep their own state and reconnect with ``reconnectAfterRestart(presenterRestarted:)``), and every input
/// the core handled is kept (``handledInputs``) with the journal's length after it (``historyCounts``), so that a test
/// can rebuild the core as it was after any input.
///
/// Not `Sendable`: use it from one test.
final class InMemoryDemoSystem {
    static let loginPeer = PeerAddress([1])
    static let moviePeer = PeerAddress([2])
    static let presenterPeer = PeerAddress([3])
    static let operatorPeer = PeerAddress([4])
    /// `WELCOME.daemon` of the first core; a core recovered from its journal keeps it.
    static let daemonID = "in-memory"
    static let session = "default"

    private(set) var core: DaemonCore
    private let codec = WireCodec()
    private(set) var login: LoginStepperLogic
    private(set) var movies = MovieStepperLogic()
    /// The login service's clock.
    private(set) var loginNow = ContinuousClock.now
    /// The presenter's UI.
    private(set) var presentation = PresentationModel()
    private(set) var lastSeq: UInt64 = 0

    /// `did navigate …` lines from the events the daemon published.
    private(set) var didNavigate: [String] = []
    /// `dropped step=… reason=…` lines from the events the daemon published.
    private(set) var drops: [String] = []
    /// `ERROR` replies any fake peer received.
    private(set) var errors: [ErrorReply] = []
    /// What the services refused.
    private(set) var serviceErrors: [ServiceError] = []
    /// The `OK` replies to `STEP`s: `accepted` or the drop reason.
    private(set) var stepOutcomes: [String] = []
    /// Commands the presenter could not carry out.
    private(set) var rejectedCommands: [PresentationUpdate.Rejection] = []
    /// The `OK` replies to `STEP`s sent again that the daemon recognised (`duplicate`): `accepted` or the reason.
    private(set) var duplicateStepOutcomes: [String] = []
    /// `WELCOME.daemon` of every `WELCOME` a fake peer received, in order.
    private(set) var welcomedBy: [String] = []
    /// How many `ATTACH`es the stepper services received.
    private(set) var attachesReceived = 0
    /// Whether the core journals its changes (see ``restartDaemon()``).
    let journaling: Bool
    /// Every input the core handled, in order (kept when journaling).
    private(set) var handledInputs: [DaemonInput] = []
    /// How many journal records the state had after the core started (`[0]`) and after each of ``handledInputs``
    /// (kept when journaling).
    private(set) var historyCounts: [Int] = []
    /// The last `STEP` each stepper service sent, to send it again (``resendLastStep(from:)``).
    private var lastSteps: [PeerAddress: StepMessage] = [:]
    /// The peers connected (said `HELLO` and not `BYE`) to the daemon running now.
    private var connected: Set<PeerAddress> = []
    private var operatorConnected: Bool { connected.contains(Self.operatorPeer) }
    private var connectedBeforeRestart: Set<PeerAddress> = []
    private var results: [UInt64: JSONValue] = [:]
    private var lastReq: UInt64 = 0
    private var inbox: [DaemonInput] = []
    private let localSteps = LocalSteps()
    private var subscriptions: [AttachmentID: (relay: StepRelay, subscription: StepRelay.Subscription)] = [:]

    /// A daemon with the default session (the flows start at once), no peer connected yet.
    ///
    /// - Parameter journaling: whether the core journals its state (``restartDaemon()``, ``handledInputs``).
    init(tokenLifetime: Duration = .seconds(3600), journaling: Bool = false) {
        login = LoginStepperLogic(service: LoginService(tokenLifetime: tokenLifetime))
        self.journaling = journaling
        core = Self.makeCore(daemonID: Self.daemonID, journaling: journaling)
        perform(core.start(now: 0))
        if journaling { historyCounts.append(core.journalRecordCount) }
        settle()
    }

    /// A core running the demo, as `flowd` makes it (no access policy, the default configuration).
    static func makeCore(daemonID: String, journaling: Bool) -> DaemonCore {
        DaemonCore(
            application: MovieDemoApplication(), daemonID: daemonID,
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }), now: 0, journaling: journaling
        )
    }

    deinit {
        for (_, entry) in subscriptions { entry.relay.cancel(entry.subscription) }
    }

    // MARK: - Peers

    /// The login service connects.
    func connectLoginService() {
        connected.insert(Self.loginPeer)
        send(.hello(hello(.stepper, "login-service", serves: LoginStepperLogic.kinds)), from: Self.loginPeer)
        settle()
    }

    /// The movie service connects.
    func connectMovieService() {
        connected.insert(Self.moviePeer)
        send(.hello(hello(.stepper, "movie-service", serves: MovieStepperLogic.kinds)), from: Self.moviePeer)
        settle()
    }

    /// The presenter connects and hosts the session from a snapshot.
    func connectPresenter() {
        connected.insert(Self.presenterPeer)
        send(.hello(hello(.presenter, "movie-presenter")), from: Self.presenterPeer)
        send(.sync(Sync(req: nextReq(), session: Self.session, lastSeq: 0)), from: Self.presenterPeer)
        settle()
    }

    /// The login service is killed and started again: a new process (its tokens gone) says `HELLO` under the same
    /// name on a new connection before the daemon noticed the old one died.
    func restartLoginService() {
        login = LoginStepperLogic(service: LoginService(tokenLifetime: login.service.tokenLifetime))
        send(.hello(hello(.stepper, "login-service", serves: LoginStepperLogic.kinds)), from: Self.loginPeer)
        settle()
    }

    /// A stepper service leaves (`BYE`).
    func disconnect(_ peer: PeerAddress) {
        connected.remove(peer)
        send(.bye, from: peer)
        settle()
    }

    // MARK: - A person

    /// A person acts on a screen (`USER_ACTION`); returns how many attachments got the action.
    @discardableResult
    func act(_ name: String, on presentable: PresentableID, payload: StepPayload = .null) -> Int? {
        let req = nextReq()
        let action = Step(name, payload: payload)
        let message = UserAction(req: req, session: Self.session, presentable: presentable.rawValue, action: action)
        send(.userAction(message), from: Self.presenterPeer)
        settle()
        return results[req]?["delivered"]?.intValue
    }

    /// A person taps a stack's back button.
    func tapBack(in stack: PresentableID) throws {
        report(try presentation.userTapsBack(in: stack))
    }

    /// A person selects a tab.
    func selectTab(_ index: Int, in tabs: PresentableID) throws {
        report(try presentation.userSelectsTab(index, in: tabs))
    }

    /// A person closes a modal.
    func dismiss(_ modal: PresentableID) throws {
        report(try presentation.userDismisses(modal))
    }

    /// The login service's clock moves on; expired tokens make `login.app` emit.
    func advanceLoginClock(by duration: Duration) {
        loginNow += duration
        for emission in login.tick(now: loginNow) { emit(emission, from: Self.loginPeer) }
        settle()
    }

    /// An operator (`flowctl`) sends a deep link to the session; it connects first if it has not yet.
    @discardableResult
    func deepLink(_ step: Step) -> Int? {
        if !operatorConnected {
            send(.hello(hello(.operator, "flowctl")), from: Self.operatorPeer)
            connected.insert(Self.operatorPeer)
        }
        let req = nextReq()
        send(.deepLink(DeepLinkRequest(req: req, session: Self.session, step: step)), from: Self.operatorPeer)
        settle()
        return results[req]?["navigations"]?.intValue
    }

    /// The flow tree now, as text.
    var tree: String { core.tree(of: Self.session)?.description ?? "" }

    // MARK: - Restart

    /// The daemon is killed and started again from its journal, as `flowd` with a state directory after a SIGKILL:
    /// a new core (its own run ID) recovers the state and starts; what was on its way to the old one (queued
    /// messages, steps of its own steppers not handled yet) is lost with it, and no peer is connected. The fake peers
    /// keep what they hold: call ``reconnectAfterRestart(presenterRestarted:)``.
    func restartDaemon() throws {
        guard journaling else {
            Issue.record("restartDaemon() needs a journaling system")
            return
        }
        for (_, entry) in subscriptions { entry.relay.cancel(entry.subscription) }
        subscriptions = [:]
        inbox = []
        while localSteps.popFirst() != nil {}
        var restarted = Self.makeCore(daemonID: "in-memory-restarted", journaling: true)
        _ = try restarted.recover(from: core.journalHistory)
        core = restarted
        connectedBeforeRestart = connected
        connected = []
        perform(core.start(now: 0))
        settle()
    }

    /// Every peer that was connected connects to the restarted daemon: the services say `HELLO` again (and get their
    /// attachments again), the presenter says `HELLO` and `SYNC`s with the last `seq` it applied, then reports what
    /// it shows (after a replay; a snapshot brings its own reports), as ``FlowClient``'s presenter does. The operator
    /// says `HELLO` again with its next deep link.
    ///
    /// - Parameter presenterRestarted: the presenter restarted too: it lost its UI and syncs from `seq` 0 (a snapshot).
    func reconnectAfterRestart(presenterRestarted: Bool = false) {
        let wasConnected = connectedBeforeRestart
        if wasConnected.contains(Self.loginPeer) { connectLoginService() }
        if wasConnected.contains(Self.moviePeer) { connectMovieService() }
        guard wasConnected.contains(Self.presenterPeer) else { return }
        connected.insert(Self.presenterPeer)
        if presenterRestarted {
            presentation = PresentationModel()
            lastSeq = 0
        }
        send(.hello(hello(.presenter, "movie-presenter")), from: Self.presenterPeer)
        let req = nextReq()
        send(.sync(Sync(req: req, session: Self.session, lastSeq: lastSeq)), from: Self.presenterPeer)
        settle()
        if results[req]?["mode"]?.stringValue == "replay" {
            let shown = presentation.visiblePresentables.map { PresentableReport(presentable: $0.rawValue, state: .visible) }
            if !shown.isEmpty {
                send(.report(Report(req: nextReq(), session: Self.session, reports: shown)), from: Self.presenterPeer)
                settle()
            }
        }
    }

    /// A stepper service sends its last `STEP` again, with the same `req` (its reply was lost); returns the `OK`'s
    /// result, if any.
    @discardableResult
    func resendLastStep(from peer: PeerAddress) -> JSONValue? {
        guard let message = lastSteps[peer] else { return nil }
        results[message.req] = nil
        send(.step(message), from: peer)
        settle()
        return results[message.req]
    }

    // MARK: - Driving

    private func hello(_ role: PeerRole, _ name: String, serves: [String] = []) -> Hello {
        Hello(req: nextReq(), role: role, name: name, instance: name, heartbeatMs: 1000, serves: serves)
    }

    private func nextReq() -> UInt64 {
        lastReq += 1
        return lastReq
    }

    private func send(_ message: WireMessage, from peer: PeerAddress) {
        inbox.append(.message(from: peer, frames: codec.encode(message)))
    }

    private func report(_ inputs: [CoordinatorInput]) {
        let reports = inputs.compactMap(PresentableReport.init)
        guard !reports.isEmpty else { return }
        send(.report(Report(req: nextReq(), session: Self.session, reports: reports)), from: Self.presenterPeer)
        settle()
    }

    private func emit(_ emission: ServiceEmission, from peer: PeerAddress) {
        let message = StepMessage(
            req: nextReq(), session: emission.attachment.session, attachment: emission.attachment.attachment,
            step: emission.step
        )
        lastSteps[peer] = message
        send(.step(message), from: peer)
    }

    /// Handles steps from the daemon's own steppers and queued messages, one at a time, until none is left.
    func settle() {
        while true {
            if let (session, attachment, step) = localSteps.popFirst() {
                handle(.localStep(session: session, attachment: attachment, step: step))
            } else if !inbox.isEmpty {
                handle(inbox.removeFirst())
            } else {
                return
            }
        }
    }

    private func handle(_ input: DaemonInput) {
        let outputs = core.handle(input, now: 0)
        if journaling {
            handledInputs.append(input)
            historyCounts.append(core.journalRecordCount)
        }
        perform(outputs)
    }

    private func perform(_ outputs: [DaemonOutput]) {
        var commands: [CommandMessage] = []
        var attached: [any Stepper] = []
        for output in outputs {
            switch output {
            case .send(let peer, let message):
                // What the peer receives is what the codec makes of the frames.
                guard let received = try? codec.decode(codec.encode(message)) else {
                    Issue.record("the daemon sent a message the codec cannot read back: \(message)")
                    continue
                }
                if peer == Self.presenterPeer, case .command(let command) = received {
                    commands.append(command)
                } else {
                    receive(received, at: peer)
                }
            case .publish(let event):
                switch event.event {
                case "did": didNavigate.append(event.text)
                case "drop": drops.append(event.text)
                default: break
                }
            case .attachLocal(let session, let attachment):
                let steps = localSteps
                let id = attachment.id
                let subscription = attachment.stepper.steps.subscribe { step in steps.append(session, id, step) }
                subscriptions[id] = (attachment.stepper.steps, subscription)
                attached.append(attachment.stepper)
            case .resumeLocal(let session, let attachment):
                let steps = localSteps
                let id = attachment.id
                let subscription = attachment.stepper.steps.subscribe { step in steps.append(session, id, step) }
                subscriptions[id] = (attachment.stepper.steps, subscription)
            case .detachLocal(_, let id):
                if let entry = subscriptions.removeValue(forKey: id) { entry.relay.cancel(entry.subscription) }
            case .runAdapt(_, let request):
                Issue.record("the demo's flows adapt synchronously: \(request)")
            }
        }
        for stepper in attached { stepper.readyToEmitSteps() }
        presenterApplies(commands)
    }

    private func presenterApplies(_ commands: [CommandMessage]) {
        let next = commands.filter { $0.seq > lastSeq }
        guard let last = next.last else { return }
        let update = presentation.apply(next.map(\.command))
        rejectedCommands += update.rejected
        lastSeq = last.seq
        send(.ack(Ack(session: Self.session, seq: lastSeq)), from: Self.presenterPeer)
        let reports = update.reports.compactMap(PresentableReport.init)
        if !reports.isEmpty {
            send(.report(Report(req: nextReq(), session: Self.session, reports: reports)), from: Self.presenterPeer)
        }
    }

    private func receive(_ message: WireMessage, at peer: PeerAddress) {
        switch message {
        case .ok(let reply):
            results[reply.req] = reply.result
            if case .bool(let accepted)? = reply.result["accepted"] {
                let outcome = accepted ? "accepted" : reply.result["reason"]?.stringValue ?? "dropped"
                if reply.result["duplicate"] == true {
                    duplicateStepOutcomes.append(outcome)
                } else {
                    stepOutcomes.append(outcome)
                }
            }
        case .welcome(let welcome):
            welcomedBy.append(welcome.daemon)
        case .error(let reply):
            errors.append(reply)
        case .snapshot(let snapshot):
            let (model, inputs) = snapshot.ui.makeModel()
            presentation = model
            lastSeq = snapshot.seq
            send(.ack(Ack(session: snapshot.session, seq: snapshot.seq)), from: peer)
            let reports = inputs.compactMap(PresentableReport.init)
            if !reports.isEmpty {
                send(.report(Report(req: nextReq(), session: snapshot.session, reports: reports)), from: peer)
            }
        case .attach(let attach):
            attachesReceived += 1
            let attachment = ServiceAttachment(
                key: AttachmentKey(session: attach.session, attachment: attach.attachment), kind: attach.kind,
                presentable: attach.presentable, context: attach.context, resumed: attach.resumed
            )
            serve(at: peer) { login, movies, now throws(ServiceError) in
                if peer == Self.loginPeer { return try login.attach(attachment, now: now) }
                try movies.attach(attachment)
                return []
            }
        case .detach(let detach):
            let key = AttachmentKey(session: detach.session, attachment: detach.attachment)
            if peer == Self.loginPeer { login.detach(key) } else { movies.detach(key) }
        case .action(let action):
            let key = AttachmentKey(session: action.session, attachment: action.attachment)
            serve(at: peer) { login, movies, now throws(ServiceError) in
                if peer == Self.loginPeer { return try login.handle(action: action.action, on: key, now: now) }
                return try movies.handle(action: action.action, on: key)
            }
        default:
            break
        }
    }

    private func serve(
        at peer: PeerAddress,
        _ body: (inout LoginStepperLogic, inout MovieStepperLogic, ContinuousClock.Instant) throws(ServiceError)
            -> [ServiceEmission]
    ) {
        do {
            for emission in try body(&login, &movies, loginNow) { emit(emission, from: peer) }
        } catch {
            serviceErrors.append(error)
        }
    }
}

@available(*, unavailable)
extension InMemoryDemoSystem: Sendable {}

extension JSONValue {
    fileprivate subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }
}

/// Steps the daemon's own steppers emitted, waiting to be fed back. `Sendable`: behind a `Mutex`.
private final class LocalSteps: Sendable {
    private let items = Mutex<[(String, AttachmentID, Step)]>([])

    func append(_ session: String, _ attachment: AttachmentID, _ step: Step) {
        items.withLock { $0.append((session, attachment, step)) }
    }

    func popFirst() -> (String, AttachmentID, Step)? {
        items.withLock { $0.isEmpty ? nil : $0.removeFirst() }
    }
}
