// As data (a daemon's state snapshot): the nodes in ID order, so that the same model always has the same bytes. A node
// says only what cannot be derived: its screen (a view's kind, a type equal to the kind's name and null data left
// out), its containers' children and its modal; where it hangs follows from those (docs/PERFORMANCE.md).
extension PresentationModel: Codable {
    private enum CodingKeys: String, CodingKey { case root, nodes }

    private enum NodeKeys: String, CodingKey {
        case id, kind, type, data, children, tab, master, detail, presented
        /// The first format's whole node (with its placement), still read.
        case node
    }

    private struct SavedNode: Codable {
        var id: PresentableID
        var node: Node

        init(id: PresentableID, node: Node) {
            self.id = id
            self.node = node
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: NodeKeys.self)
            id = try container.decode(PresentableID.self, forKey: .id)
            if let node = try container.decodeIfPresent(Node.self, forKey: .node) {
                self.node = node
                return
            }
            let kind = try container.decodeIfPresent(Screen.Kind.self, forKey: .kind) ?? .view
            let screen = Screen(
                id: id, kind: kind, type: try container.decodeIfPresent(String.self, forKey: .type),
                data: try container.decodeIfPresent(JSONValue.self, forKey: .data) ?? .null)
            // The placement is filled in once every node is read (``PresentationModel/init(from:)``).
            var node = Node(screen: screen, placement: .window)
            node.children = try container.decodeIfPresent([PresentableID].self, forKey: .children) ?? []
            node.selectedTab = try container.decodeIfPresent(Int.self, forKey: .tab) ?? 0
            node.master = try container.decodeIfPresent(PresentableID.self, forKey: .master)
            node.detail = try container.decodeIfPresent(PresentableID.self, forKey: .detail)
            node.presented = try container.decodeIfPresent(PresentableID.self, forKey: .presented)
            self.node = node
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: NodeKeys.self)
            let screen = node.screen
            try container.encode(id, forKey: .id)
            if screen.kind != .view { try container.encode(screen.kind, forKey: .kind) }
            if screen.type != screen.kind.rawValue { try container.encode(screen.type, forKey: .type) }
            if screen.data != .null { try container.encode(screen.data, forKey: .data) }
            if !node.children.isEmpty { try container.encode(node.children, forKey: .children) }
            if node.selectedTab != 0 { try container.encode(node.selectedTab, forKey: .tab) }
            try container.encodeIfPresent(node.master, forKey: .master)
            try container.encodeIfPresent(node.detail, forKey: .detail)
            try container.encodeIfPresent(node.presented, forKey: .presented)
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        rootID = try container.decodeIfPresent(PresentableID.self, forKey: .root)
        var placed: Set<PresentableID> = []
        for saved in try container.decode([SavedNode].self, forKey: .nodes) {
            nodes[saved.id] = saved.node
        }
        func place(_ id: PresentableID, _ placement: Placement) throws {
            guard nodes[id] != nil, placed.insert(id).inserted else {
                throw DecodingError.dataCorruptedError(
                    forKey: .nodes, in: container, debugDescription: "\(id) is missing or placed twice")
            }
            nodes[id]?.placement = placement
        }
        if let rootID { try place(rootID, .window) }
        for (id, node) in nodes {
            for child in node.children { try place(child, .child(of: id)) }
            if let master = node.master { try place(master, .child(of: id)) }
            if let detail = node.detail { try place(detail, .child(of: id)) }
            if let presented = node.presented { try place(presented, .presented(over: id)) }
        }
        guard placed.count == nodes.count else {
            throw DecodingError.dataCorruptedError(
                forKey: .nodes, in: container,
                debugDescription: "\(nodes.count - placed.count) presentable(s) hang from nothing")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(rootID, forKey: .root)
        try container.encode(nodes.keys.sorted().map { SavedNode(id: $0, node: nodes[$0]!) }, forKey: .nodes)
    }
}
