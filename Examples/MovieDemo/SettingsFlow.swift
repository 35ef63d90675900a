import FlowCore
import MovieVocabulary

/// The settings, presented over the wishlist: a split view with the settings list as master and a detail screen.
///
/// - `settingsAreRequired`: master = a stack holding the list, detail = the login screen; returns
///   `.multiple([contribute(list, settingsList), contribute(login, login), (contribute(split, settingsDone)),
///   forwardToCurrentFlow(alert("Demo of multiple Flow Contributor"))])`, the Done contributor only when
///   ``DemoSteppers/settingsDone(on:)`` gives one (in one process the flow's ``SettingsStepper`` has Done).
/// - `loginIsRequired`: login as detail, contributed with ``DemoSteppers/login(on:)``; `apiKeyIsRequired`: API key
///   as detail with ``DemoSteppers/apiKey(on:)``; `aboutIsRequired`: About as detail, `.none`.
/// - `userIsLoggedIn`, `apiKeyIsFilledIn`: pops the master stack to its root; `.none`.
/// - `settingsAreComplete`: `.end(forwardToParentFlowWithStep: settingsAreComplete)`; WishlistFlow dismisses.
/// - `alert(message)`: presents an alert over the split view; `.none`.
public final class SettingsFlow: Flow {
    public let root = DemoScreens.settings
    private let steppers: any DemoSteppers

    /// The message of the alert forwarded by `settingsAreRequired`.
    public static let multipleContributorsMessage = "Demo of multiple Flow Contributor"

    /// The settings; their screens get their steppers from `steppers`.
    public init(steppers: any DemoSteppers) {
        self.steppers = steppers
    }

    public func navigate(to step: Step, with navigator: Navigator) -> FlowContributors {
        switch DemoStep(step: step) {
        case .settingsAreRequired:
            navigator.showMaster(root.id, DemoScreens.settingsMaster)
            navigator.setStack(DemoScreens.settingsMaster.id, [DemoScreens.settingsList])
            let list = DemoScreens.settingsList
            let login = DemoScreens.settingsLogin
            navigator.showDetail(root.id, login)
            var contributors: [FlowContributor] = [
                .contribute(withNextPresentable: list, withNextStepper: steppers.settingsList(on: list)),
                .contribute(withNextPresentable: login, withNextStepper: steppers.login(on: login)),
            ]
            if let done = steppers.settingsDone(on: root) {
                contributors.append(.contribute(withNextPresentable: root, withNextStepper: done))
            }
            contributors.append(
                .forwardToCurrentFlow(withStep: DemoStep.alert(Self.multipleContributorsMessage).step)
            )
            return .multiple(flowContributors: contributors)
        case .loginIsRequired:
            let login = DemoScreens.settingsLogin
            navigator.showDetail(root.id, login)
            return .one(
                flowContributor: .contribute(withNextPresentable: login, withNextStepper: steppers.login(on: login))
            )
        case .apiKeyIsRequired:
            let apiKey = DemoScreens.settingsApiKey
            navigator.showDetail(root.id, apiKey)
            return .one(
                flowContributor: .contribute(withNextPresentable: apiKey, withNextStepper: steppers.apiKey(on: apiKey))
            )
        case .aboutIsRequired:
            navigator.showDetail(root.id, DemoScreens.settingsAbout)
            return .none
        case .userIsLoggedIn, .apiKeyIsFilledIn:
            navigator.popToRoot(DemoScreens.settingsMaster.id)
            return .none
        case .settingsAreComplete:
            return .end(forwardToParentFlowWithStep: DemoStep.settingsAreComplete.step)
        case .alert(let message):
            navigator.present(DemoScreens.settingsAlert(message), over: root.id)
            return .none
        default:
            return .none
        }
    }
}

@available(*, unavailable)
extension SettingsFlow: Sendable {}

extension SettingsFlow: RestorableFlow {
    /// Nothing: the flow decides with its steppers' factory alone, which restoration gives again.
    public var state: NoState { NoState() }
}
