import FlowCore

/// How the demo's flows are made again from their saved state (`flowd`'s state snapshots): each with the same
/// `steppers` factory a new session's flows get.
public enum DemoRestoration: Sendable {
    /// A registry of the demo's flows and of ``TrendingStepper``, making flows over `steppers`.
    public static func restoration(steppers: any DemoSteppers) -> FlowRestoration {
        var restoration = FlowRestoration()
        restoration.register(AppFlow.self) { _ in AppFlow(steppers: steppers) }
        restoration.register(DashboardFlow.self) { _ in DashboardFlow(steppers: steppers) }
        restoration.register(OnboardingFlow.self) { _ in OnboardingFlow(steppers: steppers) }
        restoration.register(SettingsFlow.self) { _ in SettingsFlow(steppers: steppers) }
        restoration.register(TrendingFlow.self) { _ in TrendingFlow(steppers: steppers) }
        restoration.register(WatchedFlow.self) { _ in WatchedFlow(steppers: steppers) }
        restoration.register(WishlistFlow.self) { WishlistFlow(steppers: steppers, aboutRequests: $0.aboutRequests) }
        restoration.register(TrendingMovieFlow.self) { TrendingMovieFlow(steppers: steppers, navigationStack: $0) }
        restoration.register(CastListFlow.self) { CastListFlow(steppers: steppers, navigationStack: $0) }
        restoration.register(TrendingStepper.self) { _ in TrendingStepper() }
        return restoration
    }
}
