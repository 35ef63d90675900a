public import FlowCore

/// A presenter script's mistake: a step that cannot be read (``PresenterScript/init(parsing:)``), or a step the UI or
/// the daemon refused while ``ScriptedPresenter`` carried it out.
///
/// Equality looks at the code only.
public struct PresenterScriptError: CodedError, Sendable {
    /// What went wrong; an open set of codes.
    public typealias Code = ErrorCode<PresenterScriptError>

    /// What went wrong.
    public let code: Code
    /// Details for a person, naming the step.
    public let message: String

    /// An error with `code` and `message`.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
}

extension ErrorCode<PresenterScriptError> {
    /// The step's kind is none of `wait`, `gone`, `action`, `back`, `tab`, `dismiss`.
    public static var unknownStep: Self { Self("unknownStep") }
    /// The step has too few or too many parts, or an empty one (`tab:shop`, `wait:`).
    public static var malformedStep: Self { Self("malformedStep") }
    /// An action's payload is not JSON, or a tab's index is not a whole number.
    public static var badArgument: Self { Self("badArgument") }
    /// The UI did not allow the step (a back on a stack with one screen) or the daemon refused it.
    public static var stepFailed: Self { Self("stepFailed") }
}
