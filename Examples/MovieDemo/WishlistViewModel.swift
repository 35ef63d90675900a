import FlowCore
import MovieVocabulary

/// The wishlist screen's stepper: pick a movie, the About button and the Logout button.
///
/// RxFlowDemo splits these between `WishlistViewModel` (pick), `WishlistViewController` (about) and the flow's
/// Logout bar button (which only calls `setNotOnboarded()`); here they are the actions of the one screen.
public final class WishlistViewModel: MoviePicker, CustomStringConvertible {
    public let steps = StepRelay()
    /// The movies not watched yet.
    public let movies: [Movie]
    private let preferencesService: PreferencesService

    /// The wishlist of the catalogue of `services`; Logout acts on its preferences.
    public init(services: AppServices) {
        movies = services.moviesService.wishlistMovies()
        preferencesService = services.preferencesService
    }

    /// The About button: `aboutIsRequired` (WishlistFlow adapts every other one to `unauthorized`).
    public func about() { steps.accept(DemoStep.aboutIsRequired) }

    /// The Logout button: marks the user as not onboarded; AppStepper then asks for the onboarding.
    public func logout() { preferencesService.setNotOnboarded() }

    public var description: String { "WishlistViewModel" }
}
