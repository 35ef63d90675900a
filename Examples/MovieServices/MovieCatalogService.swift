public import FlowCore
public import MovieVocabulary

/// The movie service's logic: the demo's catalogue (``MovieVocabulary/MoviesService``: 10 movies, 10 casts) and what a
/// pick on each screen means.
///
/// `Sendable`: a value.
public struct MovieCatalogService: Sendable {
    /// The catalogue.
    public let catalogue: MoviesService

    /// A service over `catalogue` (the demo's by default).
    public init(catalogue: MoviesService = MoviesService()) {
        self.catalogue = catalogue
    }

    /// The movies a movie-list kind shows: the wishlist (`movies.wishlist`), the watched movies (`movies.watched`,
    /// and `movies.trending`, which RxFlowDemo fills with the watched list); `nil` for other kinds.
    public func movies(listedBy kind: String) -> [Movie]? {
        switch kind {
        case DemoStepperKind.moviesWishlist: return catalogue.wishlistMovies()
        case DemoStepperKind.moviesWatched, DemoStepperKind.moviesTrending: return catalogue.watchedMovies()
        default: return nil
        }
    }

    /// The movie a `movies.detail` attachment is about: its context `{"movie": <id>}` (or a bare id).
    public func movieId(inContext context: JSONValue) -> Int? {
        context[member: "movie"]?.intValue ?? context.intValue
    }

    /// What an action on an attachment of `kind` (about `context`) leads to.
    ///
    /// | kind | action | payload | step |
    /// |---|---|---|---|
    /// | `movies.wishlist`, `.watched`, `.trending` | `pick` | a movie id the list shows | `movieIsPicked(id)` |
    /// | `movies.wishlist` | `about` / `settings` | none | `aboutIsRequired` / `settingsAreRequired` |
    /// | `movies.detail` | `pickCast` | a cast id of the movie | `castIsPicked(id)` |
    /// | `movies.castList` | `pick` | a cast id | `castIsPicked(id)` |
    ///
    /// An id is a JSON integer (`23452`) or an object with `id` (`{"id": 23452}`; `movie` or `cast` work too).
    ///
    /// - Throws: a ``ServiceError``: unknown kind or action, bad payload, unknown or unlisted movie or cast.
    public func step(for kind: String, action: Step, context: JSONValue = .null) throws(ServiceError) -> Step {
        switch (kind, action.name) {
        case (DemoStepperKind.moviesWishlist, DemoAction.pick), (DemoStepperKind.moviesWatched, DemoAction.pick),
            (DemoStepperKind.moviesTrending, DemoAction.pick):
            guard let id = action.payload.id(orMember: "movie") else {
                throw .badPayload(action: action.name, expected: "a movie id")
            }
            guard catalogue.movie(forId: id) != nil else { throw .unknownMovie(id) }
            guard movies(listedBy: kind)?.contains(where: { $0.id == id }) == true else {
                throw .movieNotListed(id, kind: kind)
            }
            return DemoStep.movieIsPicked(withId: id).step
        case (DemoStepperKind.moviesWishlist, DemoAction.about):
            return DemoStep.aboutIsRequired.step
        case (DemoStepperKind.moviesWishlist, DemoAction.settings):
            return DemoStep.settingsAreRequired.step
        case (DemoStepperKind.moviesDetail, DemoAction.pickCast):
            guard let castId = action.payload.id(orMember: "cast") else {
                throw .badPayload(action: action.name, expected: "a cast id")
            }
            guard catalogue.cast(forId: castId) != nil else { throw .unknownCast(castId) }
            guard let movieId = movieId(inContext: context), let movie = catalogue.movie(forId: movieId) else {
                throw .unknownMovie(movieId(inContext: context) ?? -1)
            }
            guard catalogue.casts(for: movie).contains(where: { $0.id == castId }) else {
                throw .castNotInMovie(cast: castId, movie: movieId)
            }
            return DemoStep.castIsPicked(withId: castId).step
        case (DemoStepperKind.moviesCastList, DemoAction.pick):
            guard let castId = action.payload.id(orMember: "cast") else {
                throw .badPayload(action: action.name, expected: "a cast id")
            }
            guard catalogue.cast(forId: castId) != nil else { throw .unknownCast(castId) }
            return DemoStep.castIsPicked(withId: castId).step
        case (let kind, let name):
            guard DemoStepperKind.movies.contains(kind) else { throw .unknownKind(kind) }
            throw .unknownAction(kind: kind, action: name)
        }
    }
}
