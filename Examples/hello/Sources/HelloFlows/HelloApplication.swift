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

    /// How flowd makes the flows again from a snapshot of their state, instead of replaying the session's history.
    public func restoration(session: String) -> FlowRestoration? {
        var restoration = FlowRestoration()
        restoration.register(HelloFlow.self) { _ in HelloFlow() }
        restoration.register(AboutFlow.self) { _ in AboutFlow() }
        return restoration
    }
}
