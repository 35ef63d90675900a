import FlowCore
import MovieVocabulary

/// A movie detail's stepper: pick one of the movie's five casts.
public final class MovieDetailViewModel: CastPicker, CustomStringConvertible {
    public let steps = StepRelay()
    /// The id of the movie shown.
    public let movieId: Int
    /// The movie, when the catalogue has it.
    public let movie: Movie?
    /// The movie's five casts.
    public let casts: [Cast]

    /// The detail of the movie with `movieId` in the catalogue of `services`.
    public init(movieId: Int, services: AppServices) {
        self.movieId = movieId
        movie = services.moviesService.movie(forId: movieId)
        casts = movie.map { services.moviesService.casts(for: $0) } ?? []
    }

    public var description: String { "MovieDetailViewModel(\(movieId))" }
}
