import FlowCore

/// Sessions whose root flow has a remote flow stepper of kind `ticker` (steps from a flow stepper are taken whether
/// or not anything is visible, so a presenter that never reports does not stop them); each `tick` step replaces the
/// stack's only screen, whose data is the step's payload. The UI stays one screen however many commands go by.
struct TickerApplication: FlowApplication {
    var stepNames: Set<String>? { ["tick"] }

    func makeRoot(session: String) -> FlowRoot {
        FlowRoot(flow: TickerFlow(), stepper: RemoteStepper(kind: "ticker"))
    }
}

final class TickerFlow: Flow {
    let root = Screen.stack("app")

    func navigate(to step: Step, with navigator: Navigator) -> FlowContributors {
        guard step.name == "tick", case .object(let fields) = step.payload, let n = fields["n"]?.intValue else {
            return .none
        }
        navigator.setStack("app", [Screen.view(PresentableID("tick.\(n % 2)"), type: "Tick", data: step.payload)])
        return .none
    }
}
