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

    /// A plain scalar by YAML 1.2's core schema: `null`, `Null`, `NULL`, `~` and nothing are null; `true`, `True`,
    /// `TRUE` (and `false`'s) booleans; `[-+]?[0-9]+`, `0o…` and `0x…` integers; decimals with an optional sign and
    /// exponent numbers. `.inf` and `.nan`, which JSON has no value for, stay text.
    static func coreSchemaValue(_ text: String) -> JSONValue {
        switch text {
        case "", "~", "null", "Null", "NULL": return .null
        case "true", "True", "TRUE": return .bool(true)
        case "false", "False", "FALSE": return .bool(false)
        default: break
        }
        let digits = text.drop { $0 == "-" || $0 == "+" }
        if text.count - digits.count <= 1, !digits.isEmpty, digits.allSatisfy(\.isASCIIDigit) {
            // An integer too large for Int is still a number.
            return Int(text).map(JSONValue.int) ?? Double(text).map(JSONValue.double) ?? .string(text)
        }
        for (prefix, radix) in [("0o", 8), ("0x", 16)] where text.hasPrefix(prefix) {
            if let int = Int(text.dropFirst(2), radix: radix) { return .int(int) }
        }
        if isCoreSchemaDecimal(text), let double = Double(text), double.isFinite { return .double(double) }
        return .string(text)
    }

    /// `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`, YAML 1.2's core schema float (infinities aside).
    private static func isCoreSchemaDecimal(_ text: String) -> Bool {
        var rest = Substring(text)
        if rest.first == "-" || rest.first == "+" { rest = rest.dropFirst() }
        let whole = rest.prefix { $0.isASCIIDigit }
        rest = rest.dropFirst(whole.count)
        var fraction = Substring()
        if rest.first == "." {
            rest = rest.dropFirst()
            fraction = rest.prefix { $0.isASCIIDigit }
            rest = rest.dropFirst(fraction.count)
        }
        guard !whole.isEmpty || !fraction.isEmpty else { return false }
        if rest.first == "e" || rest.first == "E" {
            rest = rest.dropFirst()
            if rest.first == "-" || rest.first == "+" { rest = rest.dropFirst() }
            let exponent = rest.prefix { $0.isASCIIDigit }
            guard !exponent.isEmpty else { return false }
            rest = rest.dropFirst(exponent.count)
        }
        return rest.isEmpty
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

    /// The node as a JSON value: plain scalars are `null`, booleans and numbers when they read as one by YAML 1.2's
    /// core schema (what YAML editors and the schema's validators read), quoted ones are strings.
    package var json: JSONValue {
        switch value {
        case .scalar(let text, let plain):
            guard plain else { return .string(text) }
            return Self.coreSchemaValue(text)
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

extension Character {
    /// `0` to `9`: not the other digits `isNumber` takes.
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
