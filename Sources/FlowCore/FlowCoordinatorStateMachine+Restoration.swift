/// A coordinator tree as data: what ``FlowCoordinatorStateMachine/save(with:)`` gives and
/// ``FlowCoordinatorStateMachine/init(restoring:with:)`` takes back. Everything the machine decides with is in it:
/// the flows and steppers (as ``SavedObject``s), the tree, readiness, visibility and dismissal, held initial steps and
/// the numbering, so a restored machine answers every input as the saved one would have. Coordinators and attachments
/// are saved by number (a snapshot holds one per session, so its size matters more than its types).
public struct SavedFlowTree: Codable, Hashable, Sendable {
    /// One coordinator.
    public struct Node: Codable, Hashable, Sendable {
        public var id: Int
        public var flow: SavedObject
        public var flowName: String
        public var root: PresentableID
        public var parent: Int?
        public var allowStepWhenDismissed: Bool
        public var children: [Int]
        public var attachments: [Int]
        public var isReady: Bool
        public var hasNavigated: Bool
        public var awaitedChildren: [Int]
    }

    /// One attached stepper.
    public struct Attachment: Codable, Hashable, Sendable {
        public var id: Int
        public var coordinator: Int
        public var presentable: PresentableID
        public var role: StepperAttachment.Role
        public var stepper: SavedObject
        public var allowStepWhenNotPresented: Bool
        public var allowStepWhenDismissed: Bool
        public var pendingInitialStep: Step?
    }

    /// What the machine knows of one presentable.
    public struct Presentable: Codable, Hashable, Sendable {
        public var id: PresentableID
        public var isVisible: Bool
        public var isDismissed: Bool
        public var attachments: [Int]
    }

    /// Coordinators in ID order.
    public var nodes: [Node]
    public var root: Int?
    /// Attachments in ID order.
    public var attachments: [Attachment]
    /// Presentables in ID order.
    public var presentables: [Presentable]
    /// The dismissed presentables no stepper listens to, oldest first: the order in which they are forgotten.
    public var forgettingOrder: [PresentableID]?
    public var lastCoordinatorNumber: Int
    public var lastAttachmentNumber: Int
    public var lastAdaptNumber: Int
}

extension FlowCoordinatorStateMachine {
    /// Whether the tree waits for nothing that is code: no asynchronous adaptation running, no `.ready` block
    /// registered, no command waiting for a flow's root to be placed (D20). Only such a tree can be saved.
    public var isAtRest: Bool { pendingAdapts.isEmpty && pendingReadiness.isEmpty && heldCommands.isEmpty }

    /// The tree as data.
    ///
    /// - Throws: ``RestorationError`` `.notAtRest` (see ``isAtRest``), `.notRestorable` when a flow or stepper is not
    ///   restorable with `restoration`.
    public func save(with restoration: FlowRestoration) throws(RestorationError) -> SavedFlowTree {
        guard pendingAdapts.isEmpty else {
            throw RestorationError(.notAtRest, "\(pendingAdapts.count) asynchronous adaptation(s) running")
        }
        guard pendingReadiness.isEmpty else {
            throw RestorationError(.notAtRest, "\(pendingReadiness.count) .ready block(s) waiting")
        }
        guard heldCommands.isEmpty else {
            throw RestorationError(.notAtRest, "\(heldCommands.count) command(s) waiting for a flow root to be placed")
        }
        var savedNodes: [SavedFlowTree.Node] = []
        savedNodes.reserveCapacity(nodes.count)
        for id in nodes.ids {
            let node = nodes[id]!
            savedNodes.append(
                SavedFlowTree.Node(
                    id: id.rawValue, flow: try restoration.save(node.flow), flowName: node.flowName,
                    root: node.rootID, parent: node.parent?.rawValue,
                    allowStepWhenDismissed: node.allowStepWhenDismissed, children: node.children.map(\.rawValue),
                    attachments: node.attachments.map(\.rawValue), isReady: node.isReady,
                    hasNavigated: node.hasNavigated, awaitedChildren: node.awaitedChildren.map(\.rawValue)
                )
            )
        }
        var savedAttachments: [SavedFlowTree.Attachment] = []
        savedAttachments.reserveCapacity(attachments.count)
        for id in attachments.ids {
            let attachment = attachments[id]!
            let info = attachment.info
            savedAttachments.append(
                SavedFlowTree.Attachment(
                    id: id.rawValue, coordinator: info.coordinator.rawValue, presentable: info.presentable, role: info.role,
                    stepper: try restoration.save(info.stepper),
                    allowStepWhenNotPresented: info.allowStepWhenNotPresented,
                    allowStepWhenDismissed: info.allowStepWhenDismissed,
                    pendingInitialStep: attachment.pendingInitialStep
                )
            )
        }
        let savedPresentables = presentables.keys.sorted().map { id in
            let state = presentables[id]!
            return SavedFlowTree.Presentable(
                id: id, isVisible: state.isVisible, isDismissed: state.isDismissed,
                attachments: state.attachments.map(\.rawValue))
        }
        return SavedFlowTree(
            nodes: savedNodes, root: rootCoordinator?.rawValue, attachments: savedAttachments, presentables: savedPresentables,
            forgettingOrder: forgettingOrder,
            lastCoordinatorNumber: lastCoordinatorNumber, lastAttachmentNumber: lastAttachmentNumber,
            lastAdaptNumber: lastAdaptNumber
        )
    }

    /// Makes a saved tree again, its flows and steppers through `restoration`.
    ///
    /// The steppers are listened to again (their relays registered for synchronous emissions), but neither their
    /// initial steps nor `readyToEmitSteps()` run again, and no action is output: a driver that listens to steppers
    /// subscribes again to each of ``liveAttachments``.
    ///
    /// - Throws: ``RestorationError`` `.unknownType` for a flow or stepper `restoration` cannot make, `.inconsistent`
    ///   for a tree that contradicts itself.
    public init(restoring saved: SavedFlowTree, with restoration: FlowRestoration) throws(RestorationError) {
        self.init()
        for savedNode in saved.nodes {
            let flow = try restoration.makeFlow(savedNode.flow)
            guard flow.root.id == savedNode.root else {
                throw RestorationError(
                    .inconsistent, "the flow '\(savedNode.flow.type)' was made again with root \(flow.root.id), "
                        + "not \(savedNode.root)")
            }
            let id = FlowCoordinatorID(savedNode.id)
            nodes[id] = Node(
                flow: flow, flowName: savedNode.flowName, rootID: savedNode.root,
                parent: savedNode.parent.map(FlowCoordinatorID.init), allowStepWhenDismissed: savedNode.allowStepWhenDismissed,
                children: savedNode.children.map(FlowCoordinatorID.init),
                attachments: savedNode.attachments.map(AttachmentID.init), isReady: savedNode.isReady,
                hasNavigated: savedNode.hasNavigated, awaitedChildren: savedNode.awaitedChildren.map(FlowCoordinatorID.init)
            )
            coordinatorByFlow[ObjectIdentifier(flow)] = id
            coordinatorsByRoot[savedNode.root, default: []].append(id)
        }
        for root in coordinatorsByRoot.keys { coordinatorsByRoot[root]?.sort() }
        for savedAttachment in saved.attachments {
            let coordinator = FlowCoordinatorID(savedAttachment.coordinator)
            guard nodes[coordinator] != nil else {
                throw RestorationError(
                    .inconsistent,
                    "attachment \(savedAttachment.id) is on coordinator \(savedAttachment.coordinator), which is not saved")
            }
            let info = StepperAttachment(
                id: AttachmentID(savedAttachment.id), coordinator: coordinator,
                presentable: savedAttachment.presentable, role: savedAttachment.role,
                stepper: try restoration.makeStepper(savedAttachment.stepper),
                allowStepWhenNotPresented: savedAttachment.allowStepWhenNotPresented,
                allowStepWhenDismissed: savedAttachment.allowStepWhenDismissed
            )
            attachments[info.id] = Attachment(info: info, pendingInitialStep: savedAttachment.pendingInitialStep)
            emissions.register(info.stepper.steps, as: info.id)
        }
        for presentable in saved.presentables {
            presentables[presentable.id] = PresentableState(
                isVisible: presentable.isVisible, isDismissed: presentable.isDismissed,
                attachments: presentable.attachments.map(AttachmentID.init))
        }
        forgettingOrder = saved.forgettingOrder
            ?? saved.presentables.filter { $0.isDismissed && $0.attachments.isEmpty }.map(\.id)
        let root = saved.root.map(FlowCoordinatorID.init)
        // A root flow that ended stays the tree's root (coordinating once), its node gone with its whole subtree.
        if let root, nodes[root] == nil, !nodes.isEmpty {
            throw RestorationError(.inconsistent, "the root coordinator \(root) is not saved")
        }
        rootCoordinator = root
        nodes.trim()
        attachments.trim()
        lastCoordinatorNumber = saved.lastCoordinatorNumber
        lastAttachmentNumber = saved.lastAttachmentNumber
        lastAdaptNumber = saved.lastAdaptNumber
    }
}
