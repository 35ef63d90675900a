import FlowCore
import MovieVocabulary
import Synchronization

/// AppFlow's flow stepper: starts with `dashboardIsRequired`, then follows the onboarding flag.
///
/// In ``readyToEmitSteps()`` it observes ``PreferencesService``: the current value at once, then every change, each
/// as `onboardingIsComplete` (onboarded) or `onboardingIsRequired` (not onboarded); RxFlowDemo binds
/// `preferencesService.rx.isOnboarded` the same way.
///
/// `Sendable`: the observation is behind a `Mutex`.
public final class AppStepper: Stepper, CustomStringConvertible {
    public let steps = StepRelay()
    private let preferencesService: PreferencesService
    private let observation = Mutex<PreferencesService.Observation?>(nil)

    /// A stepper following the onboarding flag of `preferencesService`.
    public init(preferencesService: PreferencesService) {
        self.preferencesService = preferencesService
    }

    public var initialStep: Step { DemoStep.dashboardIsRequired.step }

    public func readyToEmitSteps() {
        let relay = steps
        let added = preferencesService.observeOnboarded { onboarded in
            relay.accept(onboarded ? DemoStep.onboardingIsComplete : DemoStep.onboardingIsRequired)
        }
        let previous = observation.withLock { observation in
            defer { observation = added }
            return observation
        }
        if let previous { preferencesService.cancel(previous) }
    }

    public var description: String { "AppStepper" }

    deinit {
        if let observation = observation.withLock({ $0 }) { preferencesService.cancel(observation) }
    }
}
