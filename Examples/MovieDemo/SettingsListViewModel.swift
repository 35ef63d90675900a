import FlowCore
import MovieVocabulary

/// The settings list, presentable and stepper at once (RxFlowDemo's `SettingsListViewController`, contributed with
/// `.contribute(withNext:)`): each row asks for a detail screen.
public final class SettingsListViewModel: Stepper, Presentable, CustomStringConvertible {
    /// A row of the settings list.
    public enum Row: String, Sendable, CaseIterable {
        case login
        case apiKey
        case about

        /// The step the row emits.
        public var step: DemoStep {
            switch self {
            case .login: return .loginIsRequired
            case .apiKey: return .apiKeyIsRequired
            case .about: return .aboutIsRequired
            }
        }
    }

    public let steps = StepRelay()
    public let presentableID: PresentableID

    /// The settings list shown as `presentableID`.
    public init(presentableID: PresentableID = DemoScreens.settingsList.id) {
        self.presentableID = presentableID
    }

    /// The rows, in order.
    public var rows: [Row] { Row.allCases }

    /// The user taps a row.
    public func pick(_ row: Row) { steps.accept(row.step) }

    public var description: String { "SettingsListViewModel" }
}
