public import Logging

/// RxFlow's `FlowCoordinator` for one process: a ``FlowCoordinatorStateMachine`` driven by an actor.
///
/// Feed it (``coordinate(flow:with:allowStepWhenDismissed:)``, ``navigate(to:)``, visibility reports) and observe it
/// (``observe(_:)``, ``actions()``, ``snapshot()``). Calls made on the actor are handled before they return, like
/// RxFlow's synchronous cascade; steps that steppers emit later, and asynchronous adaptations, are handled by
/// ``run()``, which must be running for them:
///
/// ```swift
/// let coordinator = FlowCoordinator(logger: logger)
/// try await withThrowingDiscardingTaskGroup { group in
///     group.addTask { await coordinator.run() }
///     try await coordinator.coordinate(flow: AppFlow(), with: AppStepper())
///     ...
/// }
/// ```
public actor FlowCoordinator {
    private enum InboxItem: Sendable {
        case input(CoordinatorInput)
        case adapt(AdaptRequest)
    }

    private var machine = FlowCoordinatorStateMachine()
    private let logger: Logger
    private let inbox: AsyncStream<InboxItem>
    private let inboxContinuation: AsyncStream<InboxItem>.Continuation
    private var subscriptions: [AttachmentID: (relay: StepRelay, subscription: StepRelay.Subscription)] = [:]
    private var observers: [@Sendable (CoordinatorAction) -> Void] = []
    private var actionStreams: [AsyncStream<CoordinatorAction>.Continuation] = []

    /// Makes a coordinator with no flow yet.
    public init(logger: Logger) {
        self.logger = logger
        (inbox, inboxContinuation) = AsyncStream.makeStream(of: InboxItem.self)
    }

    // MARK: - Feeding

    /// Starts the tree with its root flow; the initial steps are handled before this returns.
    ///
    /// - Throws: ``FlowError/alreadyCoordinating()`` when a root flow is coordinated already.
    public func coordinate(
        flow: sending any Flow,
        with stepper: any Stepper = DefaultStepper(),
        allowStepWhenDismissed: Bool = false
    ) throws(FlowError) {
        let actions = try machine.coordinate(flow: flow, with: stepper, allowStepWhenDismissed: allowStepWhenDismissed)
        perform(actions)
    }

    /// Deep link: offers `step` to every flow, parent first (RxFlow's `navigate(to:)`).
    public func navigate(to step: Step) {
        handle(.deepLink(step))
    }

    /// Deep link with an application step.
    public func navigate(to step: some StepConvertible) {
        navigate(to: step.step)
    }

    /// Reports that a presentable became visible or hidden.
    public func reportVisibility(of presentable: PresentableID, visible: Bool) {
        handle(.visibilityChanged(presentable, visible: visible))
    }

    /// Reports that a presentable was dismissed.
    public func reportDismissal(of presentable: PresentableID) {
        handle(.dismissed(presentable))
    }

    /// Handles any input now.
    public func handle(_ input: CoordinatorInput) {
        perform(machine.handle(input))
    }

    /// Handles the steps steppers emit and runs asynchronous adaptations, until the task is cancelled or
    /// ``finish()`` is called.
    public func run() async {
        await withDiscardingTaskGroup { group in
            for await item in inbox {
                switch item {
                case .input(let input):
                    handle(input)
                case .adapt(let request):
                    let inbox = inboxContinuation
                    group.addTask {
                        let step = try? await request.operation.run()
                        inbox.yield(.input(.adaptCompleted(request.id, step)))
                    }
                }
            }
        }
    }

    /// Ends ``run()`` once the work queued so far is handled; detaches every stepper and ends the action streams.
    public func finish() {
        inboxContinuation.finish()
        for (_, entry) in subscriptions { entry.relay.cancel(entry.subscription) }
        subscriptions = [:]
        for continuation in actionStreams { continuation.finish() }
        actionStreams = []
    }

    // MARK: - Observing

    /// Calls `observer` with every action from now on, in order, in the coordinator's isolation.
    public func observe(_ observer: @escaping @Sendable (CoordinatorAction) -> Void) {
        observers.append(observer)
    }

    /// Every action from now on, in order (buffered without limit).
    public func actions() -> AsyncStream<CoordinatorAction> {
        let (stream, continuation) = AsyncStream.makeStream(of: CoordinatorAction.self)
        actionStreams.append(continuation)
        return stream
    }

    /// RxFlow's `rx.didNavigate` for the whole tree, from now on (buffered without limit).
    public func didNavigate() -> AsyncStream<NavigationEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: NavigationEvent.self)
        observe { action in
            if case .didNavigate(let event) = action { continuation.yield(event) }
        }
        return stream
    }

    /// The live tree.
    public func snapshot() -> FlowTreeSnapshot { machine.snapshot() }

    /// The steppers attached to contributors on a presentable (to act as the user of that screen would).
    public func steppers(on presentable: PresentableID) -> [any Stepper] {
        machine.attachments(on: presentable).map(\.stepper)
    }

    /// Whether the coordinator is waiting for asynchronous adaptations.
    public var hasPendingAdaptations: Bool { !machine.pendingAdaptRequests.isEmpty }

    // MARK: - Driving

    private func perform(_ actions: [CoordinatorAction]) {
        for action in actions {
            switch action {
            case .attach(let attachment):
                let inbox = inboxContinuation
                let id = attachment.id
                let subscription = attachment.stepper.steps.subscribe { step in
                    inbox.yield(.input(.stepperEmitted(id, step)))
                }
                subscriptions[id] = (attachment.stepper.steps, subscription)
            case .detach(let id, _):
                if let entry = subscriptions.removeValue(forKey: id) { entry.relay.cancel(entry.subscription) }
            case .runAdapt(let request):
                inboxContinuation.yield(.adapt(request))
            case .stepDropped(let drop):
                logger.debug("step dropped", metadata: ["step": "\(drop.step)", "reason": "\(drop.reason)"])
            case .didNavigate(let event):
                logger.trace("did navigate", metadata: ["flow": "\(event.flow)", "step": "\(event.step)"])
            default:
                break
            }
            for observer in observers { observer(action) }
            for continuation in actionStreams { continuation.yield(action) }
        }
        // RxFlow subscribes to a stepper, then calls `readyToEmitSteps()`; steps it emits there are queued behind the
        // current cascade.
        for action in actions {
            if case .attach(let attachment) = action, subscriptions[attachment.id] != nil {
                attachment.stepper.readyToEmitSteps()
            }
        }
    }
}
