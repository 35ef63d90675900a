/// Identifies a coordinator (one flow) in a tree. Numbers are handed out in order from 1, so the same inputs give
/// the same IDs.
public struct FlowCoordinatorID: Hashable, Sendable, Codable, Comparable, CustomStringConvertible {
    public let rawValue: Int
    public init(_ rawValue: Int) { self.rawValue = rawValue }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { "flow#\(rawValue)" }
}

/// Identifies one attachment of a stepper to a contributor (or to a flow, for its flow stepper). Handed out in
/// order from 1.
public struct AttachmentID: Hashable, Sendable, Codable, Comparable, CustomStringConvertible {
    public let rawValue: Int
    public init(_ rawValue: Int) { self.rawValue = rawValue }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { "att#\(rawValue)" }
}

/// Identifies a pending asynchronous ``Adaptation``. Handed out in order from 1.
public struct AdaptRequestID: Hashable, Sendable, Codable, Comparable, CustomStringConvertible {
    public let rawValue: Int
    public init(_ rawValue: Int) { self.rawValue = rawValue }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { "adapt#\(rawValue)" }
}
