import FlowCore
import FlowDaemon

/// The screens of ``TestApplication``, as the daemon's commands carry them.
enum Screens {
    static let app = Screen.stack("app")
    static let home = Screen.view("home", type: "Home", data: ["greeting": "hi"])
    static func detail(_ movie: Int) -> Screen {
        .view(PresentableID("detail.\(movie)"), type: "Detail", data: ["movie": .int(movie)])
    }
    static let settings = Screen.stack("settings")
    static let settingsList = Screen.view("settings.list", type: "SettingsList")
}

/// Every step name ``TestApplication`` understands.
let testStepNames: Set<String> = [
    "start", "openDetail", "openSettings", "settingsStart", "settingsDone", "settingsClosed", "back", "openDetailLater",
]

/// A small application for the daemon:
///
/// - `AppFlow` (root, stack `app`), coordinated with `OneStepper(start)`: `start` pushes `home` with a
///   `RemoteStepper(kind: "home")`; `openDetail(n)` pushes `detail.n` with a `RemoteStepper(kind: "detail")`;
///   `openSettings` presents the child flow `SettingsFlow` over `app`, contributed with
///   `RemoteStepper(kind: "settings", initialStep: settingsStart, context: {"section": "general"})` as its flow
///   stepper;
///   `settingsClosed` dismisses it; `back` pops `app`.
/// - `SettingsFlow` (stack `settings`): `settingsStart` pushes `settings.list`; `settingsDone` ends the flow with
///   `.end(forwardToParentFlowWithStep: settingsClosed)`.
struct TestApplication: FlowApplication {
    /// The step names to accept, or `nil` for any.
    var stepNames: Set<String>?
    var vocabulary: ApplicationVocabulary

    init(stepNames: Set<String>? = nil, vocabulary: ApplicationVocabulary = ApplicationVocabulary()) {
        self.stepNames = stepNames
        self.vocabulary = vocabulary
    }

    func makeRoot(session: String) -> FlowRoot {
        FlowRoot(flow: AppFlow(), stepper: OneStepper(withSingleStep: Step("start")))
    }
}

final class AppFlow: Flow {
    let root = Screens.app

    /// `openDetailLater(n)` adapts asynchronously to `openDetail(n)`.
    func adapt(step: Step) -> Adaptation {
        guard step.name == "openDetailLater" else { return .step(step) }
        let payload = step.payload
        return .later { Step("openDetail", payload: payload) }
    }

    func navigate(to step: Step, with navigator: Navigator) -> FlowContributors {
        switch step.name {
        case "start":
            navigator.push(Screens.home, onto: "app")
            return .one(
                flowContributor: .contribute(
                    withNextPresentable: Screens.home, withNextStepper: RemoteStepper(kind: "home"))
            )
        case "openDetail":
            let detail = Screens.detail(step.payload.intValue ?? 0)
            navigator.push(detail, onto: "app")
            return .one(
                flowContributor: .contribute(
                    withNextPresentable: detail, withNextStepper: RemoteStepper(kind: "detail"))
            )
        case "openSettings":
            let settings = SettingsFlow()
            navigator.present(settings.root, over: "app")
            return .one(
                flowContributor: .contribute(
                    withNextPresentable: settings,
                    withNextStepper: RemoteStepper(
                        kind: "settings", initialStep: Step("settingsStart"), context: ["section": "general"]
                    )
                )
            )
        case "settingsClosed":
            navigator.dismiss(presentedOver: "app")
            return .none
        case "back":
            navigator.pop("app")
            return .none
        default:
            return .none
        }
    }
}

final class SettingsFlow: Flow {
    let root = Screens.settings

    func navigate(to step: Step, with navigator: Navigator) -> FlowContributors {
        switch step.name {
        case "settingsStart":
            navigator.push(Screens.settingsList, onto: "settings")
            return .none
        case "settingsDone":
            return .end(forwardToParentFlowWithStep: Step("settingsClosed"))
        default:
            return .none
        }
    }
}
