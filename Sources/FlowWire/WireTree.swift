public import FlowCore

/// A session's flow tree as the `TREE` result carries it (`docs/PROTOCOL.md` §7.1): plain JSON with `snake_case`
/// names, identifiers as bare integers, a presentable's state as one word.
public struct WireTree: Sendable, Hashable, Codable {
    /// A presentable and what was last reported about it.
    public struct Presentable: Sendable, Hashable, Codable {
        public var id: String
        /// `visible`, `hidden` or `dismissed`.
        public var state: String

        init(_ presentable: FlowTreeSnapshot.PresentableState) {
            id = presentable.id.rawValue
            state = presentable.isDismissed ? "dismissed" : presentable.isVisible ? "visible" : "hidden"
        }
    }

    /// An attached stepper.
    public struct Stepper: Sendable, Hashable, Codable {
        public var attachment: Int
        /// What the stepper is (`RemoteStepper(movies.detail)`).
        public var stepper: String
        /// `flow` or `contributor`.
        public var role: String
        public var presentable: Presentable
        public var allowStepWhenNotPresented: Bool
        public var allowStepWhenDismissed: Bool
        /// An initial step waiting for the presentable's first visibility, else `null`.
        @Nullable public var pendingInitialStep: Step?

        enum CodingKeys: String, CodingKey {
            case attachment, stepper, role, presentable
            case allowStepWhenNotPresented = "allow_step_when_not_presented"
            case allowStepWhenDismissed = "allow_step_when_dismissed"
            case pendingInitialStep = "pending_initial_step"
        }
    }

    /// A coordinator and its subtree.
    public struct Node: Sendable, Hashable, Codable {
        public var coordinator: Int
        public var flow: String
        /// The flow's root presentable.
        public var root: Presentable
        public var ready: Bool
        public var allowStepWhenDismissed: Bool
        public var steppers: [Stepper]
        public var children: [Node]

        enum CodingKeys: String, CodingKey {
            case coordinator, flow, root, ready, steppers, children
            case allowStepWhenDismissed = "allow_step_when_dismissed"
        }
    }

    /// The root coordinator, `null` when the session has no flow.
    @Nullable public var root: Node?

    public init(root: Node?) { self.root = root }

    /// The wire form of `snapshot`.
    public init(_ snapshot: FlowTreeSnapshot) {
        func convert(_ node: FlowTreeSnapshot.Node) -> Node {
            Node(
                coordinator: node.coordinator.rawValue, flow: node.flow, root: Presentable(node.root),
                ready: node.isReady, allowStepWhenDismissed: node.allowStepWhenDismissed,
                steppers: node.steppers.map { stepper in
                    Stepper(
                        attachment: stepper.attachment.rawValue, stepper: stepper.stepper, role: stepper.role.rawValue,
                        presentable: Presentable(stepper.presentable),
                        allowStepWhenNotPresented: stepper.allowStepWhenNotPresented,
                        allowStepWhenDismissed: stepper.allowStepWhenDismissed,
                        pendingInitialStep: stepper.pendingInitialStep
                    )
                },
                children: node.children.map(convert)
            )
        }
        root = snapshot.root.map(convert)
    }

    /// Every coordinator, parent first.
    public var allNodes: [Node] {
        func walk(_ node: Node) -> [Node] { [node] + node.children.flatMap(walk) }
        return root.map(walk) ?? []
    }
}
