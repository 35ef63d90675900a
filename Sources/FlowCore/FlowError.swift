/// A mistake in how a coordinator is used, with a stable code.
///
/// Equality looks at the code only.
public struct FlowError: CodedError, Sendable {
    /// The kind of mistake.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String, Hashable, Sendable {
            case alreadyCoordinating
            case notCoordinating
        }

        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// `coordinate` was called on a tree that already has a root flow.
        public static let alreadyCoordinating = Code(.alreadyCoordinating)
        /// An operation needs a root flow and none was coordinated.
        public static let notCoordinating = Code(.notCoordinating)

        public var description: String { value.rawValue }
    }

    /// What went wrong.
    public let code: Code
    /// Details for a person.
    public let message: String

    private init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `coordinate` was called on a tree that already has a root flow.
    public static func alreadyCoordinating() -> FlowError {
        FlowError(.alreadyCoordinating, "this tree already coordinates a root flow")
    }

    /// An operation needs a root flow and none was coordinated.
    public static func notCoordinating() -> FlowError {
        FlowError(.notCoordinating, "no root flow has been coordinated")
    }

    public var description: String { "FlowError.\(code): \(message)" }
}
