public import Logging
import Synchronization

/// RxFlow's `FlowCoordinator` for one process: a ``FlowCoordinatorStateMachine`` driven by an actor.
///
/// Feed it (``coordinate(flow:with:allowStepWhenDismissed:)``, ``navigate(to:)``, visibility reports) and observe it
/// (``observe(_:)``, ``actions()``, ``willNavigate()``, ``didNavigate()``, ``snapshot()``). Calls made on the actor
/// are handled before they return, like RxFlow's synchronous cascade, with the steps steppers emit synchronously
/// meanwhile (in `readyToEmitSteps()` or inside `navigate`); steps that steppers emit later, and asynchronous
/// adaptations, are handled by ``run()``, which must be running for them:
///
/// ```swift
/// let coordinator = FlowCoordinator(logger: logger)
/// try await withThrowingDiscardingTaskGroup { group in
///     group.addTask { await coordinator.run() }
///     let app = try await coordinator.coordinate(flow: AppFlow(), with: AppStepper())
///     if await coordinator.waitUntilReady(app) { await coordinator.navigate(to: DemoStep.movieIsPicked(withId: 23452)) }
///     ...
/// }
/// ```
public actor FlowCoordinator {
    private enum InboxItem: Sendable {
        case input(CoordinatorInput)
        case adapt(AdaptRequest)
    }

    private var machine = FlowCoordinatorStateMachine()
    private var finished = false
    private let logger: Logger
    private let inbox: AsyncStream<InboxItem>
    private let inboxContinuation: AsyncStream<InboxItem>.Continuation
    private let subscriptions = Subscriptions()
    private var observers: [@Sendable (CoordinatorAction) -> Void] = []
    private var actionStreams: [AsyncStream<CoordinatorAction>.Continuation] = []
    private var eventStreams: [AsyncStream<NavigationEvent>.Continuation] = []
    private var willNavigateStreams: [AsyncStream<NavigationEvent>.Continuation] = []
    private var readinessWaiters: [FlowCoordinatorID: [CheckedContinuation<Bool, Never>]] = [:]

    /// Makes a coordinator with no flow yet.
    public init(logger: Logger) {
        self.logger = logger
        let (inbox, inboxContinuation) = AsyncStream.makeStream(of: InboxItem.self)
        self.inbox = inbox
        self.inboxContinuation = inboxContinuation
        // Subscribe the moment a stepper is attached, as RxFlow does: what it emits after the call that attached it
        // (another thread, later) waits in the inbox; what it emits during that call is the machine's.
        let subscriptions = self.subscriptions
        machine.attachmentObserver = { attachment in
            let id = attachment.id
            let subscription = attachment.stepper.steps.subscribe { step in
                inboxContinuation.yield(.input(.stepperEmitted(id, step)))
            }
            subscriptions.add(id, relay: attachment.stepper.steps, subscription: subscription)
        }
    }

    // MARK: - Feeding

    /// Starts the tree with its root flow; returns the root flow's coordinator once its synchronous burst is handled:
    /// the initial steps, and what the steppers emit synchronously in `readyToEmitSteps()` or inside `navigate`
    /// (RxFlow S1: `navigate(b)` happens before `coordinate()` returns).
    ///
    /// - Throws: ``FlowError/alreadyCoordinating()`` while the root flow coordinated before lives (once it has ended, a
    ///   new one is coordinated: `docs/SEMANTICS.md` D19).
    @discardableResult
    public func coordinate(
        flow: sending any Flow,
        with stepper: any Stepper = DefaultStepper(),
        allowStepWhenDismissed: Bool = false
    ) throws(FlowError) -> FlowCoordinatorID {
        let actions = try machine.coordinate(flow: flow, with: stepper, allowStepWhenDismissed: allowStepWhenDismissed)
        perform(actions)
        return machine.rootCoordinatorID!
    }

    /// Waits until the coordinator's flow is ready (RxFlow's `Flows.use(flow, when: .ready)`, outside any
    /// `navigate`): `true` once it is, at once if it is already; `false` if it ends first or ``finish()`` is called.
    public func waitUntilReady(_ coordinator: FlowCoordinatorID) async -> Bool {
        if machine.isReady(coordinator) { return true }
        guard machine.isAlive(coordinator), !finished else { return false }
        return await withCheckedContinuation { continuation in
            readinessWaiters[coordinator, default: []].append(continuation)
        }
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
        finished = true
        for waiters in readinessWaiters.values { for waiter in waiters { waiter.resume(returning: false) } }
        readinessWaiters = [:]
        inboxContinuation.finish()
        subscriptions.cancelAll()
        for continuation in actionStreams { continuation.finish() }
        actionStreams = []
        for continuation in eventStreams { continuation.finish() }
        eventStreams = []
        for continuation in willNavigateStreams { continuation.finish() }
        willNavigateStreams = []
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

    /// RxFlow's `rx.willNavigate` for the whole tree, from now on (buffered without limit): each navigation right
    /// before its flow's `navigate(to:with:)`.
    public func willNavigate() -> AsyncStream<NavigationEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: NavigationEvent.self)
        willNavigateStreams.append(continuation)
        return stream
    }

    /// RxFlow's `rx.didNavigate` for the whole tree, from now on (buffered without limit).
    public func didNavigate() -> AsyncStream<NavigationEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: NavigationEvent.self)
        eventStreams.append(continuation)
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
            case .detach(let id, _):
                subscriptions.cancel(id)
            case .runAdapt(let request):
                inboxContinuation.yield(.adapt(request))
            case .stepDropped(let drop):
                logger.debug("step dropped", metadata: ["step": "\(drop.step)", "reason": "\(drop.reason)"])
            case .willNavigate(let event):
                for continuation in willNavigateStreams { continuation.yield(event) }
            case .didNavigate(let event):
                logger.trace("did navigate", metadata: ["flow": "\(event.flow)", "step": "\(event.step)"])
                for continuation in eventStreams { continuation.yield(event) }
            case .flowReady(let id):
                for waiter in readinessWaiters.removeValue(forKey: id) ?? [] { waiter.resume(returning: true) }
            case .flowEnded(let id, _):
                for waiter in readinessWaiters.removeValue(forKey: id) ?? [] { waiter.resume(returning: false) }
            default:
                break
            }
            for observer in observers { observer(action) }
            for continuation in actionStreams { continuation.yield(action) }
        }
    }
}

/// The relay subscriptions of a coordinator's attached steppers.
///
/// `Sendable`: behind a `Mutex`, because the state machine's attachment observer fills it in the middle of a call.
private final class Subscriptions: Sendable {
    private let entries = Mutex<[AttachmentID: (relay: StepRelay, subscription: StepRelay.Subscription)]>([:])

    func add(_ id: AttachmentID, relay: StepRelay, subscription: StepRelay.Subscription) {
        entries.withLock { $0[id] = (relay, subscription) }
    }

    func cancel(_ id: AttachmentID) {
        guard let entry = entries.withLock({ $0.removeValue(forKey: id) }) else { return }
        entry.relay.cancel(entry.subscription)
    }

    func cancelAll() {
        let all = entries.withLock { entries in
            defer { entries = [:] }
            return Array(entries.values)
        }
        for entry in all { entry.relay.cancel(entry.subscription) }
    }
}
