/// A movie of the demo's catalogue (RxFlowDemo's `Movie`, without the long description and the image).
public struct Movie: Hashable, Sendable, Codable, Identifiable {
    /// The catalogue id (Avatar is 23452).
    public var id: Int
    /// The title.
    public var title: String
    /// The release year.
    public var year: Int
    /// The director.
    public var director: String
    /// The writer.
    public var writer: String
    /// In US dollars.
    public var budget: Int
    /// Watched movies are in the Watched tab, the others in the Wishlist.
    public var watched: Bool

    /// A movie.
    public init(id: Int, title: String, year: Int, director: String, writer: String, budget: Int, watched: Bool) {
        self.id = id
        self.title = title
        self.year = year
        self.director = director
        self.writer = writer
        self.budget = budget
        self.watched = watched
    }
}

/// An actor of the demo's catalogue (RxFlowDemo's `Cast`, without the bio and the image).
public struct Cast: Hashable, Sendable, Codable, Identifiable {
    /// The catalogue id, 0 to 9.
    public var id: Int
    /// The actor's name.
    public var name: String

    /// A cast.
    public init(id: Int, name: String) {
        self.id = id
        self.name = name
    }
}
