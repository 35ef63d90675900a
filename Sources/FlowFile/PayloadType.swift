/// The shape of a step's or an action's payload, as a flow file declares it: `none`, `any`, `string`, `int`,
/// `number`, `bool`, or an object with typed fields (`{fields: {user: string, password: string}}`).
///
/// `Sendable`: a value.
package indirect enum PayloadType: Sendable, Hashable, CustomStringConvertible {
    case none, any, string, int, number, bool
    /// An object with these fields (others may be there too).
    case object([String: PayloadType])

    /// The scalar types by the name a file writes.
    static let scalars: [String: PayloadType] = [
        "none": .none, "any": .any, "string": .string, "int": .int, "number": .number, "bool": .bool,
    ]

    package var description: String {
        switch self {
        case .none: return "none"
        case .any: return "any"
        case .string: return "string"
        case .int: return "int"
        case .number: return "number"
        case .bool: return "bool"
        case .object(let fields):
            return "{" + fields.keys.sorted().map { "\($0): \(fields[$0]!)" }.joined(separator: ", ") + "}"
        }
    }

    /// How `DESCRIBE` shows it when the file gives no `describe`: `<int>`, `{"user": <string>}`; `nil` for none.
    var readable: String? {
        switch self {
        case .none: return nil
        case .object(let fields):
            return "{"
                + fields.keys.sorted().map { "\"\($0)\": \(fields[$0]!.readable ?? "null")" }
                .joined(separator: ", ") + "}"
        default: return "<\(description)>"
        }
    }

    /// Whether a value of type `other` fits where this type is declared (`int` fits `number`; anything fits `any`).
    func accepts(_ other: PayloadType) -> Bool {
        switch (self, other) {
        case (.any, _), (_, .any): return true
        case (.number, .int): return true
        case (.object(let fields), .object(let given)):
            return fields.allSatisfy { name, type in given[name].map(type.accepts) ?? false }
        default: return self == other
        }
    }
}

/// A payload declaration: its type and, for `DESCRIBE`, how a person reads it.
///
/// `Sendable`: a value.
package struct PayloadDecl: Sendable, Hashable {
    package var type: PayloadType
    /// What `DESCRIBE` shows (`<int: a movie id>`); derived from the type when the file gives none.
    package var describe: String?
    package var location: SourceLocation

    /// The text `DESCRIBE` shows; `nil` for no payload.
    package var readable: String? { describe ?? type.readable }
}
