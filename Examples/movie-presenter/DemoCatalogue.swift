import FlowCore
import MovieVocabulary

/// A row of a list a person can move through and pick.
struct ListItem: Hashable, Sendable {
    var label: String
    var detail: String
    /// What picking it sends (`USER_ACTION`) on the list's screen.
    var action: Step
}

/// The demo's screens as a person sees them: titles, lists, forms. Knows the demo's catalogue (the movies and casts
/// the screens' data point to).
struct DemoCatalogue: Sendable {
    let movies = MoviesService()

    /// A short title for a screen or container, for tab bars and breadcrumbs.
    func title(of id: PresentableID, in model: PresentationModel) -> String {
        switch id.rawValue {
        case "app.stack": return "App"
        case "onboarding.stack": return "Onboarding"
        case "dashboard.tabs": return "Dashboard"
        case "wishlist.stack", "wishlist.list": return "Wishlist"
        case "watched.stack", "watched.list": return "Watched"
        case "trending.stack", "trending.pages": return "Trending"
        case "trending.movies": return "Movies"
        case "trending.casts": return "Casts"
        case "settings.split", "settings.master", "settings.list": return "Settings"
        default: break
        }
        guard let screen = model.screen(id) else { return id.rawValue }
        switch screen.type {
        case DemoScreenType.movieDetail: return screen.data.intValue.flatMap(movies.movie(forId:))?.title ?? id.rawValue
        case DemoScreenType.castDetail: return screen.data.intValue.flatMap(movies.cast(forId:))?.name ?? id.rawValue
        case DemoScreenType.login: return "Login"
        case DemoScreenType.apiKey: return "API key"
        case DemoScreenType.about: return "About"
        case "alert": return "Alert"
        default: return id.rawValue
        }
    }

    /// The list a screen shows, if it shows one.
    func list(of id: PresentableID, in model: PresentationModel) -> [ListItem]? {
        guard let screen = model.screen(id) else { return nil }
        switch screen.type {
        case DemoScreenType.wishlistList:
            return movies.wishlistMovies().map(movieItem)
        case DemoScreenType.watchedList:
            return movies.watchedMovies().map(movieItem)
        case DemoScreenType.castList:
            return movies.allCasts().map {
                ListItem(label: $0.name, detail: "cast \($0.id)", action: Step(DemoAction.pick, payload: .int($0.id)))
            }
        case DemoScreenType.movieDetail:
            guard let movie = screen.data.intValue.flatMap(movies.movie(forId:)) else { return nil }
            return movies.casts(for: movie).map {
                ListItem(
                    label: $0.name, detail: "cast \($0.id)", action: Step(DemoAction.pickCast, payload: .int($0.id))
                )
            }
        case DemoScreenType.settingsList:
            return [
                ListItem(label: "Login", detail: "log in again", action: Step(DemoAction.login)),
                ListItem(label: "API key", detail: "set the API key", action: Step(DemoAction.apiKey)),
                ListItem(label: "About", detail: "about the demo", action: Step(DemoAction.about)),
            ]
        default:
            return nil
        }
    }

    private func movieItem(_ movie: Movie) -> ListItem {
        ListItem(
            label: movie.title, detail: "\(movie.year)  \(movie.director)",
            action: Step(DemoAction.pick, payload: .int(movie.id))
        )
    }
}
