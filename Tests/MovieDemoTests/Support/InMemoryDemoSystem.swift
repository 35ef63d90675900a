import FlowCore
import FlowDaemon
import FlowWire
import FlowdTesting
import Logging
import MovieDemo
import MovieServices
import MovieVocabulary

/// The movie demo as a multi-process system, in memory: an ``EmbeddedDaemon`` running ``MovieDemoApplication``, a
/// login service and a movie service (``FakeStepper``s answering with ``LoginStepperLogic`` and
/// ``MovieStepperLogic``, which answers `ADAPT` too) and a truthful presenter (``FakePresenter``).
///
/// Time does not pass for the daemon; the login service's clock is ``loginClock``, moved by
/// ``advanceLoginClock(by:)``. With `journaling`, ``restartDaemon()`` kills the daemon and starts a new one from the
/// journal (the peers keep their own state and reconnect with ``reconnectAfterRestart(presenterRestarted:)``).
///
/// Not `Sendable`: use it from one test.
final class InMemoryDemoSystem {
    /// `WELCOME.daemon` of the first daemon; a daemon recovered from its journal keeps it.
    static let daemonID = "in-memory"
    static let session = "default"

    let daemon: EmbeddedDaemon
    private(set) var login: LoginStepperLogic
    private(set) var movies = MovieStepperLogic()
    /// The login service's clock.
    let loginClock = ManualClock()
    private(set) var loginService: FakeStepper?
    private(set) var movieService: FakeStepper?
    private(set) var presenter: FakePresenter?
    private var operatorPeer: PeerAddress?
    private var lastReq: UInt64 = 0
    private var connectedBeforeRestart: (login: Bool, movies: Bool, presenter: Bool) = (false, false, false)
    /// What the services refused.
    private(set) var serviceErrors: [ServiceError] = []

    /// A daemon with the default session (the flows start at once), no peer connected yet.
    ///
    /// - Parameter journaling: whether the daemon journals its state (``restartDaemon()``, ``handledInputs``).
    /// - Parameter application: the demo's flows: the Swift ones, or the flow file's (`FileApplication`).
    init(
        application: any FlowApplication = MovieDemoApplication(), tokenLifetime: Duration = .seconds(3600),
        journaling: Bool = false
    ) {
        login = LoginStepperLogic(service: LoginService(tokenLifetime: tokenLifetime))
        daemon = EmbeddedDaemon(application: application, daemonID: Self.daemonID, journaling: journaling)
        daemon.settle()
    }

    /// A core running the demo, as `movie-flowd` makes it (no access policy, the default configuration).
    static func makeCore(daemonID: String, journaling: Bool) -> DaemonCore {
        DaemonCore(
            application: MovieDemoApplication(), daemonID: daemonID,
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }), now: 0, journaling: journaling
        )
    }

    // MARK: - What the system did

    var core: DaemonCore {
        get { daemon.core }
        set { daemon.core = newValue }
    }
    var handledInputs: [DaemonInput] { daemon.handledInputs }
    var historyCounts: [Int] { daemon.historyCounts }
    /// The presenter's UI.
    var presentation: PresentationModel { presenter?.presentation ?? PresentationModel() }
    /// Commands the presenter could not carry out.
    var rejectedCommands: [PresentationUpdate.Rejection] { presenter?.rejectedCommands ?? [] }
    /// The presenter's routing ID, if it connected.
    var presenterPeer: PeerAddress? { presenter?.address }
    /// `did navigate …` lines from the events the daemon published.
    var didNavigate: [String] { daemon.events.filter { $0.event == "did" }.map(\.text) }
    /// `dropped step=… reason=…` lines from the events the daemon published.
    var drops: [String] { daemon.events.filter { $0.event == "drop" }.map(\.text) }
    /// `ERROR` replies any peer received, in order.
    var errors: [ErrorReply] {
        daemon.sent.compactMap {
            if case .error(let reply) = $0.message { return reply }
            return nil
        }
    }
    /// `WELCOME.daemon` of every `WELCOME` a peer received, in order.
    var welcomedBy: [String] {
        daemon.sent.compactMap {
            if case .welcome(let welcome) = $0.message { return welcome.daemon }
            return nil
        }
    }
    /// The `OK` replies to `STEP`s: `accepted` or the drop reason, in order.
    var stepOutcomes: [String] { stepVerdicts(duplicate: false) }
    /// The `OK` replies to `STEP`s sent again that the daemon recognised (`duplicate`).
    var duplicateStepOutcomes: [String] { stepVerdicts(duplicate: true) }
    /// How many `ATTACH`es the stepper services received.
    var attachesReceived: Int { (loginService?.attachesReceived ?? 0) + (movieService?.attachesReceived ?? 0) }
    /// The flow tree now, as text.
    var tree: String { daemon.tree(of: Self.session)?.description ?? "" }

    private func stepVerdicts(duplicate: Bool) -> [String] {
        daemon.sent.compactMap {
            guard case .ok(let reply) = $0.message, let verdict = try? reply.result(as: StepVerdict.self),
                verdict.duplicate == duplicate
            else { return nil }
            return verdict.outcome
        }
    }

    // MARK: - Peers

    /// The login service connects.
    func connectLoginService() {
        if let loginService { return loginService.hello() }
        loginService = daemon.connectStepper(name: "login-service", kinds: LoginStepperLogic.kinds) {
            [unowned self] message in
            serve(message) { logic, attachment, now throws(ServiceError) in
                try logic.login.attach(attachment, now: now)
            } action: { logic, action, key, now throws(ServiceError) in
                try logic.login.handle(action: action, on: key, now: now)
            } detach: { logic, key in
                logic.login.detach(key)
            }
        }
    }

    /// The movie service connects.
    func connectMovieService() {
        if let movieService { return movieService.hello() }
        movieService = daemon.connectStepper(name: "movie-service", kinds: MovieStepperLogic.kinds) {
            [unowned self] message in
            serve(message) { logic, attachment, _ throws(ServiceError) in
                try logic.movies.attach(attachment)
                return []
            } action: { logic, action, key, _ throws(ServiceError) in
                try logic.movies.handle(action: action, on: key)
            } detach: { logic, key in
                logic.movies.detach(key)
            }
        } answerAdapt: { [unowned self] question in
            let adapted = movies.adapt(
                question.step, flow: question.flow, coordinator: question.coordinator, request: question.request,
                session: question.session
            )
            return AdaptAnswer(adapted, asked: question.step)
        }
    }

    /// The presenter connects and hosts the session from a snapshot.
    func connectPresenter() {
        if let presenter {
            presenter.connect()
            return
        }
        presenter = daemon.connectPresenter(name: "movie-presenter", session: Self.session)
    }

    /// The login service is killed and started again: a new process (its tokens gone) says `HELLO` under the same
    /// name on a new connection before the daemon noticed the old one died.
    func restartLoginService() {
        login = LoginStepperLogic(service: LoginService(tokenLifetime: login.service.tokenLifetime))
        loginService?.hello()
    }

    /// The movie service leaves (`BYE`).
    func disconnectMovieService() { movieService?.bye() }

    // MARK: - A person

    /// A person acts on a screen (`USER_ACTION`); returns how many attachments got the action.
    @discardableResult
    func act(_ name: String, on presentable: PresentableID, payload: JSONValue = .null) -> Int? {
        presenter?.act(name, on: presentable, payload: payload)?.delivered
    }

    /// A person taps a stack's back button.
    func tapBack(in stack: PresentableID) throws { try presenter?.tapBack(in: stack) }

    /// A person selects a tab.
    func selectTab(_ index: Int, in tabs: PresentableID) throws { try presenter?.selectTab(index, in: tabs) }

    /// A person closes a modal.
    func dismiss(_ modal: PresentableID) throws { try presenter?.dismiss(modal) }

    /// The login service's clock moves on; expired tokens make `login.app` emit.
    func advanceLoginClock(by duration: Duration) {
        loginClock.advance(by: duration)
        guard let loginService else { return }
        loginService.emit(
            login.tick(now: loginClock.instant).map {
                FakeStepper.Emission(session: $0.attachment.session, attachment: $0.attachment.attachment, step: $0.step)
            }
        )
    }

    /// An operator (`flowctl`) sends a deep link to the session; it connects first if it has not yet (or since the
    /// daemon restarted).
    @discardableResult
    func deepLink(_ step: Step) -> Int? {
        let peer: PeerAddress
        if let operatorPeer {
            peer = operatorPeer
        } else {
            peer = daemon.newPeerAddress()
            operatorPeer = peer
            let hello = Hello(req: nextReq(), role: .operator, name: "flowctl", instance: "flowctl", heartbeatMs: 1000)
            daemon.enqueue(.hello(hello), from: peer)
        }
        let req = nextReq()
        daemon.enqueue(.deepLink(DeepLinkRequest(req: req, session: Self.session, step: step)), from: peer)
        daemon.settle()
        for delivery in daemon.sent.reversed() where delivery.peer == peer {
            if case .ok(let reply) = delivery.message, reply.req == req {
                return try? reply.result(as: DeepLinkResult.self).navigations
            }
        }
        return nil
    }

    // MARK: - Restart

    /// The daemon is killed and started again from its journal, as `movie-flowd` with a state directory after a
    /// SIGKILL; no peer is connected. The fake peers keep what they hold: call
    /// ``reconnectAfterRestart(presenterRestarted:)``.
    func restartDaemon() throws {
        connectedBeforeRestart = (loginService != nil, movieService != nil, presenter != nil)
        operatorPeer = nil
        try daemon.restart(daemonID: "in-memory-restarted")
        daemon.settle()
    }

    /// Every peer that was connected connects to the restarted daemon: the services say `HELLO` again (and get their
    /// attachments again), the presenter says `HELLO` and `SYNC`s with the last `seq` it applied, then reports what
    /// it shows after a replay, as FlowClient's presenter does.
    ///
    /// - Parameter presenterRestarted: the presenter restarted too: it lost its UI and syncs from `seq` 0 (a snapshot).
    func reconnectAfterRestart(presenterRestarted: Bool = false) {
        if connectedBeforeRestart.login { connectLoginService() }
        if connectedBeforeRestart.movies { connectMovieService() }
        guard connectedBeforeRestart.presenter, let presenter else { return }
        if presenterRestarted { presenter.forgetUI() }
        presenter.connect()
    }

    // MARK: - The services' logic

    private func nextReq() -> UInt64 {
        lastReq += 1
        return lastReq
    }

    /// Runs a service's logic for a message it received; what it refuses goes to ``serviceErrors``.
    private func serve(
        _ message: DaemonMessage,
        attach: (InMemoryDemoSystem, ServiceAttachment, ContinuousClock.Instant) throws(ServiceError)
            -> [ServiceEmission],
        action: (InMemoryDemoSystem, Step, AttachmentKey, ContinuousClock.Instant) throws(ServiceError)
            -> [ServiceEmission],
        detach: (InMemoryDemoSystem, AttachmentKey) -> Void
    ) -> [FakeStepper.Emission] {
        do {
            let emissions: [ServiceEmission]
            switch message {
            case .attach(let message):
                let attachment = ServiceAttachment(
                    key: AttachmentKey(session: message.session, attachment: message.attachment), kind: message.kind,
                    presentable: message.presentable, context: message.context, resumed: message.resumed
                )
                emissions = try attach(self, attachment, loginClock.instant)
            case .action(let message):
                let key = AttachmentKey(session: message.session, attachment: message.attachment)
                emissions = try action(self, message.action, key, loginClock.instant)
            case .detach(let message):
                detach(self, AttachmentKey(session: message.session, attachment: message.attachment))
                emissions = []
            default:
                emissions = []
            }
            return emissions.map {
                FakeStepper.Emission(session: $0.attachment.session, attachment: $0.attachment.attachment, step: $0.step)
            }
        } catch {
            serviceErrors.append(error)
            return []
        }
    }
}

@available(*, unavailable)
extension InMemoryDemoSystem: Sendable {}
