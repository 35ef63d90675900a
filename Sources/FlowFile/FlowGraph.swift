/// The picture of an application's flows: flows, the screens they contribute and the stepper kinds asked to adapt
/// as nodes; child flows, steps, contributions, ends, adaptations and deep links as edges. ``dot`` and ``mermaid``
/// write it for Graphviz and Mermaid.
///
/// `Sendable`: values.
public struct FlowGraph: Sendable, Hashable {
    public struct Node: Sendable, Hashable {
        /// `stepperKind`: a stepper kind a flow's `adapt` asks (a service's, outside the file).
        public enum Kind: String, Sendable, Hashable { case session, flow, screen, deepLink, stepperKind }
        public var id: String
        public var kind: Kind
        public var label: [String]
    }

    public struct Edge: Sendable, Hashable {
        public enum Kind: String, Sendable, Hashable {
            /// A parent starts a child flow (the step that does it).
            case child
            /// A flow contributes a screen with steppers (the step that does it).
            case contributes
            /// Steps a screen's (or a session's) steppers may emit, to the flow that handles them.
            case steps
            /// A child flow ends, or forwards, handing a step to its parent.
            case toParent
            /// A deep link's chain, to the flows that handle its steps.
            case deepLink
            /// A flow's `adapt`: the steps it asks the stepper kind about before navigating.
            case adapt
        }
        public var from: String
        public var to: String
        public var kind: Kind
        public var label: String
    }

    public var name: String
    public var nodes: [Node]
    public var edges: [Edge]

    /// The graph of a checked file.
    public init(_ app: AppFile) {
        name = app.app
        var nodes: [Node] = []
        var edges: [Edge] = []
        var seen: Set<String> = []
        func add(_ node: Node) { if seen.insert(node.id).inserted { nodes.append(node) } }
        func flowID(_ name: String) -> String { "flow_" + Self.safe(name) }
        func emitted(_ stepper: StepperSpec) -> [String] {
            var steps = stepper.steps.map(\.name.value)
            for case .remote(let kind, _, _) in stepper.leaves.map(\.kind) {
                steps += app.stepperKind(kind.value)?.steps.map(\.value) ?? []
            }
            return Array(Set(steps)).sorted()
        }
        func describe(_ stepper: StepperSpec) -> String {
            switch stepper.kind {
            case .remote(let kind, _, _): return "remote \(kind)"
            case .one(let step): return "one \(step.name)"
            case .actions(let actions, _): return "actions " + actions.map(\.action.value).joined(separator: ",")
            case .composite(let steppers): return "composite [" + steppers.map(describe).joined(separator: "; ") + "]"
            }
        }
        add(Node(id: "session", kind: .session, label: ["session"]))
        if let root = app.flow(app.root.flow.value), let stepper = app.root.stepper ?? root.stepper {
            edges.append(Edge(from: "session", to: flowID(root.name.value), kind: .child, label: describe(stepper)))
            let steps = emitted(stepper)
            if !steps.isEmpty {
                edges.append(
                    Edge(
                        from: "session", to: flowID(root.name.value), kind: .steps, label: steps.joined(separator: "\n")
                    ))
            }
        }
        for flow in app.flows {
            add(
                Node(
                    id: flowID(flow.name.value), kind: .flow,
                    label: [flow.name.value, "\(flow.root.id) (\(flow.root.kind.rawValue))"]))
        }
        for flow in app.flows {
            for handler in flow.handlers {
                for contributor in handler.contributors {
                    switch contributor.kind {
                    case .flow(let name, let stepper, _):
                        let via = (stepper ?? app.flow(name.value)?.stepper).map(describe) ?? ""
                        edges.append(
                            Edge(
                                from: flowID(flow.name.value), to: flowID(name.value), kind: .child,
                                label: "\(handler.step)\n\(via)"))
                    case .screen(let ref, let steppers, _, _):
                        let screen =
                            ref.value == "root" ? flow.root : (flow.screen(ref.value) ?? app.flow(ref.value)?.root)
                        guard let screen else { continue }
                        let id = "screen_" + Self.safe(screen.id.source)
                        add(Node(id: id, kind: .screen, label: [screen.id.source, screen.typeName]))
                        edges.append(
                            Edge(
                                from: flowID(flow.name.value), to: id, kind: .contributes,
                                label: "\(handler.step)\n" + steppers.map(describe).joined(separator: "\n")
                            ))
                        let steps = Array(Set(steppers.flatMap(emitted))).sorted()
                        if !steps.isEmpty {
                            edges.append(
                                Edge(
                                    from: id, to: flowID(flow.name.value), kind: .steps,
                                    label: steps.joined(separator: "\n")))
                        }
                    case .forwardToParentFlow(let step):
                        for parent in Self.parents(of: flow, in: app) {
                            edges.append(
                                Edge(
                                    from: flowID(flow.name.value), to: flowID(parent), kind: .toParent,
                                    label: "forward \(step.name)"))
                        }
                    case .forwardToCurrentFlow: break
                    }
                }
                if let end = handler.end {
                    for parent in Self.parents(of: flow, in: app) {
                        edges.append(
                            Edge(
                                from: flowID(flow.name.value), to: flowID(parent), kind: .toParent,
                                label: "end \(end.name)"))
                    }
                }
            }
        }
        for flow in app.flows {
            guard let adapt = flow.adapt else { continue }
            let id = "kind_" + Self.safe(adapt.kind.value)
            add(Node(id: id, kind: .stepperKind, label: [adapt.kind.value]))
            edges.append(
                Edge(
                    from: flowID(flow.name.value), to: id, kind: .adapt,
                    label: "adapt\n" + adapt.steps.map(\.value).joined(separator: "\n")))
        }
        for (index, link) in app.deepLinks.enumerated() {
            let id = "link_\(index)"
            add(Node(id: id, kind: .deepLink, label: [link.pattern.source]))
            let chain = link.steps.map(\.name.value)
            for flow in app.flows where chain.contains(where: { flow.handler($0) != nil }) {
                edges.append(
                    Edge(from: id, to: flowID(flow.name.value), kind: .deepLink, label: chain.joined(separator: " → ")))
            }
        }
        self.nodes = nodes
        self.edges = edges
    }

    private static func parents(of flow: FlowDecl, in app: AppFile) -> [String] {
        app.flows.filter { parent in
            parent.handlers.contains { handler in
                handler.contributors.contains { contributor in
                    if case .flow(let name, _, _) = contributor.kind { return name.value == flow.name.value }
                    return false
                }
            }
        }.map(\.name.value)
    }

    static func safe(_ text: String) -> String {
        String(
            text.unicodeScalars.map {
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) ? Character($0) : "_"
            })
    }

    // MARK: - Graphviz

    /// The graph in Graphviz's DOT language.
    public var dot: String {
        var lines = [
            "digraph \(Self.dotString(name)) {", "  rankdir=LR;", "  node [fontname=\"Helvetica\", fontsize=11];",
            "  edge [fontname=\"Helvetica\", fontsize=9];",
        ]
        for node in nodes {
            let shape: String
            switch node.kind {
            case .session: shape = "shape=circle, style=filled, fillcolor=\"#dddddd\""
            case .flow: shape = "shape=box, style=\"rounded,bold\""
            case .screen: shape = "shape=note"
            case .deepLink: shape = "shape=cds, style=filled, fillcolor=\"#e8f0ff\""
            case .stepperKind: shape = "shape=hexagon, style=filled, fillcolor=\"#fff0d8\""
            }
            lines.append("  \(node.id) [label=\(Self.dotString(node.label.joined(separator: "\n"))), \(shape)];")
        }
        for edge in edges {
            let style: String
            switch edge.kind {
            case .child: style = "penwidth=2"
            case .contributes: style = "style=dashed"
            case .steps: style = "color=\"#2060c0\", fontcolor=\"#2060c0\""
            case .toParent: style = "style=dotted, color=\"#a03030\", fontcolor=\"#a03030\""
            case .deepLink: style = "color=\"#208040\", fontcolor=\"#208040\""
            case .adapt: style = "style=dashed, color=\"#c07000\", fontcolor=\"#c07000\""
            }
            lines.append("  \(edge.from) -> \(edge.to) [label=\(Self.dotString(edge.label)), \(style)];")
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    private static func dotString(_ text: String) -> String {
        "\""
            + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n") + "\""
    }

    // MARK: - Mermaid

    /// The graph as a Mermaid flowchart.
    public var mermaid: String {
        var lines = ["flowchart LR"]
        for node in nodes {
            let label = Self.mermaidString(node.label.joined(separator: "<br/>"))
            switch node.kind {
            case .session: lines.append("  \(node.id)((\(label)))")
            case .flow: lines.append("  \(node.id)(\(label))")
            case .screen: lines.append("  \(node.id)[\(label)]")
            case .deepLink: lines.append("  \(node.id)>\(label)]")
            case .stepperKind: lines.append("  \(node.id){{\(label)}}")
            }
        }
        for edge in edges {
            let label = Self.mermaidString(edge.label.replacingOccurrences(of: "\n", with: "<br/>"))
            let arrow: String
            switch edge.kind {
            case .child: arrow = "==>"
            case .contributes, .toParent, .adapt: arrow = "-.->"
            case .steps, .deepLink: arrow = "-->"
            }
            lines.append("  \(edge.from) \(arrow)|\(label)| \(edge.to)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func mermaidString(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\"", with: "#quot;") + "\""
    }
}
