/// A picture of a live coordinator tree: flows, child flows, presentables with their visibility, attached steppers.
///
/// Encodable (for `flowctl tree --json`) and readable (``description``, an indented tree).
public struct FlowTreeSnapshot: Hashable, Sendable, Codable, CustomStringConvertible {
    /// A presentable and what was last reported about it.
    public struct PresentableState: Hashable, Sendable, Codable {
        public var id: PresentableID
        public var isVisible: Bool
        public var isDismissed: Bool

        var label: String { "\(id) [\(isDismissed ? "dismissed" : isVisible ? "visible" : "hidden")]" }
    }

    /// An attached stepper.
    public struct Stepper: Hashable, Sendable, Codable {
        public var attachment: AttachmentID
        public var stepper: String
        public var role: StepperAttachment.Role
        public var presentable: PresentableState
        public var allowStepWhenNotPresented: Bool
        public var allowStepWhenDismissed: Bool
        /// An initial step waiting for the presentable's first visibility.
        public var pendingInitialStep: Step?
    }

    /// A coordinator and its subtree.
    public struct Node: Hashable, Sendable, Codable {
        public var coordinator: FlowCoordinatorID
        public var flow: String
        public var root: PresentableState
        public var isReady: Bool
        public var allowStepWhenDismissed: Bool
        public var steppers: [Stepper]
        public var children: [Node]
    }

    /// The root coordinator, `nil` before `coordinate` or after the root ended.
    public var root: Node?

    public init(root: Node?) { self.root = root }

    /// Every coordinator, parent first.
    public var allNodes: [Node] {
        func walk(_ node: Node) -> [Node] { [node] + node.children.flatMap(walk) }
        return root.map(walk) ?? []
    }

    /// An indented rendering, one line per flow and per stepper.
    public var description: String {
        guard let root else { return "(no flow)\n" }
        var lines: [String] = []
        func render(_ node: Node, indent: String) {
            var flags: [String] = []
            if node.isReady { flags.append("ready") }
            if node.allowStepWhenDismissed { flags.append("allowStepWhenDismissed") }
            let suffix = flags.isEmpty ? "" : " " + flags.joined(separator: " ")
            lines.append("\(indent)\(node.flow) \(node.coordinator) root=\(node.root.label)\(suffix)")
            for stepper in node.steppers {
                var text = "\(indent)  - \(stepper.stepper) \(stepper.attachment)"
                if stepper.role == .contributor { text += " on \(stepper.presentable.label)" } else { text += " (flow)" }
                if stepper.allowStepWhenNotPresented && stepper.role == .contributor { text += " allowStepWhenNotPresented" }
                if stepper.allowStepWhenDismissed { text += " allowStepWhenDismissed" }
                if let pending = stepper.pendingInitialStep { text += " pending=\(pending)" }
                lines.append(text)
            }
            for child in node.children { render(child, indent: indent + "  ") }
        }
        render(root, indent: "")
        return lines.joined(separator: "\n") + "\n"
    }
}
