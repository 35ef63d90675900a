package import FlowCore

/// A deep link's URI pattern: `movies://wishlist/movie/{id:int}`.
///
/// A scheme, `://`, then segments split on `/` (the host is the first); a segment is literal text or a whole-segment
/// variable `{name}` (a string) or `{name:int}`. A URI matches when it has the scheme, as many segments, the same
/// literal segments and, for `int` variables, an integer there; a query (`?…`) or fragment (`#…`) is ignored.
///
/// `Sendable`: a value.
package struct URIPattern: Sendable, Hashable, CustomStringConvertible {
    package enum Segment: Sendable, Hashable {
        case literal(String)
        case variable(String, isInt: Bool)
    }

    package var scheme: String
    package var segments: [Segment]
    package var source: String
    package var location: SourceLocation

    /// Parses a pattern.
    ///
    /// - Throws: a ``FlowFileDiagnostic/Code/badURIPattern`` diagnostic.
    package init(parsing text: String, at location: SourceLocation) throws(FlowFileDiagnostic) {
        func fail(_ message: String) -> FlowFileDiagnostic {
            FlowFileDiagnostic(
                .badURIPattern, at: location, "URI pattern '\(text)': \(message)",
                fix: "write scheme://host/segment/{name} or {name:int}, a variable being a whole segment"
            )
        }
        guard let separator = text.range(of: "://"), separator.lowerBound > text.startIndex else {
            throw fail("no scheme (scheme://…)")
        }
        scheme = String(text[..<separator.lowerBound])
        let rest = text[separator.upperBound...]
        guard !rest.isEmpty else { throw fail("nothing after the scheme") }
        // A URI's query and fragment are ignored when it is matched, so a pattern with one would match nothing.
        if let mark = rest.first(where: { $0 == "?" || $0 == "#" }) {
            throw fail("'\(mark)' starts a query or fragment, which matching ignores")
        }
        var segments: [Segment] = []
        var names: Set<String> = []
        for piece in rest.split(separator: "/", omittingEmptySubsequences: false) {
            guard !piece.isEmpty else { throw fail("an empty segment (//)") }
            if piece.first == "{" || piece.last == "}" || piece.contains("{") {
                guard piece.first == "{", piece.last == "}" else {
                    throw fail("'\(piece)': a variable is a whole segment")
                }
                let inner = piece.dropFirst().dropLast().split(separator: ":", omittingEmptySubsequences: false)
                let name = String(inner[0])
                guard Template.isIdentifier(name), inner.count <= 2 else {
                    throw fail("'\(piece)' is not {name} or {name:int}")
                }
                let type = inner.count == 2 ? String(inner[1]) : "string"
                guard type == "int" || type == "string" else { throw fail("'\(piece)': a variable is string or int") }
                guard names.insert(name).inserted else { throw fail("the variable '\(name)' is named twice") }
                segments.append(.variable(name, isInt: type == "int"))
            } else {
                segments.append(.literal(String(piece)))
            }
        }
        self.segments = segments
        self.source = text
        self.location = location
    }

    /// The variables, with their types.
    package var variables: [String: PayloadType] {
        var variables: [String: PayloadType] = [:]
        for case .variable(let name, let isInt) in segments { variables[name] = isInt ? .int : .string }
        return variables
    }

    /// The pattern with each variable written as `*` (for comparing patterns).
    var shape: String {
        scheme + "://"
            + segments.map { segment in
                if case .literal(let text) = segment { return text }
                return "*"
            }.joined(separator: "/")
    }

    /// The variables' values when `uri` matches, `nil` otherwise.
    package func match(_ uri: String) -> [String: JSONValue]? {
        guard let separator = uri.range(of: "://"), uri[..<separator.lowerBound] == scheme else { return nil }
        var rest = uri[separator.upperBound...]
        if let end = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) { rest = rest[..<end] }
        let pieces = rest.split(separator: "/", omittingEmptySubsequences: false)
        guard pieces.count == segments.count else { return nil }
        var values: [String: JSONValue] = [:]
        for (piece, segment) in zip(pieces, segments) {
            switch segment {
            case .literal(let text): guard piece == text else { return nil }
            case .variable(let name, let isInt):
                let text = String(piece).removingPercentEncodingIfPossible
                guard !text.isEmpty else { return nil }
                if isInt {
                    guard let value = Int(text) else { return nil }
                    values[name] = .int(value)
                } else {
                    values[name] = .string(text)
                }
            }
        }
        return values
    }

    package var description: String { source }
}

extension String {
    /// `%XX` sequences decoded when they make UTF-8; any other `%` is kept as written, and the text as is when the
    /// bytes are not UTF-8.
    fileprivate var removingPercentEncodingIfPossible: String {
        guard contains("%") else { return self }
        let source = Array(utf8)
        var bytes: [UInt8] = []
        var index = 0
        while index < source.count {
            if source[index] == UInt8(ascii: "%"), index + 2 < source.count,
                let high = hexDigit(source[index + 1]), let low = hexDigit(source[index + 2])
            {
                bytes.append(high << 4 | low)
                index += 3
            } else {
                bytes.append(source[index])
                index += 1
            }
        }
        return String(validating: bytes, as: UTF8.self) ?? self
    }
}

/// The value of an ASCII hex digit.
private func hexDigit(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
    default: return nil
    }
}
