import FlowCore

/// The API key screen's stepper (RxFlowDemo's `SettingsApiKeyViewModel`): it never emits; setting the key marks the
/// user as onboarded, which AppStepper turns into `onboardingIsComplete`.
public final class ApiKeyViewModel: Stepper, CustomStringConvertible {
    public let steps = StepRelay()
    private let preferencesService: PreferencesService

    /// An API key screen that sets the onboarding flag of `services`.
    public init(services: AppServices) {
        preferencesService = services.preferencesService
    }

    /// The Validate button: marks the user as onboarded.
    public func setApiKey() { preferencesService.setOnboarded() }

    public var description: String { "ApiKeyViewModel" }
}
