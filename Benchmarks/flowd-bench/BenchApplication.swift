import FlowCore
import FlowDaemon

/// The benchmark's application: every session has one ``BenchFlow``.
struct BenchApplication: FlowApplication {
    func makeRoot(session: String) -> FlowRoot {
        FlowRoot(flow: BenchFlow(), stepper: OneStepper(withSingleStep: BenchFlow.start))
    }

    /// The flow is restorable, so snapshots hold each session's state, not its history.
    func restoration(session: String) -> FlowRestoration? {
        var restoration = FlowRestoration()
        restoration.register(BenchFlow.self) { _ in BenchFlow() }
        return restoration
    }
}

/// One flow: a stack whose only screen is contributed with a `RemoteStepper(kind: "bench")`.
///
/// `start` pushes the screen; every `tick` replaces the stack's content with the same screen carrying the step's
/// payload as its data, so each step makes exactly one `COMMAND` for the presenter, and the UI stays one screen deep
/// however many steps run.
final class BenchFlow: RestorableFlow {
    static let start = Step("start")
    static let stackID: PresentableID = "bench.root"
    static let screenID: PresentableID = "bench.screen"

    let root = Screen.stack(BenchFlow.stackID)
    var state: NoState { NoState() }

    static func screen(payload: JSONValue) -> Screen { .view(screenID, type: "Bench", data: payload) }

    /// The command a `tick` makes.
    static func tickCommand(payload: JSONValue) -> NavigationCommand { .setStack(stackID, [screen(payload: payload)]) }

    func navigate(to step: Step, with navigator: Navigator) -> FlowContributors {
        switch step.name {
        case "start":
            let screen = Self.screen(payload: .null)
            navigator.push(screen, onto: Self.stackID)
            return .one(
                flowContributor: .contribute(withNextPresentable: screen, withNextStepper: RemoteStepper(kind: "bench"))
            )
        case "tick":
            navigator.perform(Self.tickCommand(payload: step.payload))
            return .none
        default:
            return .none
        }
    }
}
