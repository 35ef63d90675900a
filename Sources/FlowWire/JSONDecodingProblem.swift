#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import FlowCore

/// A `JSONDecoder` error said in terms of the JSON's fields (the wire's `malformedBody` text, a config file's error)
/// rather than Foundation's, which names Swift types and coding keys.
package enum JSONDecodingProblem {
    /// What is wrong, for a person: `error` (thrown by decoding `json`) with the field's path and, for a string no
    /// case of an enum takes, the value. `rfc8259`: `json` is known to be RFC 8259 JSON (the wire checks it first),
    /// so what Foundation cannot read of it is one of the two limits PROTOCOL.md §2 names, not broken JSON.
    package static func describe(_ error: any Error, in json: [UInt8], rfc8259: Bool = false) -> String {
        guard let decodingError = error as? DecodingError else { return "not valid JSON" }
        switch decodingError {
        case .keyNotFound(let key, let context):
            return "missing field '\(path(context.codingPath + [key]))'"
        case .typeMismatch(_, let context) where context.codingPath.isEmpty,
            .valueNotFound(_, let context) where context.codingPath.isEmpty:
            return "not a JSON object"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "field '\(path(context.codingPath))' has the wrong type"
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            // Foundation says "not valid JSON", without a path, also of valid JSON with a number its field cannot hold.
            guard (try? JSONDecoder().decode(JSONValue.self, from: Data(json))) != nil else {
                return rfc8259
                    ? "a number a double cannot hold (1e400) or an unpaired surrogate escape (\"\\ud800\")"
                    : "not valid JSON"
            }
            return "a number does not fit its field (a negative, fractional or too large integer)"
        case .dataCorrupted(let context):
            if case .string(let value)? = Self.value(at: context.codingPath, in: json),
                context.debugDescription.hasPrefix("Cannot initialize")
            {
                // Foundation's wording for a string no enum case takes names a Swift type, not the protocol's field.
                return "field '\(path(context.codingPath))' has an unknown value \"\(value)\""
            }
            return "field '\(path(context.codingPath))': \(context.debugDescription)"
        @unknown default:
            return "cannot be decoded"
        }
    }

    /// The JSON value at `keys` in `json`, when it parses and the path leads somewhere.
    private static func value(at keys: [any CodingKey], in json: [UInt8]) -> JSONValue? {
        guard var value = try? JSONDecoder().decode(JSONValue.self, from: Data(json)) else { return nil }
        for key in keys {
            switch value {
            case .object(let fields): guard let next = fields[key.stringValue] else { return nil }; value = next
            case .array(let items):
                guard let index = key.intValue, items.indices.contains(index) else { return nil }
                value = items[index]
            default: return nil
            }
        }
        return value
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
    }
}
