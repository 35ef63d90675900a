public import FlowCore
public import FlowDaemon
public import FlowWire

/// A truthful presenter speaking to an ``EmbeddedDaemon``: hosts one session from a `SNAPSHOT`, applies the
/// `COMMAND`s to a ``PresentationModel`` (one input's commands as one batch, as a presenter does with what arrives
/// together), acknowledges them and reports what became visible, hidden or dismissed; a person acts on it with
/// ``act(_:on:payload:)``, ``tapBack(in:)``, ``selectTab(_:in:)`` and ``dismiss(_:)``.
///
/// Not `Sendable`: it belongs to its daemon's test.
public final class FakePresenter: EmbeddedPeer {
    /// The peer's routing ID.
    public let address: PeerAddress
    /// `HELLO.name`.
    public let name: String
    /// The session it hosts.
    public let session: String
    /// What it heard from the daemon.
    public private(set) var record = PeerRecord()
    /// The UI it shows.
    public private(set) var presentation = PresentationModel()
    /// The `seq` of the last command applied.
    public private(set) var lastSeq: UInt64 = 0
    /// Commands it could not carry out.
    public private(set) var rejectedCommands: [PresentationUpdate.Rejection] = []

    private unowned let daemon: EmbeddedDaemon
    private var pendingCommands: [CommandMessage] = []

    init(daemon: EmbeddedDaemon, name: String, session: String) {
        self.daemon = daemon
        self.address = daemon.newPeerAddress()
        self.name = name
        self.session = session
    }

    /// Says `HELLO` and `SYNC`s from the last `seq` it applied; after a replay it reports what it shows (a snapshot
    /// brings its own reports), as FlowClient's presenter does. Returns the `SYNC`'s result, if an `OK` came.
    @discardableResult
    public func connect(create: Bool = false) -> SyncResult? {
        let hello = Hello(req: record.nextReq(), role: .presenter, name: name, instance: name, heartbeatMs: 1000)
        daemon.enqueue(.hello(hello), from: address)
        let req = record.nextReq()
        daemon.enqueue(.sync(Sync(req: req, session: session, lastSeq: lastSeq, create: create)), from: address)
        daemon.settle()
        let result = record.results[req].flatMap { try? SyncResult(json: $0) }
        if result?.mode == .replay {
            report(presentation.visiblePresentables.map { .visibilityChanged($0, visible: true) })
        }
        return result
    }

    /// The presenter restarted: it lost its UI, and the next ``connect(create:)`` syncs from `seq` 0 (a snapshot).
    public func forgetUI() {
        presentation = PresentationModel()
        lastSeq = 0
    }

    /// A person acts on a screen (`USER_ACTION`); returns the `OK`'s result, if one came.
    @discardableResult
    public func act(_ name: String, on presentable: PresentableID, payload: JSONValue = .null) -> UserActionResult? {
        let req = record.nextReq()
        let action = UserAction(
            req: req, session: session, presentable: presentable.rawValue, action: Step(name, payload: payload)
        )
        daemon.enqueue(.userAction(action), from: address)
        daemon.settle()
        return record.results[req].flatMap { try? UserActionResult(json: $0) }
    }

    /// A person taps a stack's back button.
    public func tapBack(in stack: PresentableID) throws(PresentationError) {
        report(try presentation.userTapsBack(in: stack))
    }

    /// A person selects a tab.
    public func selectTab(_ index: Int, in tabs: PresentableID) throws(PresentationError) {
        report(try presentation.userSelectsTab(index, in: tabs))
    }

    /// A person closes a modal.
    public func dismiss(_ modal: PresentableID) throws(PresentationError) {
        report(try presentation.userDismisses(modal))
    }

    /// Reports visibility changes and dismissals (`REPORT`), if there are any.
    public func report(_ inputs: [CoordinatorInput]) {
        guard queueReport(inputs) else { return }
        daemon.settle()
    }

    /// Says `BYE`.
    public func bye() {
        daemon.enqueue(.bye, from: address)
        daemon.settle()
    }

    @discardableResult
    private func queueReport(_ inputs: [CoordinatorInput]) -> Bool {
        let reports = inputs.compactMap(PresentableReport.init)
        guard !reports.isEmpty else { return false }
        daemon.enqueue(.report(Report(req: record.nextReq(), session: session, reports: reports)), from: address)
        return true
    }

    func receive(_ message: DaemonMessage) {
        record.note(message)
        switch message {
        case .command(let command) where command.session == session:
            pendingCommands.append(command)
        case .snapshot(let snapshot) where snapshot.session == session:
            let (model, inputs) = snapshot.ui.makeModel()
            presentation = model
            lastSeq = snapshot.seq
            daemon.enqueue(.ack(Ack(session: session, seq: snapshot.seq)), from: address)
            queueReport(inputs)
        default:
            break
        }
    }

    func endOfBatch() {
        let next = pendingCommands.filter { $0.seq > lastSeq }
        pendingCommands = []
        guard let last = next.last else { return }
        let update = presentation.apply(next.map(\.command))
        rejectedCommands += update.rejected
        lastSeq = last.seq
        daemon.enqueue(.ack(Ack(session: session, seq: lastSeq)), from: address)
        queueReport(update.reports)
    }
}

@available(*, unavailable)
extension FakePresenter: Sendable {}

extension EmbeddedDaemon {
    /// A presenter connects (`HELLO`, `SYNC`) and hosts `session` from a snapshot.
    public func connectPresenter(name: String = "presenter", session: String = "default", create: Bool = false)
        -> FakePresenter
    {
        let presenter = FakePresenter(daemon: self, name: name, session: session)
        register(presenter)
        presenter.connect(create: create)
        return presenter
    }
}
