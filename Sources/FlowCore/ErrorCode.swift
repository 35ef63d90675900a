/// A stable error code of one error type (`Domain`): an open set of names, so a code added later breaks no
/// `switch`. Compared, hashed, encoded and printed as its name; each error type lists its codes in an extension
/// (`extension ErrorCode<WireError> { public static var unknownSession: Self { Self("unknownSession") } }`).
///
/// `Sendable`: it holds only the name; `Domain` is a tag and is never stored.
public struct ErrorCode<Domain>: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The code's name, as sent and logged (`unknownSession`).
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }
}
