/// The demo's movie and cast catalogue: RxFlowDemo's `MoviesService`, `CastsService` and their repositories.
///
/// Ten movies (four in the wishlist, six watched; Avatar is 23452) and ten casts, in the demo's order.
public struct MoviesService: Hashable, Sendable {
    /// Every movie, in the demo's order.
    public let movies: [Movie]
    /// Every cast, ids 0 to 9.
    public let casts: [Cast]

    /// The demo's catalogue.
    public init() {
        movies = [
            Movie(id: 21212, title: "Star Trek Beyond", year: 2016, director: "Justin Lin", writer: "S. Pegg",
                  budget: 185_000_000, watched: false),
            Movie(id: 14323, title: "Starwars: The force awakens", year: 2015, director: "JJ. Abrams",
                  writer: "L. Kasdan", budget: 245_000_000, watched: false),
            Movie(id: 23452, title: "Avatar", year: 2009, director: "J. Cameron", writer: "J. Cameron",
                  budget: 237_000_000, watched: false),
            Movie(id: 35423, title: "Blade Runner", year: 1982, director: "R. Scott", writer: "H. Fetcher",
                  budget: 28_000_000, watched: false),
            Movie(id: 43424, title: "The Terminator", year: 1984, director: "J. Cameron", writer: "J. Cameron",
                  budget: 6_400_000, watched: true),
            Movie(id: 55423, title: "Predator", year: 1987, director: "J. McTiernan", writer: "J. Thomas",
                  budget: 15_000_000, watched: true),
            Movie(id: 64323, title: "Dune", year: 1984, director: "D. Lynch", writer: "F. Herbert",
                  budget: 40_000_000, watched: true),
            Movie(id: 7253, title: "First Constact", year: 1996, director: "J. Frakes", writer: "G. Roddenberry",
                  budget: 45_000_000, watched: true),
            Movie(id: 5864, title: "Dune", year: 1984, director: "D. Lynch", writer: "F. Herbert",
                  budget: 40_000_000, watched: true),
            Movie(id: 9432, title: "First Constact", year: 1996, director: "J. Frakes", writer: "G. Roddenberry",
                  budget: 45_000_000, watched: true),
        ]
        casts = [
            "Worthington", "Saldana", "Weaver", "Lang", "Rodriguez", "Schwarzenegger", "Weathers", "Ventura", "Duke",
            "Carrillo",
        ].enumerated().map { Cast(id: $0.offset, name: $0.element) }
    }

    /// The movies not watched yet, for the Wishlist tab.
    public func wishlistMovies() -> [Movie] { movies.filter { !$0.watched } }

    /// The watched movies, for the Watched tab (and Trending's movie page).
    public func watchedMovies() -> [Movie] { movies.filter(\.watched) }

    /// The movie with `id`, if the catalogue has one.
    public func movie(forId id: Int) -> Movie? { movies.first { $0.id == id } }

    /// The cast with `id`, if the catalogue has one.
    public func cast(forId id: Int) -> Cast? { casts.first { $0.id == id } }

    /// A movie's casting, by the demo's rule: casts 0, 2, 4, 6, 8 for an even movie id, 1, 3, 5, 7, 9 otherwise.
    public func casts(for movie: Movie) -> [Cast] {
        casts.filter { $0.id % 2 == (movie.id % 2 == 0 ? 0 : 1) }
    }

    /// Every cast, for Trending's cast page (RxFlowDemo's `CastsService.allCasts()`).
    public func allCasts() -> [Cast] { casts }
}
