import FlowCore

/// The settings, presented over the wishlist: a split view with the settings list as master and a detail screen.
///
/// - `settingsAreRequired`: master = a stack holding the list, detail = the login screen; returns
///   `.multiple([contribute(withNext: list), contribute(withNext: login),
///   forwardToCurrentFlow(alert("Demo of multiple Flow Contributor"))])`.
/// - `loginIsRequired`: login as detail, `.contribute(withNext:)`; `apiKeyIsRequired`: API key as detail with an
///   ``ApiKeyViewModel``; `aboutIsRequired`: About as detail, `.none`.
/// - `userIsLoggedIn`, `apiKeyIsFilledIn`: pops the master stack to its root; `.none`.
/// - `settingsAreComplete`: `.end(forwardToParentFlowWithStep: settingsAreComplete)`; WishlistFlow dismisses.
/// - `alert(message)`: presents an alert over the split view; `.none`.
public final class SettingsFlow: Flow {
    public let root = DemoScreens.settings
    private let services: AppServices

    /// The message of the alert forwarded by `settingsAreRequired`.
    public static let multipleContributorsMessage = "Demo of multiple Flow Contributor"

    /// The settings, sharing `services` with their screens.
    public init(services: AppServices) {
        self.services = services
    }

    public func navigate(to step: Step, with navigator: Navigator) -> FlowContributors {
        switch DemoStep(step: step) {
        case .settingsAreRequired:
            navigator.showMaster(root.id, DemoScreens.settingsMaster)
            navigator.setStack(DemoScreens.settingsMaster.id, [DemoScreens.settingsList])
            navigator.showDetail(root.id, DemoScreens.settingsLogin)
            return .multiple(
                .contribute(withNext: SettingsListViewModel(presentableID: DemoScreens.settingsList.id)),
                .contribute(withNext: LoginViewModel(presentableID: DemoScreens.settingsLogin.id)),
                .forwardToCurrentFlow(withStep: DemoStep.alert(Self.multipleContributorsMessage).step)
            )
        case .loginIsRequired:
            navigator.showDetail(root.id, DemoScreens.settingsLogin)
            let login = LoginViewModel(presentableID: DemoScreens.settingsLogin.id)
            return .one(flowContributor: .contribute(withNext: login))
        case .apiKeyIsRequired:
            navigator.showDetail(root.id, DemoScreens.settingsApiKey)
            return .one(
                flowContributor: .contribute(
                    withNextPresentable: DemoScreens.settingsApiKey,
                    withNextStepper: ApiKeyViewModel(services: services)
                )
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
