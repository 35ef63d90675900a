// As data (a daemon's state snapshot): the nodes in ID order, so that the same model always has the same bytes. A node
// says only what cannot be derived: its screen (a view's kind, a type equal to the kind's name and null data left
// out), its containers' children and its modal; where it hangs follows from those (docs/PERFORMANCE.md).
extension PresentationModel: Codable {
    private enum CodingKeys: String, CodingKey { case root, nodes }

    /// The first format's whole node.
    private enum FirstFormatKeys: String, CodingKey { case screen, placement, children, selectedTab, master, detail, presented }

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
            if container.contains(.node) {
                let first = try container.nestedContainer(keyedBy: FirstFormatKeys.self, forKey: .node)
                var node = Node(
                    screen: try first.decode(Screen.self, forKey: .screen),
                    placement: try first.decode(Placement.self, forKey: .placement))
                node.children = try first.decode([PresentableID].self, forKey: .children)
                node.selectedTab = try first.decode(Int.self, forKey: .selectedTab)
                node.master = try first.decodeIfPresent(PresentableID.self, forKey: .master)
                node.detail = try first.decodeIfPresent(PresentableID.self, forKey: .detail)
                node.presented = try first.decodeIfPresent(PresentableID.self, forKey: .presented)
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
        for saved in try container.decode([SavedNode].self, forKey: .nodes) {
            nodes[saved.id] = saved.node
        }
        for node in nodes.values { estimatedBytes &+= node.screen.estimatedBytes }
        if let contradiction = placeNodes() {
            throw DecodingError.dataCorruptedError(forKey: .nodes, in: container, debugDescription: contradiction)
        }
    }

    /// The saved model read straight from a JSON value, as ``init(from:)`` reads it (a daemon restores thousands of
    /// screens this way without `Codable`'s cost per field); `nil` for the first format (a whole `node`), which
    /// ``init(from:)`` reads.
    ///
    /// - Throws: ``JSONValueDecoder/Unsupported`` where ``init(from:)`` would throw or read it otherwise.
    init?(savedValue: JSONValue) throws {
        let unsupported = JSONValueDecoder.Unsupported()
        guard case .object(let fields) = savedValue, case .array(let saved)? = fields["nodes"] else { throw unsupported }
        var root: PresentableID?
        switch fields["root"] {
        case nil, .null?: break
        case .string(let id)?: root = PresentableID(id)
        default: throw unsupported
        }
        func presentable(_ value: JSONValue?) throws -> PresentableID? {
            switch value {
            case nil, .null?: return nil
            case .string(let id)?: return PresentableID(id)
            default: throw unsupported
            }
        }
        var nodes: [SavedScreen] = []
        nodes.reserveCapacity(saved.count)
        for element in saved {
            guard case .object(let node) = element else { throw unsupported }
            guard node["node"] == nil else { return nil }
            guard let id = try presentable(node["id"]) else { throw unsupported }
            var screen = SavedScreen(id: id)
            switch node["kind"] {
            case nil, .null?: break
            case .string(let name)?: screen.kind = Screen.Kind(name)
            default: throw unsupported
            }
            switch node["type"] {
            case nil, .null?: break
            case .string(let name)?: screen.type = name
            default: throw unsupported
            }
            screen.data = node["data"] ?? .null
            switch node["children"] {
            case nil, .null?: break
            case .array(let children)?:
                screen.children = try children.map { child in
                    guard case .string(let id) = child else { throw unsupported }
                    return PresentableID(id)
                }
            default: throw unsupported
            }
            switch node["tab"] {
            case nil, .null?: break
            case .int(let tab)?: screen.tab = tab
            default: throw unsupported
            }
            screen.master = try presentable(node["master"])
            screen.detail = try presentable(node["detail"])
            screen.presented = try presentable(node["presented"])
            nodes.append(screen)
        }
        guard let model = PresentationModel(saved: nodes, root: root) else { throw unsupported }
        self = model
    }

    /// One node of the saved model (the second format), for readers that parse it themselves.
    package struct SavedScreen: Sendable {
        package var id: PresentableID
        package var kind = Screen.Kind.view
        /// `nil`: the kind's name.
        package var type: String?
        package var data = JSONValue.null
        package var children: [PresentableID] = []
        package var tab = 0
        package var master: PresentableID?
        package var detail: PresentableID?
        package var presented: PresentableID?

        package init(id: PresentableID) { self.id = id }
    }

    /// The nodes as ``encode(to:)`` writes them, in its order (by ID), for writers that write them themselves: a
    /// daemon's snapshot writes thousands of screens without `Codable`'s cost per field.
    package var savedScreens: [SavedScreen] {
        nodes.keys.sorted().map { id in
            let node = nodes[id]!
            var saved = SavedScreen(id: id)
            saved.kind = node.screen.kind
            saved.type = node.screen.type == node.screen.kind.rawValue ? nil : node.screen.type
            saved.data = node.screen.data
            saved.children = node.children
            saved.tab = node.selectedTab
            saved.master = node.master
            saved.detail = node.detail
            saved.presented = node.presented
            return saved
        }
    }

    /// The model the saved nodes describe, as ``init(from:)`` makes it (a later node with the same ID replaces an
    /// earlier one); `nil` when they contradict themselves (a node missing, placed twice or hanging from nothing).
    ///
    /// One hash table insertion per node and one lookup per reference to it: a restart reads thousands of screens
    /// this way (docs/PERFORMANCE.md). Every node goes in as the window's, then each reference places it once.
    package init?(saved: [SavedScreen], root: PresentableID?) {
        nodes.reserveCapacity(saved.count)
        for node in saved {
            var made = Node(
                screen: Screen(id: node.id, kind: node.kind, type: node.type, data: node.data), placement: .window)
            made.children = node.children
            made.selectedTab = node.tab
            made.master = node.master
            made.detail = node.detail
            made.presented = node.presented
            guard nodes.updateValue(made, forKey: node.id) == nil else { return nil }  // left to init(from:)
            estimatedBytes &+= made.screen.estimatedBytes
        }
        var placed = 0
        func place(_ id: PresentableID, _ placement: Placement) -> Bool {
            guard id != root, let index = nodes.index(forKey: id), nodes.values[index].placement == .window else {
                return false
            }
            nodes.values[index].placement = placement
            placed += 1
            return true
        }
        for node in saved {
            for child in node.children where !place(child, .child(of: node.id)) { return nil }
            if let master = node.master, !place(master, .child(of: node.id)) { return nil }
            if let detail = node.detail, !place(detail, .child(of: node.id)) { return nil }
            if let presented = node.presented, !place(presented, .presented(over: node.id)) { return nil }
        }
        // Every node placed once, the root by being the root: none is left hanging from nothing.
        if let root {
            guard nodes[root] != nil, placed == nodes.count - 1 else { return nil }
        } else {
            guard nodes.isEmpty else { return nil }
        }
        rootID = root
    }

    /// Fills in each node's placement from its parent's children and modal; why the nodes contradict themselves
    /// (one missing or placed twice, or hanging from nothing), `nil` when they do not. The placements are found
    /// first and set after, so that the nodes are not copied while they are walked.
    private mutating func placeNodes() -> String? {
        var placements: [PresentableID: Placement] = [:]
        placements.reserveCapacity(nodes.count)
        func place(_ id: PresentableID, _ placement: Placement) -> String? {
            guard nodes[id] != nil, placements.updateValue(placement, forKey: id) == nil else {
                return "\(id) is missing or placed twice"
            }
            return nil
        }
        if let rootID, let contradiction = place(rootID, .window) { return contradiction }
        for (id, node) in nodes {
            for child in node.children {
                if let contradiction = place(child, .child(of: id)) { return contradiction }
            }
            if let master = node.master, let contradiction = place(master, .child(of: id)) { return contradiction }
            if let detail = node.detail, let contradiction = place(detail, .child(of: id)) { return contradiction }
            if let presented = node.presented, let contradiction = place(presented, .presented(over: id)) {
                return contradiction
            }
        }
        guard placements.count == nodes.count else {
            return "\(nodes.count - placements.count) presentable(s) hang from nothing"
        }
        for (id, placement) in placements { nodes[id]!.placement = placement }
        return nil
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(rootID, forKey: .root)
        try container.encode(nodes.keys.sorted().map { SavedNode(id: $0, node: nodes[$0]!) }, forKey: .nodes)
    }
}
