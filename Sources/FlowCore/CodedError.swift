/// An error with a stable code and a message for a person: equal when the codes are (callers branch on the code, the
/// message is for logs), and described as `code: message`.
public protocol CodedError: Error, Hashable, CustomStringConvertible {
    associatedtype Code: Hashable, CustomStringConvertible
    /// What went wrong, stable across releases.
    var code: Code { get }
    /// Details for a person.
    var message: String { get }
}

extension CodedError {
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
    public var description: String { "\(code): \(message)" }
}
