import FlowCore

/// The watched-movie list's stepper (Watched tab, and Trending's movie page): pick a movie.
public final class WatchedViewModel: MoviePicker, CustomStringConvertible {
    public let steps = StepRelay()
    public let movies: [Movie]

    public init(services: AppServices) {
        movies = services.moviesService.watchedMovies()
    }

    public var description: String { "WatchedViewModel" }
}
