package import FlowCore

/// A text with references to values in scope, the flow file's one template syntax: `wishlist.movie.{payload}`,
/// `{payload.id}`, `{id}` (a deep link's URI variable).
///
/// - `{name}` or `{name.field.field}` is a reference: the value `name` names in scope (`payload` in a flow's step
///   handler, the URI's variables in a deep link), then the object fields along the path.
/// - `{{` and `}}` are a literal `{` and `}`.
/// - A template that is one reference and nothing else (`"{payload}"`) gives the value itself, with its JSON type (an
///   integer stays an integer); anywhere else a value is written into the text (strings without quotes, numbers in
///   decimal, other values as JSON).
///
/// `Sendable`: a value.
package struct Template: Sendable, Hashable, CustomStringConvertible {
    /// A piece of a template.
    package enum Part: Sendable, Hashable {
        case literal(String)
        /// A reference; `offset` is where its `{` is, in Unicode scalars from the start of the text.
        case reference(path: [String], offset: Int)
    }

    package var parts: [Part]
    /// The text as written.
    package var source: String
    /// Where the text's first character is.
    package var location: SourceLocation

    /// A template without references.
    package init(literal text: String, at location: SourceLocation) {
        parts = text.isEmpty ? [] : [.literal(text)]
        source = text
        self.location = location
    }

    /// Parses `text` (first character at `location`).
    ///
    /// - Throws: a ``FlowFileDiagnostic/Code/badTemplate`` diagnostic for an unclosed `{`, a stray `}`, an empty
    ///   reference or a reference that is not `name(.field)*`.
    package init(parsing text: String, at location: SourceLocation) throws(FlowFileDiagnostic) {
        var parts: [Part] = []
        var literal = ""
        let scalars = Array(text.unicodeScalars)
        var index = 0
        func fail(_ message: String, at offset: Int) -> FlowFileDiagnostic {
            FlowFileDiagnostic(
                .badTemplate, at: location.advanced(by: offset), "template '\(text)': \(message)",
                fix: "write a reference as {payload} or {payload.field}, a literal brace as {{ or }}"
            )
        }
        while index < scalars.count {
            let scalar = scalars[index]
            let next = index + 1 < scalars.count ? scalars[index + 1] : nil
            if scalar == "{" && next == "{" || scalar == "}" && next == "}" {
                literal.unicodeScalars.append(scalar)
                index += 2
            } else if scalar == "}" {
                throw fail("a '}' closes no '{'", at: index)
            } else if scalar == "{" {
                guard let close = scalars[index...].firstIndex(of: "}") else {
                    throw fail("a '{' is not closed", at: index)
                }
                let inner = String(String.UnicodeScalarView(scalars[(index + 1)..<close]))
                let path = inner.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
                guard path.allSatisfy(Self.isIdentifier) else {
                    throw fail("'{\(inner)}' is not a reference", at: index)
                }
                if !literal.isEmpty { parts.append(.literal(literal)) }
                literal = ""
                parts.append(.reference(path: path, offset: index))
                index = close + 1
            } else {
                literal.unicodeScalars.append(scalar)
                index += 1
            }
        }
        if !literal.isEmpty { parts.append(.literal(literal)) }
        self.parts = parts
        self.source = text
        self.location = location
    }

    static func isIdentifier(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, first == "_" || first.properties.isAlphabetic else { return false }
        return text.unicodeScalars.allSatisfy {
            $0 == "_" || $0 == "-" || $0.properties.isAlphabetic || ("0"..."9").contains($0)
        }
    }

    /// The references, with where each is written.
    package var references: [(path: [String], location: SourceLocation)] {
        parts.compactMap { part in
            if case .reference(let path, let offset) = part { return (path, location.advanced(by: offset)) }
            return nil
        }
    }

    /// Whether the template is one reference and nothing else (its value keeps its type).
    package var isWholeReference: Bool {
        if parts.count == 1, case .reference = parts[0] { return true }
        return false
    }

    /// Whether the template has no reference.
    package var isLiteral: Bool { references.isEmpty }

    /// The value, with `scope` giving each name's value.
    ///
    /// - Throws: ``TemplateError`` when a name is not in scope or a field is missing.
    package func evaluate(in scope: [String: JSONValue]) throws(TemplateError) -> JSONValue {
        if isWholeReference, case .reference(let path, _) = parts[0] {
            return try Self.resolve(path, in: scope, source)
        }
        var text = ""
        for part in parts {
            switch part {
            case .literal(let literal): text += literal
            case .reference(let path, _):
                switch try Self.resolve(path, in: scope, source) {
                case .string(let string): text += string
                case let value: text += value.description
                }
            }
        }
        return .string(text)
    }

    private static func resolve(_ path: [String], in scope: [String: JSONValue], _ source: String)
        throws(TemplateError) -> JSONValue
    {
        guard var value = scope[path[0]] else { throw TemplateError(template: source, missing: path[0]) }
        for (depth, field) in path.enumerated().dropFirst() {
            guard case .object(let object) = value, let member = object[field] else {
                throw TemplateError(template: source, missing: path[...depth].joined(separator: "."))
            }
            value = member
        }
        return value
    }

    package var description: String { source }
}

/// A template named a value its scope does not have (a payload without the field, say).
///
/// `Sendable`: a value.
package struct TemplateError: Error, Hashable, Sendable, CustomStringConvertible {
    package var template: String
    /// The reference that has no value (`payload.id`).
    package var missing: String

    package var description: String { "template '\(template)': no value for '\(missing)'" }
}

/// A JSON value whose strings are templates: a screen's data, a step's payload, a remote stepper's context.
///
/// `Sendable`: values.
package indirect enum TemplateValue: Sendable, Hashable {
    /// A value without strings in it (a number, a boolean, null).
    case literal(JSONValue)
    case text(Template)
    case array([TemplateValue])
    case object([String: TemplateValue])

    /// The value, each template evaluated in `scope`.
    package func evaluate(in scope: [String: JSONValue]) throws(TemplateError) -> JSONValue {
        switch self {
        case .literal(let value): return value
        case .text(let template): return try template.evaluate(in: scope)
        case .array(let items):
            var values: [JSONValue] = []
            for item in items { values.append(try item.evaluate(in: scope)) }
            return .array(values)
        case .object(let members):
            var values: [String: JSONValue] = [:]
            for (key, member) in members { values[key] = try member.evaluate(in: scope) }
            return .object(values)
        }
    }

    /// Every template in it.
    package var templates: [Template] {
        switch self {
        case .literal: return []
        case .text(let template): return [template]
        case .array(let items): return items.flatMap(\.templates)
        case .object(let members): return members.keys.sorted().flatMap { members[$0]!.templates }
        }
    }
}
