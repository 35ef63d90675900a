/// A movie of the demo's catalogue (RxFlowDemo's `Movie`, without the long description and the image).
public struct Movie: Hashable, Sendable, Codable, Identifiable {
    public var id: Int
    public var title: String
    public var year: Int
    public var director: String
    public var writer: String
    /// In US dollars.
    public var budget: Int
    /// Watched movies are in the Watched tab, the others in the Wishlist.
    public var watched: Bool

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
    public var id: Int
    public var name: String

    public init(id: Int, name: String) {
        self.id = id
        self.name = name
    }
}
