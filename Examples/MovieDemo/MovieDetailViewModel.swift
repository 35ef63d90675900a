import FlowCore

/// A movie detail's stepper: pick one of the movie's five casts.
public final class MovieDetailViewModel: CastPicker, CustomStringConvertible {
    public let steps = StepRelay()
    public let movieId: Int
    /// The movie, when the catalogue has it.
    public let movie: Movie?
    public let casts: [Cast]

    public init(movieId: Int, services: AppServices) {
        self.movieId = movieId
        movie = services.moviesService.movie(forId: movieId)
        casts = movie.map { services.moviesService.casts(for: $0) } ?? []
    }

    public var description: String { "MovieDetailViewModel(\(movieId))" }
}
