import FlowCore

/// Drives a ``FlowCoordinatorStateMachine`` synchronously the way ``FlowCoordinator`` does, without an actor: it
/// subscribes to attached steppers (the machine calls their `readyToEmitSteps()`), cancels detached ones, keeps the
/// asynchronous adaptations the machine asks for, and handles queued stepper emissions until none is left.
///
/// Every call returns the lines (action descriptions) it produced, in order; ``log`` keeps them all. The driver keeps
/// no action values (they hold steppers), so it never extends the life of a flow or a stepper: leak tests rely on it.
/// Steps a stepper emits between calls wait in the inbox until ``pump()`` (or any other call).
///
/// Not `Sendable`: like the machine, it lives in one test.
final class MachineDriver {
    private(set) var machine = FlowCoordinatorStateMachine()
    /// Every action output so far, as lines.
    private(set) var log: [String] = []
    /// The asynchronous adaptations requested and not yet completed through ``complete(_:with:)``, in order.
    private(set) var pendingAdaptations: [AdaptRequest] = []
    private let inbox = LockedLog<CoordinatorInput>()
    private var subscriptions: [AttachmentID: (relay: StepRelay, subscription: StepRelay.Subscription)] = [:]

    init() {}

    /// Coordinates the root flow; returns the lines produced, including the steps steppers emitted meanwhile.
    @discardableResult
    func coordinate(
        flow: any Flow,
        with stepper: any Stepper = DefaultStepper(),
        allowStepWhenDismissed: Bool = false
    ) throws(FlowError) -> [String] {
        let actions = try machine.coordinate(flow: flow, with: stepper, allowStepWhenDismissed: allowStepWhenDismissed)
        var lines = perform(actions)
        lines += pump()
        return lines
    }

    /// Handles `input`, then the steps steppers emitted meanwhile; returns the lines produced.
    @discardableResult
    func handle(_ input: CoordinatorInput) -> [String] {
        var lines = perform(machine.handle(input))
        lines += pump()
        return lines
    }

    /// Handles the steps steppers emitted since the last call, and what they cause; returns the lines produced.
    @discardableResult
    func pump() -> [String] {
        var lines: [String] = []
        while true {
            let inputs = inbox.takeAll()
            if inputs.isEmpty { return lines }
            for input in inputs { lines += perform(machine.handle(input)) }
        }
    }

    /// Emits `step` from `stepper` and handles it; returns the lines produced.
    @discardableResult
    func emit(_ step: Step, from stepper: TestStepper) -> [String] {
        stepper.emit(step)
        return pump()
    }

    /// Emits a step named `name` from `stepper` and handles it; returns the lines produced.
    @discardableResult
    func emit(_ name: String, from stepper: TestStepper) -> [String] {
        emit(Step(name), from: stepper)
    }

    /// Reports the completion of a pending asynchronous adaptation (`nil`: it failed); returns the lines produced.
    @discardableResult
    func complete(_ request: AdaptRequestID, with step: Step?) -> [String] {
        pendingAdaptations.removeAll { $0.id == request }
        return handle(.adaptCompleted(request, step))
    }

    /// The live attachment of `stepper`, if it is attached.
    func attachment(of stepper: any Stepper) -> AttachmentID? {
        machine.liveAttachments.first { $0.stepper === stepper }?.id
    }

    private func perform(_ actions: [CoordinatorAction]) -> [String] {
        for action in actions {
            switch action {
            case .attach(let attachment):
                let inbox = self.inbox
                let id = attachment.id
                let subscription = attachment.stepper.steps.subscribe { step in
                    inbox.append(.stepperEmitted(id, step))
                }
                subscriptions[id] = (attachment.stepper.steps, subscription)
            case .detach(let id, _):
                if let entry = subscriptions.removeValue(forKey: id) { entry.relay.cancel(entry.subscription) }
            case .runAdapt(let request):
                pendingAdaptations.append(request)
            default:
                break
            }
        }
        let lines = actions.log
        log += lines
        return lines
    }
}
