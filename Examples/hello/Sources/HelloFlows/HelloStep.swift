public import FlowCore

/// The hello application's steps: what its flows, its daemon, its stepper service and its presenter agree on.
public enum HelloStep {
    /// The root flow's first step: show the home screen.
    public static let helloIsRequired = Step("helloIsRequired")
    /// The greeter has a greeting (the payload, a string): push it.
    public static func greetingIsReady(_ message: String) -> Step { Step("greetingIsReady", payload: .string(message)) }
    /// Show the About modal.
    public static let aboutIsRequired = Step("aboutIsRequired")
    /// The About flow's first step.
    public static let aboutIsShown = Step("aboutIsShown")
    /// The About modal was closed.
    public static let aboutIsComplete = Step("aboutIsComplete")

    /// The stepper kind the hello-service serves: the root flow's stepper.
    public static let greeterKind = "hello.greeter"
}
