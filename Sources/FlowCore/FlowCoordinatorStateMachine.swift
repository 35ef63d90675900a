/// RxFlow's coordinator tree as a deterministic state machine with no I/O.
///
/// Inputs go in (``coordinate(flow:with:allowStepWhenDismissed:)`` and ``handle(_:)``); ordered
/// ``CoordinatorAction``s come out: will/did-navigate events, navigation commands, stepper attach/detach, async
/// adaptations to run, tree changes and dropped steps. The same inputs in the same order give the same actions and
/// the same tree (``snapshot()``), which is what makes it testable alone and recoverable by replaying a journal.
///
/// Scheduling follows RxFlow's (`docs/SEMANTICS.md`): every input runs to completion before the call returns. Each
/// coordinator has its own FIFO queue of steps and the coordinators with steps waiting take turns, one step per turn
/// (RxFlow's per-coordinator `observe(on: CurrentThreadScheduler)` on the thread's trampoline); forwards to the
/// current flow wait until every queue is empty (RxFlow's next main-queue turn). The machine listens to the steppers
/// it attaches: it calls their `readyToEmitSteps()` as it attaches them, and a step they emit synchronously during a
/// call (there, or inside `navigate`) joins that coordinator's queue in the same call.
///
/// Not `Sendable`: it owns the flows, which are non-`Sendable` classes. Keep it in one isolation domain (an actor).
public struct FlowCoordinatorStateMachine {
    /// Where a queued step came from: decides nothing but the drop report.
    enum Source {
        case stepper(AttachmentID)
        case forward
        case deepLink

        var attachment: AttachmentID? {
            if case .stepper(let id) = self { return id }
            return nil
        }
    }

    struct WorkItem {
        let coordinator: FlowCoordinatorID
        let step: Step
        let source: Source
    }

    struct Node {
        let flow: any Flow
        let flowName: String
        let rootID: PresentableID
        let parent: FlowCoordinatorID?
        let allowStepWhenDismissed: Bool
        var children: [FlowCoordinatorID] = []
        var attachments: [AttachmentID] = []
        var isReady = false
        /// Whether the flow has navigated once (a step adapted away counts, as RxFlow navigates it as NoneStep):
        /// readiness is decided by its first navigation only (D6).
        var hasNavigated = false
        /// Child flows this flow's readiness waits for (RxFlow's `zip` of child readiness).
        var awaitedChildren: [FlowCoordinatorID] = []
    }

    struct Attachment {
        let info: StepperAttachment
        /// A contributor's initial step held until its presentable is first visible (`docs/SEMANTICS.md` D8).
        var pendingInitialStep: Step?
    }

    struct PresentableState {
        var isVisible = false
        var isDismissed = false
        var attachments: [AttachmentID] = []
    }

    struct PendingAdapt {
        let coordinator: FlowCoordinatorID
        let step: Step
    }

    struct PendingReadiness {
        let registrant: FlowCoordinatorID
        let waiter: ReadinessWaiter
        /// The waiter's flows that were ready while it waited and have ended since: they have given their part, as
        /// in RxFlow's `zip` of each flow's first ready event (D6).
        var endedReady: [ObjectIdentifier] = []
    }

    var nodes = IDTable<FlowCoordinatorID, Node>()
    var rootCoordinator: FlowCoordinatorID?
    var coordinatorByFlow: [ObjectIdentifier: FlowCoordinatorID] = [:]
    /// The live coordinators by their flow's root, in ID order: a dismissal finds the flows it ends without visiting
    /// every flow.
    var coordinatorsByRoot: [PresentableID: [FlowCoordinatorID]] = [:]
    var attachments = IDTable<AttachmentID, Attachment>()
    var presentables: [PresentableID: PresentableState] = [:]
    /// The dismissed presentables no stepper listens to any more, oldest first: the machine remembers the last
    /// ``dismissedRemembered`` of them (D11: late reports cannot revive them) and forgets older ones, so what it keeps
    /// follows the live UI, not every ID ever dismissed. Bounded, so taking from its front stays cheap.
    var forgettingOrder: [PresentableID] = []
    /// How many dismissed presentables with no stepper left the machine remembers.
    public static let dismissedRemembered = 256
    var pendingAdapts: [AdaptRequestID: PendingAdapt] = [:]
    var pendingReadiness: [PendingReadiness] = []

    var lastCoordinatorNumber = 0
    var lastAttachmentNumber = 0
    var lastAdaptNumber = 0
    /// How many `CompositeStepper`s this machine attached (as their inner steppers) since it was made or restored:
    /// a daemon replaying records numbered before that (docs/RELIABILITY.md, "Replay") checks it. Not saved.
    public internal(set) var compositesAttached = 0

    /// Each coordinator's steps waiting for its turn, in order: a coordinator is here exactly while it is in
    /// ``turns`` (taking its turn, in ``turnTaker``).
    var queues: [FlowCoordinatorID: [WorkItem]] = [:]
    /// The coordinator taking its turn, whose queue is here rather than in ``queues`` while the turn runs: one
    /// lookup a turn, not one per look at the queue.
    var turnTaker: FlowCoordinatorID?
    var turnTakerQueue: [WorkItem] = []
    /// RxFlow's trampoline: the coordinators with a turn scheduled, in order.
    var turns: [FlowCoordinatorID] = []
    var turnsHead = 0
    /// RxFlow's next main-queue turns: `forwardToCurrentFlow` steps.
    var laterQueue: [WorkItem] = []
    var actions: [CoordinatorAction] = []
    /// The flow names of the coordinators the last call ended (``flowName(of:)``).
    var endedFlowNames: [FlowCoordinatorID: String] = [:]
    /// The steps attached steppers emit synchronously during a call.
    let emissions = SynchronousEmissions()

    /// Called the moment a stepper is attached, before its initial step is handled and before its
    /// `readyToEmitSteps()`: a driver subscribes to the stepper's relay here to hear what it emits after the call
    /// (from another thread, or later), with nothing lost in between. What the stepper emits synchronously during a
    /// call is the machine's and does not reach the driver. The ``CoordinatorAction/attach(_:)`` action still follows
    /// in the returned actions.
    public var attachmentObserver: ((StepperAttachment) -> Void)?

    /// Called with each command as the tree outputs it, by a driver that keeps the UI model the commands build (the
    /// daemon): it applies the command and returns the presentables the command took out of that model. The machine
    /// handles them as dismissed in the same call, before the navigation's contributors (`docs/SEMANTICS.md` D18), so
    /// what the UI no longer holds lets go of its steppers whether or not a presenter reports it.
    public var commandObserver: ((NavigationCommand) -> [PresentableID])?
    /// What the commands output since the last ``dismissRemoved()`` took out of the driver's UI model.
    var removedByCommands: [PresentableID] = []
    /// Whether the driver's UI model holds a presentable, from the driver that sets ``commandObserver``: with it, a
    /// command building a flow's root that is in no UI yet waits until a command places the root
    /// (`docs/SEMANTICS.md` D20).
    public var uiContains: ((PresentableID) -> Bool)?
    /// Commands waiting for their flow's root to be placed.
    var heldCommands = HeldCommands()

    /// Makes an empty machine; ``coordinate(flow:with:allowStepWhenDismissed:)`` starts the tree.
    public init() {}

    // MARK: - Inputs

    /// Starts the tree with its root flow: RxFlow's `FlowCoordinator.coordinate(flow:with:allowStepWhenDismissed:)`.
    ///
    /// Outputs `setRoot` for the flow's root, attaches `stepper` as the flow stepper and handles its initial step.
    ///
    /// Once the root flow has ended (its root dismissed), the tree coordinates a new one, as RxFlow's coordinator does
    /// after its pipeline ended (`docs/SEMANTICS.md` D19).
    ///
    /// - Throws: ``FlowError/alreadyCoordinating`` while the tree's root flow lives.
    public mutating func coordinate(
        flow: any Flow,
        with stepper: any Stepper = DefaultStepper(),
        allowStepWhenDismissed: Bool = false
    ) throws(FlowError) -> [CoordinatorAction] {
        if let rootCoordinator, nodes[rootCoordinator] != nil { throw FlowError.alreadyCoordinating() }
        return SynchronousEmissions.$running.withValue(emissions) {
            rootCoordinator = startCoordinator(
                flow: flow, parent: nil, stepper: stepper, allowStepWhenDismissed: allowStepWhenDismissed,
                beforeStepper: { machine, id in
                    machine.output(.setRoot(flow.root), from: id)
                    machine.dismissRemoved()
                }
            )
            drain()
            // The tree is made in one burst: its tables give back the room their growth left.
            nodes.trim()
            attachments.trim()
            return takeActions()
        }
    }

    /// Handles one input and everything it causes, and returns the resulting actions in order.
    public mutating func handle(_ input: CoordinatorInput) -> [CoordinatorAction] {
        SynchronousEmissions.$running.withValue(emissions) { handleNow(input) }
    }

    private mutating func handleNow(_ input: CoordinatorInput) -> [CoordinatorAction] {
        // A step's will/did-navigate and command in one allocation, not three growing ones.
        actions.reserveCapacity(4)
        if !endedFlowNames.isEmpty { endedFlowNames = [:] }
        switch input {
        case .stepperEmitted(let attachmentID, let step):
            stepperEmitted(attachmentID, step)
        case .visibilityChanged(let id, let visible):
            visibilityChanged(id, visible: visible)
        case .dismissed(let id):
            dismissed(id)
        case .presentablesLost(let ids):
            for id in ids { visibilityChanged(id, visible: false) }
        case .adaptCompleted(let requestID, let step):
            adaptCompleted(requestID, step)
        case .deepLink(let step):
            deepLink(step)
        }
        drain()
        return takeActions()
    }

    // MARK: - Queries

    /// Whether a flow has been coordinated as the root.
    public var hasRoot: Bool { rootCoordinator != nil }

    /// The live coordinators, in ID order.
    public var coordinatorIDs: [FlowCoordinatorID] { nodes.ids }

    /// The flow a coordinator runs, while it is alive.
    public func flow(of coordinator: FlowCoordinatorID) -> (any Flow)? { nodes[coordinator]?.flow }

    /// The name of the coordinator's flow while it lives, or when the last call ended it: a step dropped for it in
    /// that call still names its flow.
    public func flowName(of coordinator: FlowCoordinatorID) -> String? {
        nodes[coordinator]?.flow.flowName ?? endedFlowNames[coordinator]
    }

    /// The coordinator running `flow`, while it is alive.
    public func coordinator(of flow: any Flow) -> FlowCoordinatorID? {
        guard let id = coordinatorByFlow[ObjectIdentifier(flow)], nodes[id] != nil else { return nil }
        return id
    }

    /// Whether a presentable was last reported visible (a flow's visibility is its root's).
    public func isVisible(_ id: PresentableID) -> Bool { presentables[id]?.isVisible ?? false }

    /// The presentables last reported visible, sorted.
    public var visiblePresentables: [PresentableID] {
        presentables.filter { $0.value.isVisible }.keys.sorted()
    }

    /// Whether a presentable was reported dismissed (and not contributed again since).
    public func isDismissed(_ id: PresentableID) -> Bool { presentables[id]?.isDismissed ?? false }

    /// How many presentables the machine keeps state for: the visible and hidden ones it heard of, those with
    /// steppers, and the last ``dismissedRemembered`` dismissed ones.
    public var knownPresentableCount: Int { presentables.count }

    /// Whether a coordinator's flow is ready.
    public func isReady(_ coordinator: FlowCoordinatorID) -> Bool { nodes[coordinator]?.isReady ?? false }

    /// Whether a coordinator is alive (started and not ended).
    public func isAlive(_ coordinator: FlowCoordinatorID) -> Bool { nodes[coordinator] != nil }

    /// The root flow's coordinator, once coordinated (see ``isAlive(_:)``).
    public var rootCoordinatorID: FlowCoordinatorID? { rootCoordinator }

    /// The live attachments, in ID order.
    public var liveAttachments: [StepperAttachment] { attachments.values.map(\.info) }

    /// A live attachment.
    public func attachment(_ id: AttachmentID) -> StepperAttachment? { attachments[id]?.info }

    /// The live attachments on a presentable, in ID order.
    public func attachments(on id: PresentableID) -> [StepperAttachment] {
        (presentables[id]?.attachments ?? []).compactMap { attachments[$0]?.info }
    }

    /// The asynchronous adaptations not yet completed, in ID order.
    public var pendingAdaptRequests: [AdaptRequestID] { pendingAdapts.keys.sorted() }

    /// A readable, encodable picture of the live tree.
    public func snapshot() -> FlowTreeSnapshot {
        FlowTreeSnapshot(root: rootCoordinator.flatMap { nodeSnapshot($0) })
    }

    private func nodeSnapshot(_ id: FlowCoordinatorID) -> FlowTreeSnapshot.Node? {
        guard let node = nodes[id] else { return nil }
        return FlowTreeSnapshot.Node(
            coordinator: id,
            flow: node.flowName,
            root: presentableSnapshot(node.rootID),
            isReady: node.isReady,
            allowStepWhenDismissed: node.allowStepWhenDismissed,
            steppers: node.attachments.compactMap { attachmentID in
                guard let attachment = attachments[attachmentID] else { return nil }
                let info = attachment.info
                return FlowTreeSnapshot.Stepper(
                    attachment: info.id,
                    stepper: info.stepper.stepperDescription,
                    role: info.role,
                    presentable: presentableSnapshot(info.presentable),
                    allowStepWhenNotPresented: info.allowStepWhenNotPresented,
                    allowStepWhenDismissed: info.allowStepWhenDismissed,
                    pendingInitialStep: attachment.pendingInitialStep
                )
            },
            children: node.children.compactMap { nodeSnapshot($0) }
        )
    }

    private func presentableSnapshot(_ id: PresentableID) -> FlowTreeSnapshot.PresentableState {
        FlowTreeSnapshot.PresentableState(id: id, isVisible: isVisible(id), isDismissed: isDismissed(id))
    }

    // MARK: - Input handling

    mutating func stepperEmitted(_ attachmentID: AttachmentID, _ step: Step) {
        guard let info = attachments.read(attachmentID, { $0.info }) else {
            drop(step, .attachmentEnded, coordinator: nil, attachment: attachmentID)
            return
        }
        if step.isNone {
            drop(step, .noneStep, coordinator: info.coordinator, attachment: attachmentID)
            return
        }
        if info.role == .contributor, !info.allowStepWhenNotPresented, !isVisible(info.presentable) {
            drop(step, .notVisible, coordinator: info.coordinator, attachment: attachmentID)
            return
        }
        enqueue(WorkItem(coordinator: info.coordinator, step: step, source: .stepper(attachmentID)))
    }

    private mutating func visibilityChanged(_ id: PresentableID, visible: Bool) {
        var state = presentables[id, default: PresentableState()]
        guard state.isVisible != visible else { return }
        // After a dismissal only the steppers that survived it (`allowStepWhenDismissed`) still listen (D11).
        guard !state.isDismissed || !state.attachments.isEmpty else { return }
        state.isVisible = visible
        presentables[id] = state
        guard visible else { return }
        for attachmentID in state.attachments {
            guard let step = attachments[attachmentID]?.pendingInitialStep else { continue }
            attachments[attachmentID]?.pendingInitialStep = nil
            let coordinator = attachments[attachmentID]!.info.coordinator
            enqueue(WorkItem(coordinator: coordinator, step: step, source: .stepper(attachmentID)))
        }
    }

    /// A presentable dismissed: reported, or taken out of the UI by a command (`byCommand`, D18). A command's removal
    /// never ends the root flow nor detaches its own stepper: only a new window root can remove the root flow's root,
    /// and RxFlow's root flow outlives that (a window's `rxDismissed` never fires; a replaced window root is not
    /// `rx.dismissed`).
    mutating func dismissed(_ id: PresentableID, byCommand: Bool = false) {
        var state = presentables[id, default: PresentableState()]
        guard !state.isDismissed else { return }
        state.isDismissed = true
        state.isVisible = false
        presentables[id] = state
        let spared = byCommand ? rootCoordinator : nil
        for attachmentID in state.attachments {
            guard let attachment = attachments[attachmentID], !attachment.info.allowStepWhenDismissed else { continue }
            if attachment.info.role == .flow, attachment.info.coordinator == spared { continue }
            detach(attachmentID, reason: .presentableDismissed)
        }
        let dismissedFlows = (coordinatorsByRoot[id] ?? []).filter {
            nodes[$0]?.allowStepWhenDismissed == false && $0 != spared
        }
        for coordinator in dismissedFlows where nodes[coordinator] != nil {
            endCoordinator(coordinator, reason: .rootDismissed)
        }
        // With steppers, the last one's detach queued it already.
        if state.attachments.isEmpty { rememberIfForgettable(id) }
    }

    /// Queues a dismissed presentable no stepper listens to for forgetting, and forgets the oldest past the bound.
    mutating func rememberIfForgettable(_ id: PresentableID) {
        guard let state = presentables[id], state.isDismissed, state.attachments.isEmpty else { return }
        forgettingOrder.append(id)
        while forgettingOrder.count > Self.dismissedRemembered {
            let oldest = forgettingOrder.removeFirst()
            // Not when it is queued again (dismissed, renewed, dismissed again): it is among the last ones.
            if let old = presentables[oldest], old.isDismissed, old.attachments.isEmpty,
                !forgettingOrder.contains(oldest)
            {
                presentables[oldest] = nil
            }
        }
    }

    private mutating func adaptCompleted(_ requestID: AdaptRequestID, _ step: Step?) {
        guard let pending = pendingAdapts.removeValue(forKey: requestID) else {
            drop(step ?? .none, .unknownAdaptRequest, coordinator: nil, attachment: nil)
            return
        }
        guard nodes[pending.coordinator] != nil else {
            // Whatever it yielded: a failure or NoneStep reports the step that was adapted (D1, D2).
            let reported = step.flatMap { $0.isNone ? nil : $0 } ?? pending.step
            drop(reported, .flowEnded, coordinator: pending.coordinator, attachment: nil)
            return
        }
        guard let step else {
            dropAdaptedAway(pending.step, .adaptFailed, coordinator: pending.coordinator, attachment: nil)
            return
        }
        if step.isNone {
            // Report the step that was adapted away, not NoneStep (`docs/SEMANTICS.md` D1, D13).
            dropAdaptedAway(pending.step, .adaptedToNone, coordinator: pending.coordinator, attachment: nil)
            return
        }
        navigate(pending.coordinator, to: step)
    }

    /// Offers the step to every coordinator alive now, parent first (pre-order), each one's consequences handled
    /// before the next gets the step (`docs/SEMANTICS.md` D3: flows created by the deep link do not receive it).
    private mutating func deepLink(_ step: Step) {
        guard let root = rootCoordinator, nodes[root] != nil else {
            drop(step, .noRootFlow, coordinator: nil, attachment: nil)
            return
        }
        for coordinator in preOrder(from: root) {
            guard nodes[coordinator] != nil else { continue }
            enqueue(WorkItem(coordinator: coordinator, step: step, source: .deepLink))
            drainQueue()
        }
    }

    private func preOrder(from id: FlowCoordinatorID) -> [FlowCoordinatorID] {
        guard let node = nodes[id] else { return [] }
        return [id] + node.children.flatMap { preOrder(from: $0) }
    }
}

@available(*, unavailable)
extension FlowCoordinatorStateMachine: Sendable {}
