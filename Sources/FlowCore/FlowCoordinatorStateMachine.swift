/// RxFlow's coordinator tree as a deterministic state machine with no I/O.
///
/// Inputs go in (``coordinate(flow:with:allowStepWhenDismissed:)`` and ``handle(_:)``); ordered
/// ``CoordinatorAction``s come out: will/did-navigate events, navigation commands, stepper attach/detach, async
/// adaptations to run, tree changes and dropped steps. The same inputs in the same order give the same actions and
/// the same tree (``snapshot()``), which is what makes it testable alone and recoverable by replaying a journal.
///
/// Scheduling follows RxFlow's (`docs/SEMANTICS.md`): every input runs to completion before the call returns. Steps
/// go through one FIFO queue shared by all coordinators (RxFlow's trampoline), one at a time; forwards to the current
/// flow wait until that queue is empty (RxFlow's next main-queue turn).
///
/// Not `Sendable`: it owns the flows, which are non-`Sendable` classes. Keep it in one isolation domain (an actor).
public struct FlowCoordinatorStateMachine {
    /// Where a queued step came from: decides nothing but the drop report.
    private enum Source {
        case stepper(AttachmentID)
        case forward
        case deepLink

        var attachment: AttachmentID? {
            if case .stepper(let id) = self { return id }
            return nil
        }
    }

    private struct WorkItem {
        let coordinator: FlowCoordinatorID
        let step: Step
        let source: Source
    }

    private struct Node {
        let id: FlowCoordinatorID
        let flow: any Flow
        let flowName: String
        let rootID: PresentableID
        let parent: FlowCoordinatorID?
        let allowStepWhenDismissed: Bool
        var children: [FlowCoordinatorID] = []
        var attachments: [AttachmentID] = []
        var isReady = false
        /// Whether the flow has navigated once: readiness is decided by its first navigation only (D6).
        var hasNavigated = false
        /// Child flows this flow's readiness waits for (RxFlow's `zip` of child readiness).
        var awaitedChildren: [FlowCoordinatorID] = []
    }

    private struct Attachment {
        let info: StepperAttachment
        /// A contributor's initial step held until its presentable is first visible (`docs/SEMANTICS.md` D8).
        var pendingInitialStep: Step?
    }

    private struct PresentableState {
        var isVisible = false
        var isDismissed = false
        var attachments: [AttachmentID] = []
    }

    private struct PendingAdapt {
        let coordinator: FlowCoordinatorID
        let step: Step
    }

    private struct PendingReadiness {
        let registrant: FlowCoordinatorID
        let waiter: ReadinessWaiter
    }

    private var nodes: [FlowCoordinatorID: Node] = [:]
    private var rootCoordinator: FlowCoordinatorID?
    private var coordinatorByFlow: [ObjectIdentifier: FlowCoordinatorID] = [:]
    private var attachments: [AttachmentID: Attachment] = [:]
    private var presentables: [PresentableID: PresentableState] = [:]
    private var pendingAdapts: [AdaptRequestID: PendingAdapt] = [:]
    private var pendingReadiness: [PendingReadiness] = []

    private var lastCoordinatorNumber = 0
    private var lastAttachmentNumber = 0
    private var lastAdaptNumber = 0

    /// RxFlow's trampoline: the steps waiting to be handled now, in order.
    private var queue: [WorkItem] = []
    private var queueHead = 0
    /// RxFlow's next main-queue turns: `forwardToCurrentFlow` steps.
    private var laterQueue: [WorkItem] = []
    private var actions: [CoordinatorAction] = []

    /// Called the moment a stepper is attached, before its initial step is handled: RxFlow subscribes to a
    /// stepper right then, so a driver that listens to steppers itself (``FlowCoordinator``) subscribes here and
    /// loses nothing the stepper emits while the cascade that attached it goes on. The ``CoordinatorAction/attach(_:)``
    /// action still follows in the returned actions.
    public var attachmentObserver: ((StepperAttachment) -> Void)?

    /// Makes an empty machine; ``coordinate(flow:with:allowStepWhenDismissed:)`` starts the tree.
    public init() {}

    // MARK: - Inputs

    /// Starts the tree with its root flow: RxFlow's `FlowCoordinator.coordinate(flow:with:allowStepWhenDismissed:)`.
    ///
    /// Outputs `setRoot` for the flow's root, attaches `stepper` as the flow stepper and handles its initial step.
    ///
    /// - Throws: ``FlowError/alreadyCoordinating`` when the tree already has a root flow.
    public mutating func coordinate(
        flow: any Flow,
        with stepper: any Stepper = DefaultStepper(),
        allowStepWhenDismissed: Bool = false
    ) throws(FlowError) -> [CoordinatorAction] {
        guard rootCoordinator == nil else { throw FlowError.alreadyCoordinating() }
        let id = startCoordinator(
            flow: flow, parent: nil, stepper: stepper, allowStepWhenDismissed: allowStepWhenDismissed,
            beforeStepper: { machine, id in machine.actions.append(.command(.setRoot(flow.root), from: id)) }
        )
        rootCoordinator = id
        drain()
        return takeActions()
    }

    /// Handles one input and everything it causes, and returns the resulting actions in order.
    public mutating func handle(_ input: CoordinatorInput) -> [CoordinatorAction] {
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
    public var coordinatorIDs: [FlowCoordinatorID] { nodes.keys.sorted() }

    /// The flow a coordinator runs, while it is alive.
    public func flow(of coordinator: FlowCoordinatorID) -> (any Flow)? { nodes[coordinator]?.flow }

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

    /// Whether a coordinator's flow is ready.
    public func isReady(_ coordinator: FlowCoordinatorID) -> Bool { nodes[coordinator]?.isReady ?? false }

    /// The live attachments, in ID order.
    public var liveAttachments: [StepperAttachment] { attachments.keys.sorted().map { attachments[$0]!.info } }

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

    private mutating func stepperEmitted(_ attachmentID: AttachmentID, _ step: Step) {
        guard let attachment = attachments[attachmentID] else {
            drop(step, .attachmentEnded, coordinator: nil, attachment: attachmentID)
            return
        }
        let info = attachment.info
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
        guard !state.isDismissed, state.isVisible != visible else { return }
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

    private mutating func dismissed(_ id: PresentableID) {
        var state = presentables[id, default: PresentableState()]
        guard !state.isDismissed else { return }
        state.isDismissed = true
        state.isVisible = false
        presentables[id] = state
        for attachmentID in state.attachments {
            guard let attachment = attachments[attachmentID], !attachment.info.allowStepWhenDismissed else { continue }
            detach(attachmentID, reason: .presentableDismissed)
        }
        let dismissedFlows = nodes.values
            .filter { $0.rootID == id && !$0.allowStepWhenDismissed }
            .map(\.id)
            .sorted()
        for coordinator in dismissedFlows where nodes[coordinator] != nil {
            endCoordinator(coordinator, reason: .rootDismissed)
        }
    }

    private mutating func adaptCompleted(_ requestID: AdaptRequestID, _ step: Step?) {
        guard let pending = pendingAdapts.removeValue(forKey: requestID) else {
            drop(step ?? .none, .unknownAdaptRequest, coordinator: nil, attachment: nil)
            return
        }
        guard let step else {
            drop(pending.step, .adaptFailed, coordinator: pending.coordinator, attachment: nil)
            return
        }
        guard nodes[pending.coordinator] != nil else {
            drop(step, .flowEnded, coordinator: pending.coordinator, attachment: nil)
            return
        }
        if step.isNone {
            // Report the step that was adapted away, not NoneStep (`docs/SEMANTICS.md` D1, D13).
            drop(pending.step, .adaptedToNone, coordinator: pending.coordinator, attachment: nil)
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

    // MARK: - The step pipeline

    private mutating func enqueue(_ item: WorkItem) { queue.append(item) }

    /// Runs the queue to empty, then each later-turn step with its consequences, until nothing is left.
    private mutating func drain() {
        drainQueue()
        while !laterQueue.isEmpty {
            enqueue(laterQueue.removeFirst())
            drainQueue()
        }
    }

    private mutating func drainQueue() {
        while queueHead < queue.count {
            let item = queue[queueHead]
            queueHead += 1
            process(item)
        }
        queue.removeAll(keepingCapacity: true)
        queueHead = 0
    }

    /// One step through one coordinator: adapt, then navigate (now or when the adaptation completes).
    private mutating func process(_ item: WorkItem) {
        guard let node = nodes[item.coordinator] else {
            drop(item.step, .flowEnded, coordinator: item.coordinator, attachment: item.source.attachment)
            return
        }
        switch node.flow.adapt(step: item.step) {
        case .step(let adapted):
            navigate(item.coordinator, to: adapted, original: item)
        case .later(let operation):
            lastAdaptNumber += 1
            let id = AdaptRequestID(lastAdaptNumber)
            pendingAdapts[id] = PendingAdapt(coordinator: item.coordinator, step: item.step)
            actions.append(
                .runAdapt(AdaptRequest(id: id, coordinator: item.coordinator, step: item.step, operation: operation))
            )
        }
    }

    private mutating func navigate(_ coordinator: FlowCoordinatorID, to step: Step, original: WorkItem? = nil) {
        guard let node = nodes[coordinator] else { return }
        if step.isNone {
            drop(original?.step ?? step, .adaptedToNone, coordinator: coordinator, attachment: original?.source.attachment)
            return
        }
        let event = NavigationEvent(coordinator: coordinator, flow: node.flowName, step: step)
        actions.append(.willNavigate(event))
        let navigator = Navigator()
        let contributors = node.flow.navigate(to: step, with: navigator)
        for command in navigator.commands {
            actions.append(.command(command, from: coordinator))
        }
        pendingReadiness += navigator.readinessWaiters.map { PendingReadiness(registrant: coordinator, waiter: $0) }
        actions.append(.didNavigate(event))
        if !navigator.readinessWaiters.isEmpty {
            // Readiness is latched: flows that are ready already run the block now.
            runReadyWaiters()
        }
        apply(contributors, of: coordinator)
    }

    /// RxFlow's side effects, readiness and contributor subscription, in its order.
    private mutating func apply(_ contributors: FlowContributors, of coordinator: FlowCoordinatorID) {
        let list: [FlowContributor]
        switch contributors {
        case .none:
            list = []
        case .one(let contributor):
            list = [contributor]
        case .multiple(let contributors):
            list = contributors
        case .end(let step):
            // A navigation that ends the flow is still a navigation: a parent waiting for this child's readiness
            // is not left waiting (RxFlow sets readiness after `.end` too; `docs/SEMANTICS.md` D6).
            markReady(coordinator)
            end(coordinator, forwarding: step)
            return
        }

        var contributions: [(presentable: any Presentable, stepper: any Stepper, notPresented: Bool, dismissed: Bool)] =
            []
        for contributor in list {
            switch contributor {
            case .forwardToCurrentFlow(let step):
                laterQueue.append(WorkItem(coordinator: coordinator, step: step, source: .forward))
            case .forwardToParentFlow(let step):
                forwardToParent(of: coordinator, step)
            case .contribute(let presentable, let stepper, let notPresented, let dismissed):
                contributions.append((presentable, stepper, notPresented, dismissed))
            }
        }

        var childFlows: [FlowCoordinatorID] = []
        for contribution in contributions {
            if let flow = contribution.presentable as? any Flow {
                let child = startCoordinator(
                    flow: flow, parent: coordinator, stepper: contribution.stepper,
                    allowStepWhenDismissed: contribution.dismissed
                )
                childFlows.append(child)
            } else {
                attachContributor(
                    contribution.presentable.presentableID, stepper: contribution.stepper, of: coordinator,
                    allowStepWhenNotPresented: contribution.notPresented,
                    allowStepWhenDismissed: contribution.dismissed
                )
            }
        }

        // Readiness is decided by the first navigation alone: ready now, or once the child flows it started are
        // ready; later navigations do not move the goal (D6).
        guard nodes[coordinator]?.hasNavigated == false else { return }
        nodes[coordinator]?.hasNavigated = true
        if childFlows.isEmpty {
            markReady(coordinator)
        } else {
            nodes[coordinator]?.awaitedChildren = childFlows
        }
    }

    private mutating func forwardToParent(of coordinator: FlowCoordinatorID, _ step: Step) {
        guard let parent = nodes[coordinator]?.parent, nodes[parent] != nil else {
            drop(step, .noParentFlow, coordinator: coordinator, attachment: nil)
            return
        }
        enqueue(WorkItem(coordinator: parent, step: step, source: .forward))
    }

    /// `.end`: the step goes to the parent's queue, then the coordinator and its subtree are removed, so the parent
    /// handles the step with the child already gone (`docs/SEMANTICS.md` D7). On the root, the step is dropped and
    /// only the children are removed (RxFlow S11).
    private mutating func end(_ coordinator: FlowCoordinatorID, forwarding step: Step) {
        guard let node = nodes[coordinator] else { return }
        if node.parent == nil {
            drop(step, .noParentFlow, coordinator: coordinator, attachment: nil)
            for child in node.children { endCoordinator(child, reason: .parentEnded) }
            return
        }
        forwardToParent(of: coordinator, step)
        endCoordinator(coordinator, reason: .ended)
    }

    // MARK: - Tree changes

    private mutating func startCoordinator(
        flow: any Flow,
        parent: FlowCoordinatorID?,
        stepper: any Stepper,
        allowStepWhenDismissed: Bool,
        beforeStepper: (inout FlowCoordinatorStateMachine, FlowCoordinatorID) -> Void = { _, _ in }
    ) -> FlowCoordinatorID {
        lastCoordinatorNumber += 1
        let id = FlowCoordinatorID(lastCoordinatorNumber)
        let rootID = flow.root.id
        nodes[id] = Node(
            id: id, flow: flow, flowName: flow.flowName, rootID: rootID, parent: parent,
            allowStepWhenDismissed: allowStepWhenDismissed
        )
        coordinatorByFlow[ObjectIdentifier(flow)] = id
        if let parent { nodes[parent]?.children.append(id) }
        renew(rootID)
        actions.append(.flowStarted(id, flow: flow.flowName, parent: parent))
        beforeStepper(&self, id)

        let attachment = makeAttachment(
            coordinator: id, presentable: rootID, role: .flow, stepper: stepper,
            allowStepWhenNotPresented: true, allowStepWhenDismissed: allowStepWhenDismissed
        )
        attachments[attachment.id] = Attachment(info: attachment, pendingInitialStep: nil)
        nodes[id]?.attachments.append(attachment.id)
        actions.append(.attach(attachment))
        attachmentObserver?(attachment)
        let initialStep = stepper.initialStep
        if !initialStep.isNone {
            enqueue(WorkItem(coordinator: id, step: initialStep, source: .stepper(attachment.id)))
        }
        return id
    }

    private mutating func attachContributor(
        _ presentable: PresentableID,
        stepper: any Stepper,
        of coordinator: FlowCoordinatorID,
        allowStepWhenNotPresented: Bool,
        allowStepWhenDismissed: Bool
    ) {
        renew(presentable)
        let attachment = makeAttachment(
            coordinator: coordinator, presentable: presentable, role: .contributor, stepper: stepper,
            allowStepWhenNotPresented: allowStepWhenNotPresented, allowStepWhenDismissed: allowStepWhenDismissed
        )
        let initialStep = stepper.initialStep
        let deliverNow = allowStepWhenNotPresented || isVisible(presentable)
        attachments[attachment.id] = Attachment(
            info: attachment, pendingInitialStep: initialStep.isNone || deliverNow ? nil : initialStep
        )
        nodes[coordinator]?.attachments.append(attachment.id)
        presentables[presentable, default: PresentableState()].attachments.append(attachment.id)
        actions.append(.attach(attachment))
        attachmentObserver?(attachment)
        if !initialStep.isNone, deliverNow {
            enqueue(WorkItem(coordinator: coordinator, step: initialStep, source: .stepper(attachment.id)))
        }
    }

    private mutating func makeAttachment(
        coordinator: FlowCoordinatorID,
        presentable: PresentableID,
        role: StepperAttachment.Role,
        stepper: any Stepper,
        allowStepWhenNotPresented: Bool,
        allowStepWhenDismissed: Bool
    ) -> StepperAttachment {
        lastAttachmentNumber += 1
        return StepperAttachment(
            id: AttachmentID(lastAttachmentNumber), coordinator: coordinator, presentable: presentable, role: role,
            stepper: stepper, allowStepWhenNotPresented: allowStepWhenNotPresented,
            allowStepWhenDismissed: allowStepWhenDismissed
        )
    }

    /// A presentable contributed again after its dismissal starts a new life: not dismissed, not yet visible.
    private mutating func renew(_ presentable: PresentableID) {
        if presentables[presentable]?.isDismissed == true {
            presentables[presentable] = PresentableState()
        }
    }

    private mutating func detach(_ attachmentID: AttachmentID, reason: DetachReason) {
        guard let attachment = attachments.removeValue(forKey: attachmentID) else { return }
        let info = attachment.info
        nodes[info.coordinator]?.attachments.removeAll { $0 == attachmentID }
        presentables[info.presentable]?.attachments.removeAll { $0 == attachmentID }
        actions.append(.detach(attachmentID, reason: reason))
    }

    /// Removes a coordinator and its subtree, children first; detaches their steppers.
    private mutating func endCoordinator(_ coordinator: FlowCoordinatorID, reason: FlowEndReason) {
        guard let node = nodes[coordinator] else { return }
        for child in node.children { endCoordinator(child, reason: .parentEnded) }
        for attachmentID in node.attachments { detach(attachmentID, reason: .flowEnded) }
        nodes[coordinator] = nil
        if coordinatorByFlow[ObjectIdentifier(node.flow)] == coordinator {
            coordinatorByFlow[ObjectIdentifier(node.flow)] = nil
        }
        if let parent = node.parent { nodes[parent]?.children.removeAll { $0 == coordinator } }
        pendingReadiness.removeAll { $0.registrant == coordinator }
        actions.append(.flowEnded(coordinator, reason: reason))
    }

    // MARK: - Readiness

    private mutating func markReady(_ coordinator: FlowCoordinatorID) {
        guard let node = nodes[coordinator], !node.isReady else { return }
        nodes[coordinator]?.isReady = true
        nodes[coordinator]?.awaitedChildren = []
        actions.append(.flowReady(coordinator))
        runReadyWaiters()
        if let parent = node.parent, let parentNode = nodes[parent], !parentNode.isReady,
            parentNode.awaitedChildren.contains(coordinator),
            parentNode.awaitedChildren.allSatisfy({ nodes[$0]?.isReady == true })
        {
            markReady(parent)
        }
    }

    private mutating func runReadyWaiters() {
        var index = 0
        while index < pendingReadiness.count {
            let pending = pendingReadiness[index]
            let allReady = pending.waiter.flows.allSatisfy { flow in
                coordinatorByFlow[flow].map { nodes[$0]?.isReady == true } ?? false
            }
            guard allReady else {
                index += 1
                continue
            }
            pendingReadiness.remove(at: index)
            let navigator = Navigator()
            pending.waiter.block(navigator)
            for command in navigator.commands {
                actions.append(.command(command, from: pending.registrant))
            }
            pendingReadiness += navigator.readinessWaiters.map {
                PendingReadiness(registrant: pending.registrant, waiter: $0)
            }
        }
    }

    // MARK: - Output

    private mutating func drop(
        _ step: Step,
        _ reason: StepDropReason,
        coordinator: FlowCoordinatorID?,
        attachment: AttachmentID?
    ) {
        actions.append(
            .stepDropped(StepDrop(step: step, reason: reason, coordinator: coordinator, attachment: attachment))
        )
    }

    private mutating func takeActions() -> [CoordinatorAction] {
        defer { actions = [] }
        return actions
    }
}

@available(*, unavailable)
extension FlowCoordinatorStateMachine: Sendable {}
