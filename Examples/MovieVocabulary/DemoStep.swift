import FlowCore

/// The demo's steps: RxFlowDemo's `DemoStep`, convertible to and from FlowCore's ``Step``.
///
/// A case becomes a step named after the case; `movieIsPicked(withId:)` and `castIsPicked(withId:)` carry the id as
/// an integer payload, `alert(_:)` its message as a string payload: `movieIsPicked(23452)`, `alert("Hi")`.
public enum DemoStep: Hashable, Sendable, StepConvertible {
    // Global
    case logoutIsRequired
    case dashboardIsRequired
    case alert(String)
    case fakeStep
    case unauthorized

    // Login
    case loginIsRequired
    case userIsLoggedIn

    // Api key
    case apiKeyIsRequired
    case apiKeyIsFilledIn

    // Onboarding
    case onboardingIsRequired
    case onboardingIsComplete

    // Movies
    case moviesAreRequired
    case movieIsPicked(withId: Int)
    case castIsPicked(withId: Int)

    // Settings
    case settingsAreRequired
    case settingsAreComplete

    // About
    case aboutIsRequired
    case aboutIsComplete

    // Trending
    case trendingsAreRequired

    // Cast list
    case castListAreRequired

    /// The steps without payload, by name.
    private static let simpleSteps: [String: DemoStep] = Dictionary(
        uniqueKeysWithValues: [
            DemoStep.logoutIsRequired, .dashboardIsRequired, .fakeStep, .unauthorized, .loginIsRequired,
            .userIsLoggedIn, .apiKeyIsRequired, .apiKeyIsFilledIn, .onboardingIsRequired, .onboardingIsComplete,
            .moviesAreRequired, .settingsAreRequired, .settingsAreComplete, .aboutIsRequired, .aboutIsComplete,
            .trendingsAreRequired, .castListAreRequired,
        ].map { ($0.name, $0) }
    )

    /// Every demo step's name (the steps with a payload too): what `flowd` accepts from stepper processes and deep
    /// links.
    public static let names: Set<String> = Set(simpleSteps.keys).union(["alert", "movieIsPicked", "castIsPicked"])

    /// The step's name: the case's name.
    public var name: String {
        switch self {
        case .logoutIsRequired: return "logoutIsRequired"
        case .dashboardIsRequired: return "dashboardIsRequired"
        case .alert: return "alert"
        case .fakeStep: return "fakeStep"
        case .unauthorized: return "unauthorized"
        case .loginIsRequired: return "loginIsRequired"
        case .userIsLoggedIn: return "userIsLoggedIn"
        case .apiKeyIsRequired: return "apiKeyIsRequired"
        case .apiKeyIsFilledIn: return "apiKeyIsFilledIn"
        case .onboardingIsRequired: return "onboardingIsRequired"
        case .onboardingIsComplete: return "onboardingIsComplete"
        case .moviesAreRequired: return "moviesAreRequired"
        case .movieIsPicked: return "movieIsPicked"
        case .castIsPicked: return "castIsPicked"
        case .settingsAreRequired: return "settingsAreRequired"
        case .settingsAreComplete: return "settingsAreComplete"
        case .aboutIsRequired: return "aboutIsRequired"
        case .aboutIsComplete: return "aboutIsComplete"
        case .trendingsAreRequired: return "trendingsAreRequired"
        case .castListAreRequired: return "castListAreRequired"
        }
    }

    public var step: Step {
        switch self {
        case .alert(let message): return Step(name, payload: .string(message))
        case .movieIsPicked(let id), .castIsPicked(let id): return Step(name, payload: .int(id))
        default: return Step(name)
        }
    }

    /// Reads a demo step back; `nil` for a step that is not one (an unknown name, a payload of the wrong shape).
    public init?(step: Step) {
        switch step.name {
        case "alert":
            guard let message = step.payload.stringValue else { return nil }
            self = .alert(message)
        case "movieIsPicked":
            guard let id = step.payload.intValue else { return nil }
            self = .movieIsPicked(withId: id)
        case "castIsPicked":
            guard let id = step.payload.intValue else { return nil }
            self = .castIsPicked(withId: id)
        default:
            guard let simple = Self.simpleSteps[step.name], step.payload == .null else { return nil }
            self = simple
        }
    }
}
