/// The step pipeline, the tree's changes and readiness of ``FlowCoordinatorStateMachine``.
extension FlowCoordinatorStateMachine {
    /// Queues a step for its coordinator, which gets a turn unless it has one already.
    mutating func enqueue(_ item: WorkItem) {
        if item.coordinator == turnTaker {
            turnTakerQueue.append(item)
            return
        }
        // A coordinator has a queue exactly while it has a turn scheduled. Found by index: a `modify` through the key
        // costs a coroutine, and two when the queue is not there.
        if let index = queues.index(forKey: item.coordinator) {
            queues.values[index].append(item)
        } else {
            queues[item.coordinator] = [item]
            turns.append(item.coordinator)
        }
    }

    /// Runs the queues to empty, then each later-turn step with its consequences, until nothing is left.
    mutating func drain() {
        drainQueue()
        while !laterQueue.isEmpty {
            enqueue(laterQueue.removeFirst())
            drainQueue()
        }
    }

    /// Gives the coordinators their turns until no step is waiting: one step per turn, then to the back of the line
    /// if it has more (RxFlow's `ObserveOn` re-scheduling itself on the trampoline).
    mutating func drainQueue() {
        while turnsHead < turns.count {
            let coordinator = turns[turnsHead]
            turnsHead += 1
            // Out of the table while its turn runs: what it is sent meanwhile joins it in ``turnTakerQueue``.
            guard var queue = queues.removeValue(forKey: coordinator), !queue.isEmpty else { continue }
            // One step (the usual queue) taken from the back: `removeFirst` shifts through a generic replace.
            let item = queue.count == 1 ? queue.removeLast() : queue.removeFirst()
            turnTaker = coordinator
            turnTakerQueue = queue
            process(item)
            turnTaker = nil
            if !turnTakerQueue.isEmpty {
                queues[coordinator] = turnTakerQueue
                turns.append(coordinator)
            }
            turnTakerQueue = []
        }
        // A step's worth of room is kept; what a burst grew (a session's creation) is let go, as the session idles.
        turns.removeAll(keepingCapacity: turns.capacity <= 2)
        turnsHead = 0
        if queues.capacity > 1 { queues = [:] }
    }

    /// Queues the steps attached steppers emitted synchronously since the last look (in `readyToEmitSteps()`, in
    /// `navigate`, in `adapt`, in a readiness block), each to its coordinator, through the usual gates.
    mutating func takeEmissions() {
        for (attachment, step) in emissions.take() { stepperEmitted(attachment, step) }
    }

    /// One step through one coordinator: adapt, then navigate (now or when the adaptation completes).
    mutating func process(_ item: WorkItem) {
        guard let flow = nodes.read(item.coordinator, { $0.flow }) else {
            drop(item.step, .flowEnded, coordinator: item.coordinator, attachment: item.source.attachment)
            return
        }
        let adaptation = flow.adapt(step: item.step)
        takeEmissions()
        switch consume adaptation {
        case .step(let adapted) where adapted.isNone:
            dropAdaptedAway(
                item.step, .adaptedToNone, coordinator: item.coordinator, attachment: item.source.attachment
            )
        case .step(let adapted):
            navigate(item.coordinator, to: adapted)
        case .later(let operation):
            lastAdaptNumber += 1
            let id = AdaptRequestID(lastAdaptNumber)
            pendingAdapts[id] = PendingAdapt(coordinator: item.coordinator, step: item.step)
            actions.append(
                .runAdapt(AdaptRequest(id: id, coordinator: item.coordinator, step: item.step, operation: operation))
            )
        }
    }

    /// Navigates the coordinator's flow to an adapted step (not `none`: its callers drop that as adapted away).
    mutating func navigate(_ coordinator: FlowCoordinatorID, to step: Step) {
        guard let (flow, flowName, parent) = nodes.read(coordinator, { ($0.flow, $0.flowName, $0.parent) }) else {
            return
        }
        let event = NavigationEvent(coordinator: coordinator, flow: flowName, step: step)
        actions.append(.willNavigate(event))
        let navigator = Navigator()
        let contributors = flow.navigate(to: step, with: navigator)
        for command in navigator.commands { output(command, from: coordinator) }
        // Nothing is appended to an empty array: that still replaces its buffer (`_consumeAndCreateNew`) each step.
        if !navigator.readinessWaiters.isEmpty {
            pendingReadiness += navigator.readinessWaiters.map { PendingReadiness(registrant: coordinator, waiter: $0) }
        }
        actions.append(.didNavigate(event))
        takeEmissions()
        if case .end = contributors {
            // A navigation that ends the flow is still a navigation: a parent waiting for this child's readiness is
            // not left waiting (D16), not even when the navigation's own commands close the flow's root (D18).
            markReady(coordinator)
        } else if nodes.read(coordinator, { $0.isReady }) == false, removalsEnd(coordinator) {
            // RxFlow sets readiness as `navigate` returns, before UIKit reports the dismissal it started (D6, D18).
            markReady(coordinator)
        }
        dismissRemoved()
        if !navigator.readinessWaiters.isEmpty {
            // Readiness is latched: flows that are ready already run the block now.
            runReadyWaiters()
        }
        apply(contributors, of: coordinator, parent: parent)
    }

    /// RxFlow's side effects, readiness and contributor subscription, in its order. `parent` is the coordinator's
    /// parent when it navigated: its steps for the parent still go there if its own commands ended it (D18).
    mutating func apply(
        _ contributors: FlowContributors,
        of coordinator: FlowCoordinatorID,
        parent: FlowCoordinatorID?
    ) {
        // A step that only navigates (the common one) changes nothing here once the flow has navigated.
        if case .none = contributors, nodes.read(coordinator, { $0.hasNavigated }) != false { return }
        let list: [FlowContributor]
        switch contributors {
        case .none:
            list = []
        case .one(let contributor):
            list = [contributor]
        case .multiple(let contributors):
            list = contributors
        case .end(let step) where nodes[coordinator] == nil:
            // Its commands closed its root (D18); RxFlow hands the step over as `navigate` returns, before UIKit
            // reports that dismissal, so the parent gets it all the same.
            forward(step, to: parent, from: coordinator)
            return
        case .end(let step):
            end(coordinator, forwarding: step)
            return
        }
        guard nodes[coordinator] != nil else {
            // The navigation's own commands took its flow's root out of the UI (D18): its flow has ended. What it
            // hands its parent still goes there, as with `.end`.
            for contributor in list {
                switch contributor {
                case .forwardToParentFlow(let step):
                    forward(step, to: parent, from: coordinator)
                case .forwardToCurrentFlow(let step):
                    drop(step, .flowEnded, coordinator: coordinator, attachment: nil)
                case .contribute(_, let stepper, _, _):
                    if !stepper.initialStep.isNone {
                        drop(stepper.initialStep, .flowEnded, coordinator: coordinator, attachment: nil)
                    }
                }
            }
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
                if liveCoordinator(withRoot: flow.root.id) != nil {
                    // Two live flows on one root would share its visibility and dismissal by accident (D17).
                    drop(contribution.stepper.initialStep, .rootInUse, coordinator: coordinator, attachment: nil)
                    continue
                }
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

        decideReadiness(of: coordinator, awaiting: childFlows)
    }

    /// Readiness is decided by the first navigation alone: ready now, or once the child flows it started are ready;
    /// later navigations do not move the goal (D6).
    mutating func decideReadiness(of coordinator: FlowCoordinatorID, awaiting childFlows: [FlowCoordinatorID]) {
        guard nodes[coordinator]?.hasNavigated == false else { return }
        nodes[coordinator]?.hasNavigated = true
        if childFlows.isEmpty {
            markReady(coordinator)
        } else {
            nodes[coordinator]?.awaitedChildren = childFlows
        }
    }

    /// Drops a step adapted away (D1). RxFlow navigates to NoneStep instead, which returns `.none` and sets
    /// readiness: so a flow whose first step is adapted away is ready, as after a navigation to `.none` (D6).
    mutating func dropAdaptedAway(
        _ step: Step,
        _ reason: StepDropReason,
        coordinator: FlowCoordinatorID,
        attachment: AttachmentID?
    ) {
        drop(step, reason, coordinator: coordinator, attachment: attachment)
        decideReadiness(of: coordinator, awaiting: [])
    }

    mutating func forwardToParent(of coordinator: FlowCoordinatorID, _ step: Step) {
        forward(step, to: nodes[coordinator]?.parent, from: coordinator)
    }

    /// Queues a step `coordinator` hands its parent; dropped when there is no parent, or it has ended.
    mutating func forward(_ step: Step, to parent: FlowCoordinatorID?, from coordinator: FlowCoordinatorID) {
        guard let parent, nodes[parent] != nil else {
            drop(step, .noParentFlow, coordinator: coordinator, attachment: nil)
            return
        }
        enqueue(WorkItem(coordinator: parent, step: step, source: .forward))
    }

    /// `.end`: the step goes to the parent's queue, then the coordinator and its subtree are removed, so the parent
    /// handles the step with the child already gone (`docs/SEMANTICS.md` D7). On the root, the step is dropped and
    /// only the children are removed (RxFlow S11).
    mutating func end(_ coordinator: FlowCoordinatorID, forwarding step: Step) {
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

    mutating func startCoordinator(
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
            flow: flow, flowName: flow.flowName, rootID: rootID, parent: parent,
            allowStepWhenDismissed: allowStepWhenDismissed
        )
        coordinatorByFlow[ObjectIdentifier(flow)] = id
        coordinatorsByRoot[rootID, default: []].append(id)
        if let parent { nodes[parent]?.children.append(id) }
        renew(rootID)
        actions.append(.flowStarted(id, flow: flow.flowName, parent: parent))
        beforeStepper(&self, id)

        let contribution = Contribution(
            coordinator: id, presentable: rootID, role: .flow, allowStepWhenNotPresented: true,
            allowStepWhenDismissed: allowStepWhenDismissed
        )
        if let composite = stepper as? CompositeStepper {
            attachInner(of: composite, as: contribution)
            return id
        }
        let attachment = attach(stepper, as: contribution, holding: nil)
        let initialStep = stepper.initialStep
        if !initialStep.isNone {
            enqueue(WorkItem(coordinator: id, step: initialStep, source: .stepper(attachment.id)))
        }
        ready(attachment)
        return id
    }

    mutating func attachContributor(
        _ presentable: PresentableID,
        stepper: any Stepper,
        of coordinator: FlowCoordinatorID,
        allowStepWhenNotPresented: Bool,
        allowStepWhenDismissed: Bool
    ) {
        renew(presentable)
        let initialStep = stepper.initialStep
        let deliverNow = allowStepWhenNotPresented || isVisible(presentable)
        let contribution = Contribution(
            coordinator: coordinator, presentable: presentable, role: .contributor,
            allowStepWhenNotPresented: allowStepWhenNotPresented, allowStepWhenDismissed: allowStepWhenDismissed
        )
        if let composite = stepper as? CompositeStepper {
            attachInner(of: composite, as: contribution)
            return
        }
        let held = initialStep.isNone || deliverNow ? nil : initialStep
        let attachment = attach(stepper, as: contribution, holding: held)
        if !initialStep.isNone, deliverNow {
            enqueue(WorkItem(coordinator: coordinator, step: initialStep, source: .stepper(attachment.id)))
        }
        ready(attachment)
    }

    /// The first live coordinator whose flow's root is `id`, if any.
    func liveCoordinator(withRoot id: PresentableID) -> FlowCoordinatorID? {
        coordinatorsByRoot[id]?.first
    }

    /// A presentable contributed again after its dismissal starts a new life: not dismissed, not yet visible. The
    /// steppers that survived the dismissal (`allowStepWhenDismissed`) stay on it, gated by its visibility (D11).
    mutating func renew(_ presentable: PresentableID) {
        guard let state = presentables[presentable], state.isDismissed else { return }
        presentables[presentable] = PresentableState(attachments: state.attachments)
    }

    mutating func detach(_ attachmentID: AttachmentID, reason: DetachReason) {
        guard let attachment = attachments.removeValue(forKey: attachmentID) else { return }
        let info = attachment.info
        nodes[info.coordinator]?.attachments.removeAll { $0 == attachmentID }
        presentables[info.presentable]?.attachments.removeAll { $0 == attachmentID }
        rememberIfForgettable(info.presentable)
        emissions.unregister(info.stepper.steps, as: attachmentID)
        actions.append(.detach(attachmentID, reason: reason))
        // An initial step still held for a first visibility (D8) is dropped with its stepper, and says so (D13).
        if let held = attachment.pendingInitialStep {
            drop(
                held, reason == .flowEnded ? .flowEnded : .attachmentEnded, coordinator: info.coordinator,
                attachment: attachmentID
            )
        }
    }

    /// Removes a coordinator and its subtree, children first; detaches their steppers.
    mutating func endCoordinator(_ coordinator: FlowCoordinatorID, reason: FlowEndReason) {
        guard let node = nodes[coordinator] else { return }
        for child in node.children { endCoordinator(child, reason: .parentEnded) }
        for attachmentID in node.attachments { detach(attachmentID, reason: .flowEnded) }
        nodes[coordinator] = nil
        if coordinatorByFlow[ObjectIdentifier(node.flow)] == coordinator {
            coordinatorByFlow[ObjectIdentifier(node.flow)] = nil
        }
        coordinatorsByRoot[node.rootID]?.removeAll { $0 == coordinator }
        if coordinatorsByRoot[node.rootID]?.isEmpty == true { coordinatorsByRoot[node.rootID] = nil }
        releaseHeld(ofEndedRoot: node.rootID)
        if let parent = node.parent {
            nodes[parent]?.children.removeAll { $0 == coordinator }
            // A child that was ready has given its part of its parent's readiness (RxFlow's `zip` of first ready
            // events): the parent no longer waits for it. One that ends before it is ready still holds it back (D6).
            if node.isReady { nodes[parent]?.awaitedChildren.removeAll { $0 == coordinator } }
        }
        pendingReadiness.removeAll { $0.registrant == coordinator }
        if node.isReady {
            let flow = ObjectIdentifier(node.flow)
            for index in pendingReadiness.indices
            where pendingReadiness[index].waiter.flows.contains(where: { ObjectIdentifier($0) == flow }) {
                pendingReadiness[index].endedReady.append(flow)
            }
        }
        endedFlowNames[coordinator] = node.flow.flowName
        actions.append(.flowEnded(coordinator, reason: reason))
    }

    // MARK: - Readiness

    mutating func markReady(_ coordinator: FlowCoordinatorID) {
        guard let node = nodes[coordinator], !node.isReady else { return }
        nodes[coordinator]?.isReady = true
        nodes[coordinator]?.awaitedChildren = []
        actions.append(.flowReady(coordinator))
        // Decided before the blocks run: one whose commands close this flow's root (D18) ends it, and a child that
        // was ready has given its part all the same (D6).
        var completedParent: FlowCoordinatorID?
        if let parent = node.parent, let parentNode = nodes[parent], !parentNode.isReady,
            parentNode.awaitedChildren.contains(coordinator),
            parentNode.awaitedChildren.allSatisfy({ nodes[$0]?.isReady == true })
        {
            completedParent = parent
        }
        runReadyWaiters()
        if let completedParent { markReady(completedParent) }
    }

    mutating func runReadyWaiters() {
        var index = 0
        while index < pendingReadiness.count {
            let pending = pendingReadiness[index]
            let allReady = pending.waiter.flows.allSatisfy { flow in
                pending.endedReady.contains(ObjectIdentifier(flow))
                    || coordinatorByFlow[ObjectIdentifier(flow)].map { nodes[$0]?.isReady == true } ?? false
            }
            guard allReady else {
                index += 1
                continue
            }
            pendingReadiness.remove(at: index)
            let navigator = Navigator()
            pending.waiter.block(navigator)
            takeEmissions()
            for command in navigator.commands { output(command, from: pending.registrant) }
            dismissRemoved()
            pendingReadiness += navigator.readinessWaiters.map {
                PendingReadiness(registrant: pending.registrant, waiter: $0)
            }
        }
    }

    // MARK: - Output

    /// Outputs a command; a driver keeping the UI model says what it took out of the UI (``commandObserver``).
    /// A command that builds a flow's root not yet in that UI waits until the root is placed (D20).
    mutating func output(_ command: NavigationCommand, from coordinator: FlowCoordinatorID) {
        if let root = waitingRoot(of: command) {
            hold(command, from: coordinator, until: root)
            return
        }
        actions.append(.command(command, from: coordinator))
        guard let commandObserver else { return }
        let removed = commandObserver(command)
        if !removed.isEmpty { removedByCommands += removed }
        releaseHeld(placedBy: command)
    }

    /// Whether what the commands output since the last ``dismissRemoved()`` took out of the UI ends `coordinator`:
    /// its root, or an ancestor's, with no `allowStepWhenDismissed` keeping that flow (D18).
    func removalsEnd(_ coordinator: FlowCoordinatorID) -> Bool {
        guard !removedByCommands.isEmpty else { return false }
        var current: FlowCoordinatorID? = coordinator
        while let id = current, let node = nodes[id] {
            // The root flow outlives a command's removal of its root (``dismissed(_:byCommand:)``).
            if !node.allowStepWhenDismissed, id != rootCoordinator, removedByCommands.contains(node.rootID) {
                return true
            }
            current = node.parent
        }
        return false
    }

    /// Handles what the commands output since the last call took out of the UI as dismissed, in order (D18).
    mutating func dismissRemoved() {
        guard !removedByCommands.isEmpty else { return }
        let removed = removedByCommands
        removedByCommands = []
        for id in removed { dismissed(id, byCommand: true) }
    }

    mutating func drop(
        _ step: Step,
        _ reason: StepDropReason,
        coordinator: FlowCoordinatorID?,
        attachment: AttachmentID?
    ) {
        actions.append(
            .stepDropped(StepDrop(step: step, reason: reason, coordinator: coordinator, attachment: attachment))
        )
    }

    mutating func takeActions() -> [CoordinatorAction] {
        defer { actions = [] }
        return actions
    }
}
