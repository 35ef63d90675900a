/// The stable identity of something shown: a screen, a container, a flow's root.
///
/// Presenter processes report visibility and dismissal by this ID, so flows choose IDs that stay the same for the
/// same thing on screen (`"wishlist.movie.23452"`).
///
/// Encoded as its string (`RawRepresentable`'s `Codable`).
public struct PresentableID: RawRepresentable, Hashable, Sendable, Codable, Comparable, ExpressibleByStringLiteral,
    CustomStringConvertible
{
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { rawValue }
}

/// What a flow contributes and a presenter shows: a ``Screen`` or a ``Flow`` (whose presentable is its root);
/// RxFlow's `Presentable`.
///
/// Visibility and dismissal are not properties here: they are reported from outside, by whoever shows the
/// presentable (a presenter process, or ``PresentationModel`` in one process), to the coordinator.
public protocol Presentable {
    /// The identity visibility reports use.
    var presentableID: PresentableID { get }
}
