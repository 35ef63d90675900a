/// What a batch of commands did to a ``PresentationModel``.
public struct PresentationUpdate: Hashable, Sendable {
    /// A command that was ignored, with why.
    public struct Rejection: Hashable, Sendable, CustomStringConvertible {
        /// The command ignored.
        public var command: NavigationCommand
        /// Why.
        public var error: PresentationError

        /// `push x onto y: unknown target y`.
        public var description: String { "\(command): \(error)" }
    }

    /// The reports for the coordinator, in order.
    public var reports: [CoordinatorInput]
    /// The commands that were ignored, in order.
    public var rejected: [Rejection]
}

/// Why a ``PresentationModel`` could not carry out a command or a user operation. The model is left unchanged.
public enum PresentationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The container, presenter or modal is not in the UI.
    case unknownTarget(PresentableID)
    /// The target is not the kind of container the command needs.
    case wrongKind(PresentableID, expected: Screen.Kind, found: Screen.Kind)
    /// The screen's ID is already in the UI at another place, or twice in one command.
    case alreadyShown(PresentableID)
    /// The presenter already presents something.
    case alreadyPresenting(PresentableID, presented: PresentableID)
    /// The tab index is not one of the tab bar's.
    case tabOutOfRange(PresentableID, index: Int, count: Int)
    /// A user operation on something that is not on screen.
    case notVisible(PresentableID)
    /// A back tap on a stack with one child or none.
    case nothingToGoBackTo(PresentableID)
    /// A user dismissal of something that is not presented modally.
    case notPresented(PresentableID)

    public var description: String {
        switch self {
        case .unknownTarget(let id): return "unknown target \(id)"
        case .wrongKind(let id, let expected, let found): return "\(id) is a \(found), not a \(expected)"
        case .alreadyShown(let id): return "\(id) is already shown"
        case .alreadyPresenting(let id, let presented): return "\(id) already presents \(presented)"
        case .tabOutOfRange(let id, let index, let count): return "\(id) has no tab \(index) (\(count) tabs)"
        case .notVisible(let id): return "\(id) is not visible"
        case .nothingToGoBackTo(let id): return "\(id) has nothing to go back to"
        case .notPresented(let id): return "\(id) is not presented modally"
        }
    }
}
