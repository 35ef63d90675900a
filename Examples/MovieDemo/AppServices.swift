import MovieVocabulary
/// The services the flows and view models share, injected by constructor: RxFlowDemo's `AppServices`.
public struct AppServices: Sendable {
    /// The movie and cast catalogue.
    public let moviesService: MoviesService
    /// The onboarding flag.
    public let preferencesService: PreferencesService

    /// The services, with the demo catalogue by default.
    public init(moviesService: MoviesService = MoviesService(), preferencesService: PreferencesService) {
        self.moviesService = moviesService
        self.preferencesService = preferencesService
    }
}
