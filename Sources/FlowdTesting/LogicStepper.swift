public import FlowClient
import FlowCore
import FlowWire
public import Logging

/// A stepper service's logic (a ``SynchronousStepperLogic``) running under an ``EmbeddedDaemon``, as
/// `StepperService` runs it in a process: each `ATTACH` (of an attachment it does not hold), `DETACH` and `ACTION`
/// becomes the logic's ``StepperInput`` at the daemon's manual time (``ManualClock/instant``), each `ADAPT` goes to its
/// `adapt`, and the steps it returns are emitted, in order, before the daemon goes on. Time passes only when the test
/// says: ``EmbeddedDaemon/passTime(_:)`` (or ``EmbeddedDaemon/advance(by:)``) hands the logic a ``StepperInput/tick``
/// for each of its `tickInterval`s the clock passed (as `StepperService` ticks it), and ``tick()`` hands it one at once.
/// After a new daemon run (``EmbeddedDaemon/restart(journal:daemonID:lazily:)`` without the state, which names
/// another run in its `WELCOME`, then the peer's `hello()`), the logic hears each attachment it held detached
/// (`daemonRestarted`) before the new run's `ATTACH`es, as a `StepperClient` reports it; a daemon recovered from its
/// journal is the same run, and what the service holds stays held.
///
/// Not `Sendable`: it belongs to its daemon's test.
public final class LogicStepper<Logic: SynchronousStepperLogic> {
    /// The peer that speaks for the logic: its attachments, the outcomes of the steps it emitted.
    public let peer: FakeStepper
    /// The logic as it is now, after every input it was given.
    public private(set) var logic: Logic
    /// What the logic threw, in order (`StepperService` logs it and emits nothing for that input).
    public private(set) var errors: [any Error] = []
    private let clock: ManualClock
    private let logger: Logger
    /// The attachments the service holds, as `StepperClient` keeps them: an `ATTACH` of one it holds is no event.
    private var held: [RemoteAttachment.ID: RemoteAttachment] = [:]
    /// When the logic's next tick is due (`nil`: it has no `tickInterval`).
    private var nextTick: ContinuousClock.Instant?
    /// The daemon run that welcomed the service last (`WELCOME.daemon`).
    private var daemonRun: String?

    init(peer: FakeStepper, logic: Logic, clock: ManualClock, logger: Logger) {
        self.peer = peer
        self.logic = logic
        self.clock = clock
        self.logger = logger
        nextTick = logic.tickInterval.map { clock.instant + $0 }
    }

    /// A tick for each `tickInterval` the clock passed since the last one.
    func catchUp() {
        guard let interval = logic.tickInterval, interval > .zero else { return }
        while let due = nextTick, due <= clock.instant {
            nextTick = due + interval
            tick()
        }
    }

    /// Hands the logic a ``StepperInput/tick`` at the daemon's time and emits what it returns (move the clock first
    /// with ``EmbeddedDaemon/advance(by:)`` when the logic reads the time).
    @discardableResult
    public func tick() -> [StepVerdict?] {
        peer.emit(emissions(for: .tick))
    }

    /// The service restarted: it forgets what it held and says `HELLO` with a new instance; the logic keeps its value
    /// (a process that restarts with another value is a new ``EmbeddedDaemon/connectStepper(name:running:logger:)``).
    public func restart(instance: String) {
        held = [:]
        peer.restart(instance: instance)
    }

    func respond(to message: DaemonMessage) -> [FakeStepper.Emission] {
        forgetIfTheDaemonRestarted() + emissions(answering: message)
    }

    /// As `StepperClient` on a `WELCOME` from another daemon run: each attachment held is detached
    /// (`daemonRestarted`) before the new run's `ATTACH`es come.
    private func forgetIfTheDaemonRestarted() -> [FakeStepper.Emission] {
        guard let run = peer.record.welcomedBy.last, run != daemonRun else { return [] }
        defer { daemonRun = run }
        guard daemonRun != nil else { return [] }
        let gone = held.values.sorted { $0.attachment < $1.attachment }
        held = [:]
        return gone.flatMap { emissions(for: .event(.detached($0, reason: "daemonRestarted"))) }
    }

    private func emissions(answering message: DaemonMessage) -> [FakeStepper.Emission] {
        switch message {
        case .attach(let attach):
            let attachment = RemoteAttachment(attach)
            guard held[attachment.id] == nil else { return [] }
            held[attachment.id] = attachment
            return emissions(for: .event(.attached(attachment)))
        case .detach(let detach):
            let id = RemoteAttachment.ID(session: detach.session, attachment: AttachmentID(detach.attachment))
            guard let attachment = held.removeValue(forKey: id) else { return [] }
            return emissions(for: .event(.detached(attachment, reason: detach.reason)))
        case .action(let action):
            let id = RemoteAttachment.ID(session: action.session, attachment: AttachmentID(action.attachment))
            guard let attachment = held[id] else { return [] }
            return emissions(for: .event(.action(action.action, on: attachment)))
        default:
            return []
        }
    }

    func answer(_ question: AdaptMessage) -> AdaptAnswer {
        do {
            return try logic.adapt(question, now: clock.instant, logger: logger)
        } catch {
            errors.append(error)
            return .refuse
        }
    }

    private func emissions(for input: StepperInput) -> [FakeStepper.Emission] {
        do {
            return try logic.handle(input, now: clock.instant, logger: logger).map { emission in
                FakeStepper.Emission(
                    session: emission.attachment.session, attachment: emission.attachment.attachment.rawValue,
                    step: emission.step
                )
            }
        } catch {
            errors.append(error)
            return []
        }
    }
}

@available(*, unavailable)
extension LogicStepper: Sendable {}

extension EmbeddedDaemon {
    /// A stepper service running `logic` connects (says `HELLO` serving its kinds, answering `ADAPT`) and gets the
    /// attachments of its kinds, handled by the logic at once (``LogicStepper``).
    public func connectStepper<Logic: SynchronousStepperLogic>(
        name: String, running logic: Logic, logger: Logger = Logger(label: "flowd.testing.stepper")
    ) -> LogicStepper<Logic> {
        let peer = FakeStepper(daemon: self, name: name, kinds: logic.kinds, respond: { _ in [] }, answerAdapt: nil)
        let runner = LogicStepper(peer: peer, logic: logic, clock: clock, logger: logger)
        // Weak: the daemon holds the peer; a test that lets the runner go leaves a peer that answers nothing.
        peer.respond = { [weak runner] in runner?.respond(to: $0) ?? [] }
        peer.answerAdapt = { [weak runner] in runner?.answer($0) }
        peer.onTimePassed = { [weak runner] in runner?.catchUp() }
        register(peer)
        peer.hello()
        return runner
    }
}
