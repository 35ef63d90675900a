public import FlowCore
import MovieVocabulary

/// The movie demo as a `flowd` application: each session runs ``AppFlow`` with ``RemoteDemoSteppers``, so the login
/// and movie services (stepper processes) and the daemon's own action steppers drive it, and a presenter process
/// shows it.
///
/// `Sendable`: no state; every session gets its own flows.
public struct MovieDemoApplication: FlowApplication {
    /// The demo application.
    public init() {}

    /// AppFlow over ``RemoteDemoSteppers``, coordinated with its `login.app` stepper (initial step
    /// `dashboardIsRequired`).
    public func makeRoot(session: String) -> FlowRoot {
        let steppers = RemoteDemoSteppers()
        return FlowRoot(flow: AppFlow(steppers: steppers), stepper: steppers.app())
    }

    /// The demo's flows over ``RemoteDemoSteppers``, made again from their saved state (``DemoRestoration``).
    public func restoration(session: String) -> FlowRestoration? {
        DemoRestoration.restoration(steppers: RemoteDemoSteppers())
    }

    /// Every ``DemoStep`` name.
    public var stepNames: Set<String>? { DemoStep.names }

    /// A step whose payload does not read as its ``DemoStep`` (`movieIsPicked` with a string) is refused
    /// (`invalidPayload`): the flows would do nothing with it.
    public func payloadRefusal(for step: Step) -> String? {
        guard DemoStep(step: step) == nil else { return nil }
        // Named as the vocabulary describes it, as a flow file's refusal names the declared type (PROTOCOL.md §3).
        let type = DemoVocabulary.application.steps.first { $0.name == step.name }?.payload ?? "none"
        return "the step '\(step.name)' takes a payload of type \(type), not \(step.payload)"
    }

    /// An action a demo screen type does not list (``DemoVocabulary/application``) is refused (`unknownAction`), as
    /// the demo's flow file does: no view model of the demo would act on it.
    public func actionRefusal(for action: Step, onScreenOfType screenType: String) -> ActionRefusal? {
        DemoVocabulary.application.actionRefusal(for: action, onScreenOfType: screenType)
    }

    /// ``DemoVocabulary/application``.
    public var vocabulary: ApplicationVocabulary { DemoVocabulary.application }
}
