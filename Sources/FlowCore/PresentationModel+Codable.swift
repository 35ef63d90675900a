// As data (a daemon's state snapshot): the nodes in ID order, so that the same model always has the same bytes.
extension PresentationModel: Codable {
    private struct SavedNode: Codable {
        var id: PresentableID
        var node: Node
    }

    private enum CodingKeys: String, CodingKey { case root, nodes }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        rootID = try container.decodeIfPresent(PresentableID.self, forKey: .root)
        for saved in try container.decode([SavedNode].self, forKey: .nodes) { nodes[saved.id] = saved.node }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(rootID, forKey: .root)
        try container.encode(nodes.keys.sorted().map { SavedNode(id: $0, node: nodes[$0]!) }, forKey: .nodes)
    }
}
