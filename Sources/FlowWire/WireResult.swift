public import FlowCore

/// The typed result of an `OK` (`docs/PROTOCOL.md` §3, §5.3, §6, §7): the daemon encodes it, the clients decode it,
/// both with this one type.
///
/// The result's JSON form is its `Codable` form; a result on a step's round trip (``StepVerdict``) writes it by hand
/// and derives `Codable` from that.
public protocol WireResult: Codable, Sendable {
    /// Reads the result from an `OK`'s `result`.
    ///
    /// - Throws: a `DecodingError` when `json` does not have the result's shape.
    init(json: JSONValue) throws

    /// The result as an `OK` carries it.
    var json: JSONValue { get }
}

extension WireResult {
    public init(json: JSONValue) throws { self = try json.decode(Self.self) }

    /// Results are strings, numbers and JSON values: encoding cannot fail short of a non-finite double, which JSON
    /// cannot carry (then the result is `{}`).
    public var json: JSONValue { (try? JSONValue(encoding: self)) ?? [:] }
}

extension OKReply {
    /// The `OK` to request `req` with a typed result.
    public init(req: UInt64, result: some WireResult) {
        self.init(req: req, result: result.json)
    }

    /// The result as `Result`.
    ///
    /// - Throws: a `DecodingError` when the result does not have `Result`'s shape.
    public func result<Result: WireResult>(as _: Result.Type) throws -> Result {
        try Result(json: result)
    }
}

/// `DESCRIBE`'s result (§7.2).
extension ApplicationVocabulary: WireResult {}
