/// Reads one mapping of a flow file: reports keys it does not know (with the nearest known one) and values of the
/// wrong shape, so that the decoder can go on and report everything in one run.
struct MappingReader {
    let node: FileNode
    let pairs: [FileNode.Pair]
    let sink: DiagnosticSink
    /// What the mapping is, for messages: `a flow`, `a step handler`.
    let what: String

    /// `nil` (reported) when `node` is not a mapping; unknown keys are reported.
    init?(_ node: FileNode, as what: String, keys allowed: [String], sink: DiagnosticSink) {
        guard let pairs = node.pairs else {
            sink.report(
                .wrongType, at: node.location, "\(what) is a mapping, not \(node.what)",
                fix: "write it as a mapping of \(allowed.map { "'\($0)'" }.joined(separator: ", "))"
            )
            return nil
        }
        self.node = node
        self.pairs = pairs
        self.sink = sink
        self.what = what
        for pair in pairs {
            let key = pair.key.text ?? pair.key.what
            if !allowed.contains(key) {
                sink.report(
                    .unknownKey, at: pair.key.location, "unknown key '\(key)' in \(what)",
                    fix: instead(of: key, among: allowed, otherwise: "")
                )
            }
        }
    }

    /// The one key of `keywords` the mapping has, with its value; `nil` (reported at the mapping, with `fix`) when it
    /// has none (`none`) or several (`several` words the report from the keys written).
    func one(
        of keywords: [String], none: String, several: ([String]) -> String, fix: String
    ) -> (keyword: String, value: FileNode)? {
        let written = keywords.filter { value($0) != nil }
        guard written.count == 1, let keyword = written.first, let value = value(keyword) else {
            sink.report(.wrongType, at: node.location, written.isEmpty ? none : several(written), fix: fix)
            return nil
        }
        return (keyword, value)
    }

    /// The value of `key`, if written.
    func value(_ key: String) -> FileNode? { pairs.first { $0.key.text == key }?.value }

    /// The key node of `key`, if written.
    func keyNode(_ key: String) -> FileNode? { pairs.first { $0.key.text == key }?.key }

    /// The value of `key`; reported when missing.
    func required(_ key: String, _ hint: String) -> FileNode? {
        if let value = value(key) { return value }
        sink.report(.missingKey, at: node.location, "\(what) has no '\(key)'", fix: "add '\(key): \(hint)'")
        return nil
    }

    /// The text of a scalar `key`; reported when it is not a scalar.
    func string(_ key: String) -> Name? {
        guard let value = value(key) else { return nil }
        return MappingReader.scalar(value, as: "'\(key)' of \(what)", sink: sink)
    }

    /// A boolean `key` (`false` when absent); reported when it is not `true` or `false`.
    func bool(_ key: String) -> Bool {
        guard let value = value(key) else { return false }
        if case .bool(let bool) = value.json { return bool }
        sink.report(
            .wrongType, at: value.location, "'\(key)' of \(what) is true or false, not \(value.what)",
            fix: "write '\(key): true' or leave it out")
        return false
    }

    /// The text of a scalar node that reads as a string; reported when it is not one. A plain number, `true`,
    /// `false` or an empty value is refused as the schema refuses it (its names and texts are strings).
    static func scalar(_ node: FileNode, as what: String, sink: DiagnosticSink) -> Name? {
        guard let text = node.text else {
            sink.report(
                .wrongType, at: node.location, "\(what) is a name, not \(node.what)", fix: "write a single name here")
            return nil
        }
        switch node.json {
        case .string: return Name(value: text, location: node.location)
        case .bool:
            sink.report(
                .wrongType, at: node.location, "\(what) is a string, not the boolean \(text)",
                fix: "write it in quotes: \"\(text)\"")
        case .null:
            sink.report(
                .wrongType, at: node.location, "\(what) is left empty", fix: "write a value here, or leave it out")
        default:
            sink.report(
                .wrongType, at: node.location, "\(what) is a string, not the number \(text)",
                fix: "write it in quotes: \"\(text)\"")
        }
        return nil
    }

    /// The items of a list node; a single scalar counts as a list of one. `nil` (reported) for a mapping.
    static func list(_ node: FileNode, as what: String, sink: DiagnosticSink) -> [FileNode]? {
        switch node.value {
        case .sequence(let items): return items
        case .scalar: return [node]
        case .mapping:
            sink.report(
                .wrongType, at: node.location, "\(what) is a list, not a mapping",
                fix: "write it as a list ('- item' lines or [a, b])")
            return nil
        }
    }

    /// The pairs of a mapping node whose keys are names (steps, flows, screens); `nil` (reported) otherwise. A value
    /// left empty (`name:`) is kept as an empty scalar.
    static func namedEntries(_ node: FileNode, as what: String, sink: DiagnosticSink) -> [(
        name: Name, value: FileNode
    )]? {
        guard let pairs = node.pairs else {
            sink.report(
                .wrongType, at: node.location, "\(what) is a mapping of names, not \(node.what)",
                fix: "write one 'name: …' line for each"
            )
            return nil
        }
        return pairs.map { (Name(value: $0.key.text ?? $0.key.what, location: $0.key.location), $0.value) }
    }
}

extension FileNode {
    /// Whether the node is empty: `name:` with nothing after it, or `{}`.
    var isEmpty: Bool {
        switch value {
        case .scalar(let text, let plain): return plain && (text.isEmpty || text == "~" || text == "null")
        case .mapping(let pairs): return pairs.isEmpty
        case .sequence: return false
        }
    }
}
