package import FlowCore
internal import Yams

/// A node of a flow file as written, YAML or JSON alike, each with its place in the file.
///
/// The loader reads the file into these (through Yams, which keeps each node's mark) and the decoder reads the
/// model from them, so that every diagnostic can point at what it is about.
///
/// `Sendable`: values.
package struct FileNode: Sendable, Hashable {
    /// What a node holds.
    package indirect enum Value: Sendable, Hashable {
        /// A scalar's text; `plain` when written without quotes (so `12` may be a number, `"12"` is a string).
        case scalar(String, plain: Bool)
        /// A mapping's pairs, in file order.
        case mapping([Pair])
        /// A sequence's items.
        case sequence([FileNode])
    }

    /// A mapping's key and value.
    package struct Pair: Sendable, Hashable {
        package var key: FileNode
        package var value: FileNode
    }

    package var value: Value
    package var location: SourceLocation

    /// What the node is, for a message: `a mapping`, `a list`, `the text 'x'`.
    var what: String {
        switch value {
        case .scalar(let text, _): return "'\(text)'"
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        }
    }

    /// The scalar's text, or `nil`.
    var text: String? {
        if case .scalar(let text, _) = value { return text }
        return nil
    }

    /// The mapping's pairs, or `nil`.
    var pairs: [Pair]? {
        if case .mapping(let pairs) = value { return pairs }
        return nil
    }

    /// Reads a file's text (YAML or JSON) into its nodes.
    ///
    /// - Throws: ``FlowFileErrors`` for a syntax error, a key written twice or an empty document.
    package static func read(_ text: String, file: String) throws(FlowFileErrors) -> FileNode {
        try FileNodeReader.read(text, file: file)
    }

    /// The node's integer as JSON Schema counts one (`1` or `1.0`, as the schema's `integer` and `const: 1` take
    /// them); `nil` for anything else.
    var integer: Int? {
        switch json {
        case .int(let value): return value
        case .double(let value): return Int(exactly: value)
        default: return nil
        }
    }

    /// The node as a JSON value: plain scalars are `null`, booleans and numbers when they read as one (YAML 1.2's
    /// core schema: `null`, `~`, `true`, `false`, integers, decimals), quoted ones are strings.
    package var json: JSONValue {
        switch value {
        case .scalar(let text, let plain):
            guard plain else { return .string(text) }
            switch text {
            case "null", "~", "": return .null
            case "true": return .bool(true)
            case "false": return .bool(false)
            default:
                if let int = Int(text) { return .int(int) }
                if text.first.map({ $0.isNumber || $0 == "-" || $0 == "." }) == true, let double = Double(text) {
                    return .double(double)
                }
                return .string(text)
            }
        case .mapping(let pairs):
            var object: [String: JSONValue] = [:]
            for pair in pairs { object[pair.key.text ?? pair.key.what] = pair.value.json }
            return .object(object)
        case .sequence(let items):
            return .array(items.map(\.json))
        }
    }
}

/// Reads a file's text into ``FileNode``s.
enum FileNodeReader {
    /// The document's root node (aliases resolved to the anchored nodes); a syntax error or an empty document is
    /// reported, with its place.
    static func read(_ text: String, file: String) throws(FlowFileErrors) -> FileNode {
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch let error as YamlError {
            throw FlowFileErrors([diagnostic(for: error, file: file, text: text)])
        } catch {
            throw FlowFileErrors([
                FlowFileDiagnostic(
                    .syntax, at: SourceLocation(file: file, line: 1, column: 1),
                    "the file is not YAML or JSON: \(error)",
                    fix: "write a YAML mapping (or a JSON object) as docs/FLOWFILE.md shows"
                )
            ])
        }
        guard let root else {
            throw FlowFileErrors([
                FlowFileDiagnostic(
                    .syntax, at: SourceLocation(file: file, line: 1, column: 1), "the file is empty",
                    fix: "write a YAML mapping (or a JSON object) as docs/FLOWFILE.md shows"
                )
            ])
        }
        let sink = DiagnosticSink()
        let node = convert(root, file: file, sink: sink)
        if !sink.diagnostics.isEmpty { throw FlowFileErrors(sink.diagnostics) }
        return node
    }

    private static func location(_ mark: Mark?, file: String) -> SourceLocation {
        SourceLocation(file: file, line: mark?.line ?? 1, column: mark?.column ?? 1)
    }

    private static func convert(_ node: Node, file: String, sink: DiagnosticSink) -> FileNode {
        let at = location(node.mark, file: file)
        switch node {
        case .scalar(let scalar):
            return FileNode(value: .scalar(scalar.string, plain: scalar.style == .plain), location: at)
        case .mapping(let mapping):
            let pairs = mapping.map {
                FileNode.Pair(
                    key: convert($0.key, file: file, sink: sink), value: convert($0.value, file: file, sink: sink))
            }
            return FileNode(value: .mapping(pairs), location: at)
        case .sequence(let sequence):
            return FileNode(value: .sequence(sequence.map { convert($0, file: file, sink: sink) }), location: at)
        case .alias:
            // Yams.compose resolves every alias to its anchored node (an undefined one is a syntax error), so this is
            // only an alias a later Yams would leave unresolved.
            sink.report(
                .syntax, at: at, "a YAML alias (*name) that was not resolved",
                fix: "write the value out where it is used"
            )
            return FileNode(value: .scalar("", plain: true), location: at)
        }
    }

    /// Where `key` is written again in a block mapping, at the same column as its first place (Yams reports only the
    /// first); `nil` when it is not found that way (a flow mapping, say).
    private static func secondKey(_ key: String, after first: SourceLocation, in text: String) -> SourceLocation? {
        // Character-wise, "\r\n" is one character: split on every line break, as Yams counts lines.
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        for (index, line) in lines.enumerated().dropFirst(first.line) {
            let scalars = Array(line.unicodeScalars)
            guard scalars.count >= first.column else { continue }
            let before = String(String.UnicodeScalarView(scalars[..<(first.column - 1)]))
            let rest = String(String.UnicodeScalarView(scalars[(first.column - 1)...]))
            guard before.allSatisfy({ $0 == " " || $0 == "-" }) else { continue }
            if rest.hasPrefix(key + ":") || rest.hasPrefix("\"\(key)\":") || rest.hasPrefix("'\(key)':") {
                return SourceLocation(file: first.file, line: index + 1, column: first.column)
            }
        }
        return nil
    }

    private static func diagnostic(for error: YamlError, file: String, text: String) -> FlowFileDiagnostic {
        let fix = "correct the YAML (or JSON) syntax here"
        switch error {
        case .scanner(_, let problem, let mark, _), .parser(_, let problem, let mark, _),
            .composer(_, let problem, let mark, _):
            return FlowFileDiagnostic(.syntax, at: location(mark, file: file), "YAML syntax: \(problem)", fix: fix)
        case .duplicatedKeysInMapping(let duplicates, let context):
            let names = duplicates.map { "'\($0)'" }.joined(separator: ", ")
            let first = location(context.mark, file: file)
            let second = duplicates.first.flatMap { secondKey($0, after: first, in: text) }
            return FlowFileDiagnostic(
                .duplicateKey, at: second ?? first,
                "the key \(names) is written twice in one mapping"
                    + (second == nil ? "" : " (first at \(first.lineAndColumn))"),
                fix: "keep one of them (a mapping's keys are unique)"
            )
        default:
            return FlowFileDiagnostic(
                .syntax, at: SourceLocation(file: file, line: 1, column: 1), "YAML syntax: \(error)", fix: fix
            )
        }
    }
}
