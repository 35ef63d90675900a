/// Something that happened and may lead to a navigation: a name plus a typed, encodable payload.
///
/// RxFlow's `Step` is an untyped marker protocol that each Flow down-casts. Flowd's steps travel between processes,
/// so a step is a value: a ``name`` (`"movieIsPicked"`) and a ``payload`` (`23452`). Applications usually keep an
/// enum of their own and convert it with ``StepConvertible``.
///
/// ``Step/none`` is RxFlow's `NoneStep`: "nothing to do". It is filtered out of every stepper and never reaches a
/// flow's `navigate(to:with:)`.
public struct Step: Hashable, Sendable, Codable {
    /// The step's name. The empty name is reserved for ``Step/none``.
    public var name: String
    /// The step's data; ``JSONValue/null`` when the step carries none.
    public var payload: JSONValue

    /// Makes a step.
    public init(_ name: String, payload: JSONValue = .null) {
        self.name = name
        self.payload = payload
    }

    /// Makes a step whose payload is any encodable value.
    ///
    /// - Throws: when `value` cannot be encoded as a ``JSONValue``.
    public init(_ name: String, encoding value: some Encodable) throws {
        self.init(name, payload: try JSONValue(encoding: value))
    }

    /// RxFlow's `NoneStep`: no step at all.
    public static let none = Step("")

    /// Whether this is ``Step/none``.
    public var isNone: Bool { name.isEmpty }
}

extension Step {
    private enum CodingKeys: String, CodingKey { case name, payload }

    /// Decodes `{"name": …, "payload": …}`; a missing payload is ``JSONValue/null``.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        payload = try container.decodeIfPresent(JSONValue.self, forKey: .payload) ?? .null
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(payload, forKey: .payload)
    }
}

extension Step: CustomStringConvertible {
    /// `name` for a step without payload, `name(payload)` otherwise: `movieIsPicked(23452)`, `alert("Hi")`.
    public var description: String {
        if isNone { return "NoneStep" }
        if payload == .null { return name }
        return "\(name)(\(payload))"
    }
}

/// A type an application uses for its own steps (usually an enum), convertible to and from a ``Step``.
public protocol StepConvertible {
    /// This value as a wire-ready step.
    var step: Step { get }
    /// Reads a step back; `nil` when the step is not one of this type's.
    init?(step: Step)
}

extension Step: StepConvertible {
    public var step: Step { self }
    public init?(step: Step) { self = step }
}
