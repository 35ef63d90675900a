/// A stepper that lives in another process: a stepper service that serves ``kind``.
///
/// A flow contributes it like any stepper (`.contribute(withNextPresentable: screen, withNextStepper:
/// RemoteStepper(kind: "movies.detail"))`). The daemon hands the attachment to a connected stepper process serving
/// that kind and feeds the steps it sends back as ``CoordinatorInput/stepperEmitted(_:_:)``; in one process nothing
/// emits on its ``steps`` unless someone calls `steps.accept(_:)`.
///
/// `Sendable`: immutable apart from its relay, which is thread-safe.
public final class RemoteStepper: Stepper, CustomStringConvertible {
    public let steps = StepRelay()
    /// The stepper kind, as stepper processes declare what they serve (`"movies.detail"`).
    public let kind: String
    public let initialStep: Step
    /// What the stepper is about, sent with the attachment (the movie's ID, say); the screen's data when `nil`.
    public let context: JSONValue?

    /// A stepper served by a process serving `kind`.
    public init(kind: String, initialStep: Step = .none, context: JSONValue? = nil) {
        self.kind = kind
        self.initialStep = initialStep
        self.context = context
    }

    public var description: String { "RemoteStepper(\(kind))" }
}
