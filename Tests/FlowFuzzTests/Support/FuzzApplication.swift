import FlowCore
import FlowDaemon

/// The application the fuzzed daemons run: a stack `app`; `start` pushes `home` (served by a stepper of kind
/// `home`), `openDetail(n)` pushes `detail.n` (kind `detail`), `back` pops. Only these three step names exist, so a
/// mutated step is refused (`unknownStep`) instead of navigating.
struct FuzzApplication: FlowApplication {
    var stepNames: Set<String>? { ["start", "openDetail", "back"] }

    func makeRoot(session: String) -> FlowRoot {
        FlowRoot(flow: FuzzAppFlow(), stepper: OneStepper(withSingleStep: Step("start")))
    }

    static let home = Screen.view("home", type: "Home")

    static func detail(_ number: Int) -> Screen {
        .view(PresentableID("detail.\(number)"), type: "Detail", data: ["n": .int(number)])
    }
}

final class FuzzAppFlow: Flow {
    let root = Screen.stack("app")

    func navigate(to step: Step, with navigator: Navigator) -> FlowContributors {
        switch step.name {
        case "start":
            navigator.push(FuzzApplication.home, onto: "app")
            return .one(
                flowContributor: .contribute(
                    withNextPresentable: FuzzApplication.home, withNextStepper: RemoteStepper(kind: "home")
                )
            )
        case "openDetail":
            let detail = FuzzApplication.detail(step.payload.intValue ?? 0)
            navigator.push(detail, onto: "app")
            return .one(
                flowContributor: .contribute(
                    withNextPresentable: detail, withNextStepper: RemoteStepper(kind: "detail")
                )
            )
        case "back":
            navigator.pop("app")
            return .none
        default:
            return .none
        }
    }
}

/// The rule of `docs/PROTOCOL.md` on who may send what (§3, §5, §6, §7): a message type, a role.
func roleMaySend(_ type: String, _ role: String) -> Bool {
    switch type {
    case "HEARTBEAT", "BYE": return true
    case "STEP": return role == "stepper"
    case "SYNC", "ACK", "REPORT", "USER_ACTION": return role == "presenter"
    case "SESSIONS", "TREE", "DEEPLINK", "CREATE_SESSION", "HEALTH", "DESCRIBE": return role == "operator"
    default: return false
    }
}
