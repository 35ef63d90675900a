/// A screen or a container, described as data so a presenter in another process can build it.
///
/// `Screen` is the `UIViewController` of Flowd: ``kind`` says whether it is content (a view) or a container (a
/// navigation stack, a tab bar, a split view), ``type`` names what to draw (`"MovieDetail"`), and ``data`` carries
/// what the presenter needs to draw it (a movie id, a title).
public struct Screen: Presentable, Hashable, Sendable, Codable {
    /// What sort of thing a screen is; encoded as its string.
    public struct Kind: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(_ rawValue: String) { self.rawValue = rawValue }

        /// Content: a view that shows something and may have a stepper behind it.
        public static let view = Kind("view")
        /// A navigation stack (`UINavigationController`): children pushed and popped, the top one visible.
        public static let stack = Kind("stack")
        /// A tab bar (`UITabBarController`): one child visible, the selected one.
        public static let tabs = Kind("tabs")
        /// A split view (`UISplitViewController`): a master and a detail, both visible.
        public static let split = Kind("split")
        /// An alert: a small modal with a message.
        public static let alert = Kind("alert")

        public var description: String { rawValue }
    }

    /// The identity of this screen.
    public var id: PresentableID
    /// Content or which container.
    public var kind: Kind
    /// What to draw, as the presenter knows it (`"WishlistList"`); defaults to the kind.
    public var type: String
    /// What the presenter needs to draw it.
    public var data: JSONValue

    /// Describes a screen.
    public init(id: PresentableID, kind: Kind = .view, type: String? = nil, data: JSONValue = .null) {
        self.id = id
        self.kind = kind
        self.type = type ?? kind.rawValue
        self.data = data
    }

    public var presentableID: PresentableID { id }

    private enum CodingKeys: String, CodingKey { case id, kind, type, data }

    /// Decodes a screen; a missing `type` is the kind's name, a missing `data` is `null`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let id = try container.decode(PresentableID.self, forKey: .id)
        let kind = try container.decodeIfPresent(Kind.self, forKey: .kind) ?? .view
        self.init(
            id: id, kind: kind, type: try container.decodeIfPresent(String.self, forKey: .type),
            data: try container.decodeIfPresent(JSONValue.self, forKey: .data) ?? .null
        )
    }

    /// A content view.
    public static func view(_ id: PresentableID, type: String, data: JSONValue = .null) -> Screen {
        Screen(id: id, kind: .view, type: type, data: data)
    }

    /// A navigation stack container.
    public static func stack(_ id: PresentableID) -> Screen { Screen(id: id, kind: .stack) }

    /// A tab bar container.
    public static func tabs(_ id: PresentableID) -> Screen { Screen(id: id, kind: .tabs) }

    /// A split view container.
    public static func split(_ id: PresentableID) -> Screen { Screen(id: id, kind: .split) }

    /// An alert showing `message`.
    public static func alert(_ id: PresentableID, message: String) -> Screen {
        Screen(id: id, kind: .alert, type: "alert", data: .string(message))
    }
}
