public import FlowCore

/// The screens of ``TestApplication``, as the daemon's commands carry them.
public enum Screens: Sendable {
    public static let app = Screen.stack("app")
    public static let home = Screen.view("home", type: "Home", data: ["greeting": "hi"])
    public static func detail(_ movie: Int) -> Screen {
        .view(PresentableID("detail.\(movie)"), type: "Detail", data: ["movie": .int(movie)])
    }
    public static let settings = Screen.stack("settings")
    public static let settingsList = Screen.view("settings.list", type: "SettingsList")
    public static let settingsButtons = Screen.view("settings.buttons", type: "SettingsButtons")
    public static let tabs = Screen.tabs("tabs")
    public static func tab(_ name: String) -> Screen { .stack(PresentableID("tab.\(name)")) }
    public static func tabView(_ name: String) -> Screen { .view(PresentableID("tab.\(name).view"), type: "Tab") }
}

/// The step names of ``TestApplication``'s first screens: root, detail, settings, back, an asynchronous adaptation.
public let testStepNames: Set<String> = [
    "start", "openDetail", "openSettings", "settingsStart", "settingsDone", "settingsClosed", "back", "openDetailLater",
]

/// The application the project's daemon tests run (protocol tests, fuzzers, recovery), in one place.
///
/// - `AppFlow` (root, stack `app`), coordinated with `OneStepper(start)`:
///   - `start` pushes `home` with a `RemoteStepper(kind: "home")`;
///   - `openDetail(n)` pushes `detail.n` with a `RemoteStepper(kind: "detail")`; `openDetailLater(n)` adapts
///     asynchronously to `openDetail(n)`; `openDetailUnseen(n)` pushes `detail.n` with a `RemoteStepper(detail)` that
///     may step while not presented and when dismissed;
///   - `openSettings` presents the child flow `SettingsFlow` over `app`, contributed with
///     `RemoteStepper(kind: "settings", initialStep: settingsStart, context: {"section": "general"})` as its flow
///     stepper; `settingsClosed` dismisses it;
///   - `openTabs` pushes tabs `tabs` holding stacks `tab.a` and `tab.b`, each with a view, a `RemoteStepper(tab)` and
///     an `ActionStepper` (`open` → `openDetail`, `settings` → `openSettings`, `later` → `openDetailLater`, `tabs` →
///     `openTabs`);
///   - `back` pops `app`, `home` pops it to its root, `twice(n)` forwards `openDetail(n)` then `back` to itself,
///     `noop` does nothing.
/// - `SettingsFlow` (stack `settings`): `settingsStart` pushes `settings.list`; `settingsButtons` pushes
///   `settings.buttons` with an `ActionStepper` (`done` → `settingsDone`, `deep` → `settingsOpenDetail`);
///   `settingsDone` ends the flow with `.end(forwardToParentFlowWithStep: settingsClosed)`; `settingsOpenDetail(n)`
///   forwards `openDetail(n)` to the parent flow.
public struct TestApplication: FlowApplication {
    /// Every step name the application's flows understand.
    public static let allStepNames: [String] = [
        "start", "openDetail", "openDetailLater", "openDetailUnseen", "openSettings", "settingsStart",
        "settingsButtons", "settingsDone", "settingsOpenDetail", "settingsClosed", "openTabs", "back", "home", "twice",
        "noop",
    ]

    /// The step names to accept, or `nil` for any.
    public var stepNames: Set<String>?
    public var vocabulary: ApplicationVocabulary
    /// Whether the flows are made again from saved state (`restoration(session:)`); if not, a snapshot keeps every
    /// session's history.
    public var restorable: Bool

    public init(
        stepNames: Set<String>? = nil, vocabulary: ApplicationVocabulary = ApplicationVocabulary(),
        restorable: Bool = true
    ) {
        self.stepNames = stepNames
        self.vocabulary = vocabulary
        self.restorable = restorable
    }

    public func makeRoot(session: String) -> FlowRoot {
        FlowRoot(flow: AppFlow(), stepper: OneStepper(withSingleStep: Step("start")))
    }

    public func restoration(session: String) -> FlowRestoration? {
        guard restorable else { return nil }
        var restoration = FlowRestoration()
        restoration.register(AppFlow.self) { _ in AppFlow() }
        restoration.register(SettingsFlow.self) { _ in SettingsFlow() }
        return restoration
    }
}

final class AppFlow: RestorableFlow {
    let root = Screens.app
    var state: NoState { NoState() }

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
        case "openDetail", "openDetailUnseen":
            let detail = Screens.detail(step.payload.intValue ?? 0)
            let unseen = step.name == "openDetailUnseen"
            navigator.push(detail, onto: "app")
            return .one(
                flowContributor: .contribute(
                    withNextPresentable: detail, withNextStepper: RemoteStepper(kind: "detail"),
                    allowStepWhenNotPresented: unseen, allowStepWhenDismissed: unseen
                )
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
        case "openTabs":
            return openTabs(with: navigator)
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

    private func openTabs(with navigator: Navigator) -> FlowContributors {
        navigator.push(Screens.tabs, onto: "app")
        navigator.setTabs(Screens.tabs.id, [Screens.tab("a"), Screens.tab("b")])
        var contributors: [FlowContributor] = []
        for name in ["a", "b"] {
            let view = Screens.tabView(name)
            navigator.push(view, onto: Screens.tab(name).id)
            let buttons = ActionStepper([
                "open": Step("openDetail"), "settings": Step("openSettings"), "later": Step("openDetailLater"),
                "tabs": Step("openTabs"),
            ])
            contributors.append(.contribute(withNextPresentable: view, withNextStepper: RemoteStepper(kind: "tab")))
            contributors.append(.contribute(withNextPresentable: view, withNextStepper: buttons))
        }
        return .multiple(flowContributors: contributors)
    }
}

final class SettingsFlow: RestorableFlow {
    let root = Screens.settings
    var state: NoState { NoState() }

    func navigate(to step: Step, with navigator: Navigator) -> FlowContributors {
        switch step.name {
        case "settingsStart":
            navigator.push(Screens.settingsList, onto: "settings")
            return .none
        case "settingsButtons":
            navigator.push(Screens.settingsButtons, onto: "settings")
            let buttons = ActionStepper(["done": Step("settingsDone"), "deep": Step("settingsOpenDetail")])
            return .one(
                flowContributor: .contribute(withNextPresentable: Screens.settingsButtons, withNextStepper: buttons)
            )
        case "settingsDone":
            return .end(forwardToParentFlowWithStep: Step("settingsClosed"))
        case "settingsOpenDetail":
            return .one(flowContributor: .forwardToParentFlow(withStep: Step("openDetail", payload: step.payload)))
        default:
            return .none
        }
    }
}
