/// Why an application refuses a person's action (a presenter's `USER_ACTION`): the daemon answers it with an
/// `ERROR` of ``reason``'s code and delivers it to no stepper.
public struct ActionRefusal: Sendable, Hashable {
    /// Which of the protocol's error codes the refusal is answered with (its raw value is the code).
    public enum Reason: String, Sendable, Hashable {
        /// The screen's type does not accept an action of this name.
        case unknownAction
        /// The action's payload is not of the type the screen's type declares for it.
        case invalidPayload
    }

    public var reason: Reason
    /// What is wrong, for a person.
    public var message: String

    public init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }
}

extension ActionRefusal {
    /// The refusal of an action `name` that the screen type `type` does not list among `accepted`.
    public static func unknownAction(_ name: String, onScreenOfType type: String, accepted: [String]) -> Self {
        let listed = accepted.map { "'\($0)'" }.joined(separator: ", ")
        return Self(
            .unknownAction,
            "the screen type '\(type)' accepts no action '\(name)'" + (listed.isEmpty ? "" : " (it accepts \(listed))")
        )
    }
}
