import FlowCore
import MovieVocabulary

/// The watched-movie list's stepper (Watched tab, and Trending's movie page): pick a movie.
public final class WatchedViewModel: MoviePicker, CustomStringConvertible {
    public let steps = StepRelay()
    /// The watched movies.
    public let movies: [Movie]

    /// The watched list of the catalogue of `services`.
    public init(services: AppServices) {
        movies = services.moviesService.watchedMovies()
    }

    public var description: String { "WatchedViewModel" }
}
