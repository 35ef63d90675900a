public import FlowCore

/// What became of a `STEP` (`docs/PROTOCOL.md` §5.3, §5.5): its `OK` result.
///
/// `{"accepted": true}`, `{"accepted": false, "reason": "notVisible"}`, with `"duplicate": true` when it answers a
/// step sent again. Its JSON is written by hand (``json``, every STEP's reply) and `Codable` derives from it.
public struct StepVerdict: WireResult, Hashable {
    /// Whether the step entered the session's queue.
    public var accepted: Bool
    /// Why the core dropped it (a drop reason of `docs/SEMANTICS.md`); `nil` when accepted.
    public var reason: String?
    /// Whether this answers a step sent again that the daemon carried out already.
    public var duplicate: Bool

    public init(accepted: Bool, reason: String? = nil, duplicate: Bool = false) {
        self.accepted = accepted
        self.reason = reason
        self.duplicate = duplicate
    }

    public var json: JSONValue {
        // Every accepted step's reply: made once, not a dictionary per step.
        if accepted, reason == nil, !duplicate { return Self.acceptedJSON }
        var fields: [String: JSONValue] = ["accepted": .bool(accepted)]
        if let reason { fields["reason"] = .string(reason) }
        if duplicate { fields["duplicate"] = true }
        return .object(fields)
    }

    /// `{"accepted": true}`, made once: the fast reader of `OK` gives it for every accepted step's reply too.
    static let acceptedJSON: JSONValue = .object(["accepted": .bool(true)])

    public init(json: JSONValue) throws {
        guard case .object(let fields) = json, case .bool(let accepted)? = fields["accepted"] else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "no 'accepted' in \(json)"))
        }
        var reason: String?
        switch fields["reason"] {
        case nil, .null?: reason = nil
        case .string(let text)?: reason = text
        default: throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "'reason' is no string"))
        }
        var duplicate = false
        switch fields["duplicate"] {
        case nil, .null?: duplicate = false
        case .bool(let flag)?: duplicate = flag
        default: throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "'duplicate' is no bool"))
        }
        self.init(accepted: accepted, reason: reason, duplicate: duplicate)
    }

    public init(from decoder: any Decoder) throws { try self.init(json: JSONValue(from: decoder)) }

    public func encode(to encoder: any Encoder) throws { try json.encode(to: encoder) }
}
