import FlowCore
import FlowDaemon

/// The application of the recovery fuzz (``RecoveryFuzzTests``): small, but with every kind of state a journal must
/// rebuild: a root stack with remote and in-daemon steppers, a child flow presented as a modal that ends itself,
/// tabs whose selection a presenter changes, asynchronous adaptations, steps forwarded to the current and the parent
/// flow, and steppers allowed to step while hidden or dismissed.
///
/// - `RecoveryRootFlow` (stack `app`, root stepper `OneStepper(start)`):
///   - `start` pushes `home` with `RemoteStepper(home)` and `ActionStepper(open → openDetail, settings →
///     openSettings, later → openLater, tabs → openTabs)`;
///   - `openDetail(n)` pushes `detail.n` with `RemoteStepper(detail)` (allowed to step while hidden when `n` is even);
///   - `openLater(n)` adapts asynchronously to `openDetail(n)`;
///   - `openTabs` pushes tabs `tabs` with two stacks `tab.a`, `tab.b`, each with a view and a `RemoteStepper(tab)`;
///   - `openSettings` presents the child flow `RecoverySettingsFlow` over `app` with
///     `RemoteStepper(settings, initialStep: settingsStart)` (allowed to step when dismissed);
///   - `settingsClosed` dismisses it, `back` pops, `home` pops to the root, `twice(n)` forwards `openDetail(n)` and
///     `back` to itself.
/// - `RecoverySettingsFlow` (stack `settings`): `settingsStart` pushes `settings.list` with
///   `ActionStepper(done → settingsDone, deep → openDetail)`; `settingsDone` ends the flow with `settingsClosed`;
///   `openDetail` goes to the parent flow.
struct RecoveryFuzzApplication: FlowApplication {
    static let stepNames: [String] = [
        "start", "openDetail", "openLater", "openTabs", "openSettings", "settingsStart", "settingsDone",
        "settingsClosed", "back", "home", "twice", "noop",
    ]

    var stepNames: Set<String>? { Set(Self.stepNames) }

    func makeRoot(session: String) -> FlowRoot {
        FlowRoot(flow: RecoveryRootFlow(), stepper: OneStepper(withSingleStep: Step("start")))
    }

    static func detail(_ number: Int) -> Screen {
        .view(PresentableID("detail.\(number)"), type: "Detail", data: ["n": .int(number)])
    }

    /// Every presentable the application shows, and a few it never does: what fuzzed reports and actions name.
    static let presentables: [String] =
        ["app", "home", "tabs", "tab.a", "tab.b", "tab.a.view", "tab.b.view", "settings", "settings.list", "nowhere"]
        + (0..<6).map { "detail.\($0)" }
}

final class RecoveryRootFlow: Flow {
    let root = Screen.stack("app")

    func adapt(step: Step) -> Adaptation {
        guard step.name == "openLater" else { return .step(step) }
        let payload = step.payload
        return .later { Step("openDetail", payload: payload) }
    }

    func navigate(to step: Step, with navigator: Navigator) -> FlowContributors {
        switch step.name {
        case "start":
            let home = Screen.view("home", type: "Home")
            navigator.push(home, onto: "app")
            let buttons = ActionStepper([
                "open": Step("openDetail"), "settings": Step("openSettings"), "later": Step("openLater"),
                "tabs": Step("openTabs"),
            ])
            return .multiple(
                .contribute(withNextPresentable: home, withNextStepper: RemoteStepper(kind: "home")),
                .contribute(withNextPresentable: home, withNextStepper: buttons)
            )
        case "openDetail":
            let number = step.payload.intValue ?? 0
            let detail = RecoveryFuzzApplication.detail(number)
            navigator.push(detail, onto: "app")
            return .one(
                flowContributor: .contribute(
                    withNextPresentable: detail, withNextStepper: RemoteStepper(kind: "detail"),
                    allowStepWhenNotPresented: number % 2 == 0
                )
            )
        case "openTabs":
            let tabA = Screen.stack("tab.a")
            let tabB = Screen.stack("tab.b")
            let viewA = Screen.view("tab.a.view", type: "Tab")
            let viewB = Screen.view("tab.b.view", type: "Tab")
            navigator.push(.tabs("tabs"), onto: "app")
            navigator.setTabs("tabs", [tabA, tabB])
            navigator.push(viewA, onto: "tab.a")
            navigator.push(viewB, onto: "tab.b")
            return .multiple(
                .contribute(withNextPresentable: viewA, withNextStepper: RemoteStepper(kind: "tab")),
                .contribute(withNextPresentable: viewB, withNextStepper: RemoteStepper(kind: "tab"))
            )
        case "openSettings":
            let settings = RecoverySettingsFlow()
            navigator.present(settings.root, over: "app")
            return .one(
                flowContributor: .contribute(
                    withNextPresentable: settings,
                    withNextStepper: RemoteStepper(kind: "settings", initialStep: Step("settingsStart")),
                    allowStepWhenDismissed: true
                )
            )
        case "settingsClosed":
            navigator.dismiss(presentedOver: "app")
            return .none
        case "back":
            navigator.pop("app")
            return .none
        case "home":
            navigator.popToRoot("app")
            return .none
        case "twice":
            return .multiple(
                .forwardToCurrentFlow(withStep: Step("openDetail", payload: step.payload)),
                .forwardToCurrentFlow(withStep: Step("back"))
            )
        default:
            return .none
        }
    }
}

final class RecoverySettingsFlow: Flow {
    let root = Screen.stack("settings")

    func navigate(to step: Step, with navigator: Navigator) -> FlowContributors {
        switch step.name {
        case "settingsStart":
            let list = Screen.view("settings.list", type: "SettingsList")
            navigator.push(list, onto: "settings")
            return .one(
                flowContributor: .contribute(
                    withNextPresentable: list,
                    withNextStepper: ActionStepper(["done": Step("settingsDone"), "deep": Step("openDetail")])
                )
            )
        case "settingsDone":
            return .end(forwardToParentFlowWithStep: Step("settingsClosed"))
        case "openDetail":
            return .one(flowContributor: .forwardToParentFlow(withStep: step))
        default:
            return .none
        }
    }
}
