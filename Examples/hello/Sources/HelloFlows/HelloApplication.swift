public import FlowCore

/// The hello application, as its daemon runs it: each session is a ``HelloFlow`` whose stepper is the greeter, a
/// stepper process serving ``HelloStep/greeterKind`` (hello-service).
///
/// `Sendable`: no state; every session gets its own flows.
public struct HelloApplication: FlowApplication {
    public init() {}

    public func makeRoot(session: String) -> FlowRoot {
        FlowRoot(
            flow: HelloFlow(),
            stepper: RemoteStepper(kind: HelloStep.greeterKind, initialStep: HelloStep.helloIsRequired)
        )
    }
}
