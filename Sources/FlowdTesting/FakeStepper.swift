public import FlowCore
public import FlowDaemon
public import FlowWire

/// A stepper service speaking to an ``EmbeddedDaemon``: says `HELLO` serving some kinds, holds the attachments the
/// daemon gives it, emits `STEP`s, and answers `ATTACH`, `DETACH` and `ACTION` with ``respond`` (a service's logic);
/// with ``answerAdapt``, it says it answers `ADAPT` and answers each with it.
///
/// Not `Sendable`: it belongs to its daemon's test.
public final class FakeStepper: EmbeddedPeer {
    /// A step to emit on an attachment.
    public struct Emission: Sendable {
        public var session: String
        public var attachment: Int
        public var step: Step

        public init(session: String = "default", attachment: Int, step: Step) {
            self.session = session
            self.attachment = attachment
            self.step = step
        }
    }

    /// The peer's routing ID.
    public let address: PeerAddress
    /// `HELLO.name`.
    public let name: String
    /// The kinds it serves (`HELLO.serves`).
    public let kinds: [String]
    /// What it heard from the daemon.
    public private(set) var record = PeerRecord()
    /// The attachments it holds now, in the order they came.
    public private(set) var attachments: [Attach] = []
    /// How many `ATTACH`es it received.
    public private(set) var attachesReceived = 0
    /// The outcome of every `STEP` it sent, in order: `accepted` or the drop reason.
    public private(set) var stepOutcomes: [String] = []
    /// The outcomes of `STEP`s sent again that the daemon recognised (`duplicate`).
    public private(set) var duplicateStepOutcomes: [String] = []
    /// The service's logic: the steps to emit for an `ATTACH`, `DETACH` or `ACTION` it received. A FlowClient
    /// `SynchronousStepperLogic` runs here as it does in a process with ``EmbeddedDaemon/connectStepper(name:running:logger:)``.
    public var respond: (DaemonMessage) -> [Emission]
    /// Its answer to an `ADAPT` (`nil`: it does not answer that one, now); `nil`: it does not answer `ADAPT` at all
    /// (its `HELLO` says so, and the daemon sends it none).
    public var answerAdapt: ((AdaptMessage) -> AdaptAnswer?)?
    /// What keeps time for the service's logic (``LogicStepper``), called when the test moves the clock.
    var onTimePassed: (() -> Void)?
    /// The `ADAPT`s it received, in order.
    public private(set) var adaptsReceived: [AdaptMessage] = []

    private unowned let daemon: EmbeddedDaemon
    private var lastStep: StepMessage?

    init(
        daemon: EmbeddedDaemon, name: String, kinds: [String], respond: @escaping (DaemonMessage) -> [Emission],
        answerAdapt: ((AdaptMessage) -> AdaptAnswer?)?
    ) {
        self.daemon = daemon
        self.address = daemon.newPeerAddress()
        self.name = name
        self.kinds = kinds
        self.respond = respond
        self.answerAdapt = answerAdapt
    }

    /// Says `HELLO` (again, after a restart of either side: the daemon attaches it again).
    public func hello(instance: String? = nil, heartbeatMs: Int = 1000) {
        let hello = Hello(
            req: record.nextReq(), role: .stepper, name: name, instance: instance ?? name, heartbeatMs: heartbeatMs,
            serves: kinds, adapts: answerAdapt != nil
        )
        daemon.enqueue(.hello(hello), from: address)
        daemon.settle()
    }

    /// The service restarted: it forgets its attachments and says `HELLO` with a new instance. (A ``LogicStepper``'s
    /// service restarts with ``LogicStepper/restart(instance:)``, which makes its logic forget them too.)
    public func restart(instance: String) {
        attachments = []
        hello(instance: instance)
    }

    /// Emits `step` on an attachment; returns the `OK`'s verdict, if one came.
    @discardableResult
    public func emit(_ step: Step, attachment: Int, session: String = "default") -> StepVerdict? {
        let req = queue(Emission(session: session, attachment: attachment, step: step))
        daemon.settle()
        return verdict(req)
    }

    /// Emits several steps at once (queued together, then handled); returns each `OK`'s verdict, if one came.
    @discardableResult
    public func emit(_ emissions: [Emission]) -> [StepVerdict?] {
        let reqs = emissions.map { queue($0) }
        daemon.settle()
        return reqs.map(verdict)
    }

    /// Sends its last `STEP` again with the same `req` (as after a lost reply); returns the `OK`'s verdict, if any.
    @discardableResult
    public func resendLastStep() -> StepVerdict? {
        guard let lastStep else { return nil }
        record.results[lastStep.req] = nil
        daemon.enqueue(.step(lastStep), from: address)
        daemon.settle()
        return verdict(lastStep.req)
    }

    private func verdict(_ req: UInt64) -> StepVerdict? {
        record.results[req].flatMap { try? StepVerdict(json: $0) }
    }

    /// Sends `ADAPTED` (an answer of its own choosing, right or wrong).
    public func answer(_ answer: AdaptAnswer, request: Int, session: String = "default") {
        daemon.enqueue(.adapted(AdaptedMessage(session: session, request: request, answer: answer)), from: address)
        daemon.settle()
    }

    /// Says `BYE`.
    public func bye() {
        daemon.enqueue(.bye, from: address)
        daemon.settle()
    }

    @discardableResult
    private func queue(_ emission: Emission) -> UInt64 {
        let message = StepMessage(
            req: record.nextReq(), session: emission.session, attachment: emission.attachment, step: emission.step
        )
        lastStep = message
        daemon.enqueue(.step(message), from: address)
        return message.req
    }

    func endOfBatch() {}

    func timePassed() { onTimePassed?() }

    func receive(_ message: DaemonMessage) {
        record.note(message)
        switch message {
        case .ok(let reply):
            guard let verdict = try? reply.result(as: StepVerdict.self) else { break }
            if verdict.duplicate {
                duplicateStepOutcomes.append(verdict.outcome)
            } else {
                stepOutcomes.append(verdict.outcome)
            }
        case .attach(let attach):
            attachesReceived += 1
            attachments.removeAll { $0.session == attach.session && $0.attachment == attach.attachment }
            attachments.append(attach)
            for emission in respond(message) { queue(emission) }
        case .detach(let detach):
            attachments.removeAll { $0.session == detach.session && $0.attachment == detach.attachment }
            for emission in respond(message) { queue(emission) }
        case .action:
            for emission in respond(message) { queue(emission) }
        case .adapt(let question):
            adaptsReceived.append(question)
            guard let answer = answerAdapt?(question) else { break }
            let body = AdaptedMessage(session: question.session, request: question.request, answer: answer)
            daemon.enqueue(.adapted(body), from: address)
        default:
            break
        }
    }
}

@available(*, unavailable)
extension FakeStepper: Sendable {}

extension EmbeddedDaemon {
    /// A stepper service connects (says `HELLO`) and gets the attachments of its kinds.
    ///
    /// - Parameters:
    ///   - respond: its logic: the steps to emit for an `ATTACH`, `DETACH` or `ACTION` received.
    ///   - answerAdapt: its answer to an `ADAPT`; `nil`: it does not answer `ADAPT`.
    public func connectStepper(
        name: String, kinds: [String], respond: @escaping (DaemonMessage) -> [FakeStepper.Emission] = { _ in [] },
        answerAdapt: ((AdaptMessage) -> AdaptAnswer?)? = nil
    ) -> FakeStepper {
        let stepper = FakeStepper(daemon: self, name: name, kinds: kinds, respond: respond, answerAdapt: answerAdapt)
        register(stepper)
        stepper.hello()
        return stepper
    }
}

extension StepVerdict {
    /// `accepted`, or the drop reason (`dropped` when the daemon gave none): what ``FakeStepper/stepOutcomes`` lists.
    public var outcome: String { accepted ? "accepted" : reason ?? "dropped" }
}
