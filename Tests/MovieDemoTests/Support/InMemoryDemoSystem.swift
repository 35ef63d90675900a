import FlowCore
import FlowDaemon
import FlowWire
import Logging
import MovieDemo
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
/// Not `Sendable`: use it from one test.
final class InMemoryDemoSystem {
    static let loginPeer = PeerAddress([1])
    static let moviePeer = PeerAddress([2])
    static let presenterPeer = PeerAddress([3])
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
    private var results: [UInt64: JSONValue] = [:]
    private var lastReq: UInt64 = 0
    private var inbox: [DaemonInput] = []
    private let localSteps = LocalSteps()
    private var subscriptions: [AttachmentID: (relay: StepRelay, subscription: StepRelay.Subscription)] = [:]

    /// A daemon with the default session (the flows start at once), no peer connected yet.
    init(tokenLifetime: Duration = .seconds(3600)) {
        login = LoginStepperLogic(service: LoginService(tokenLifetime: tokenLifetime))
        core = DaemonCore(
            application: MovieDemoApplication(), daemonID: "in-memory",
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }), now: 0
        )
        perform(core.start(now: 0))
        settle()
    }

    deinit {
        for (_, entry) in subscriptions { entry.relay.cancel(entry.subscription) }
    }

    // MARK: - Peers

    /// The login service connects.
    func connectLoginService() {
        send(.hello(hello(.stepper, "login-service", serves: LoginStepperLogic.kinds)), from: Self.loginPeer)
        settle()
    }

    /// The movie service connects.
    func connectMovieService() {
        send(.hello(hello(.stepper, "movie-service", serves: MovieStepperLogic.kinds)), from: Self.moviePeer)
        settle()
    }

    /// The presenter connects and hosts the session from a snapshot.
    func connectPresenter() {
        send(.hello(hello(.presenter, "movie-presenter")), from: Self.presenterPeer)
        send(.sync(Sync(req: nextReq(), session: Self.session, lastSeq: 0)), from: Self.presenterPeer)
        settle()
    }

    /// A stepper service leaves (`BYE`).
    func disconnect(_ peer: PeerAddress) {
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

    /// The flow tree now, as text.
    var tree: String { core.tree(of: Self.session)?.description ?? "" }

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
        send(.step(message), from: peer)
    }

    /// Handles steps from the daemon's own steppers and queued messages, one at a time, until none is left.
    func settle() {
        while true {
            if let (session, attachment, step) = localSteps.popFirst() {
                perform(core.handle(.localStep(session: session, attachment: attachment, step: step), now: 0))
            } else if !inbox.isEmpty {
                perform(core.handle(inbox.removeFirst(), now: 0))
            } else {
                return
            }
        }
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
                stepOutcomes.append(accepted ? "accepted" : reply.result["reason"]?.stringValue ?? "dropped")
            }
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
            let attachment = ServiceAttachment(
                key: AttachmentKey(session: attach.session, attachment: attach.attachment), kind: attach.kind,
                presentable: attach.presentable, context: attach.context
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
