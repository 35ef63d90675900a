public import FlowCore

/// The whole UI of a session as a `SNAPSHOT` carries it (`docs/PROTOCOL.md` §6.2): every screen with its container
/// state, parents before children.
public struct UISnapshot: Sendable, Hashable, Codable {
    /// Where a screen sits.
    public enum Placement: Sendable, Hashable, Codable {
        case window
        case childOf(PresentableID)
        case presentedOver(PresentableID)

        private enum CodingKeys: String, CodingKey {
            case childOf = "child_of"
            case presentedOver = "presented_over"
        }

        public init(from decoder: any Decoder) throws {
            if let single = try? decoder.singleValueContainer(), let text = try? single.decode(String.self) {
                guard text == "window" else {
                    throw DecodingError.dataCorruptedError(in: single, debugDescription: "unknown placement '\(text)'")
                }
                self = .window
                return
            }
            let container = try decoder.container(keyedBy: CodingKeys.self)
            if let parent = try container.decodeIfPresent(PresentableID.self, forKey: .childOf) {
                self = .childOf(parent)
            } else {
                self = .presentedOver(try container.decode(PresentableID.self, forKey: .presentedOver))
            }
        }

        public func encode(to encoder: any Encoder) throws {
            switch self {
            case .window:
                var container = encoder.singleValueContainer()
                try container.encode("window")
            case .childOf(let parent):
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(parent, forKey: .childOf)
            case .presentedOver(let presenter):
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(presenter, forKey: .presentedOver)
            }
        }
    }

    /// One screen and its container state.
    public struct Entry: Sendable, Hashable, Codable {
        public var screen: Screen
        public var placement: Placement
        public var children: [PresentableID]
        public var selected: Int
        @Nullable public var master: PresentableID?
        @Nullable public var detail: PresentableID?
        @Nullable public var presented: PresentableID?

        public init(
            screen: Screen, placement: Placement, children: [PresentableID] = [], selected: Int = 0,
            master: PresentableID? = nil, detail: PresentableID? = nil, presented: PresentableID? = nil
        ) {
            self.screen = screen
            self.placement = placement
            self.children = children
            self.selected = selected
            self.master = master
            self.detail = detail
            self.presented = presented
        }
    }

    /// The window's root, `null` for an empty window (§6.2).
    @Nullable public var root: PresentableID?
    /// Every screen, parents before children.
    public var screens: [Entry]

    public init(root: PresentableID?, screens: [Entry]) {
        self.root = root
        self.screens = screens
    }

    private enum CodingKeys: String, CodingKey { case root, screens }

    /// The snapshot of a presentation model.
    public init(_ model: PresentationModel) {
        var entries: [Entry] = []
        func visit(_ id: PresentableID) {
            guard let screen = model.screen(id), let placement = model.placement(of: id) else { return }
            let wirePlacement: Placement
            switch placement {
            case .window: wirePlacement = .window
            case .child(let parent): wirePlacement = .childOf(parent)
            case .presented(let presenter): wirePlacement = .presentedOver(presenter)
            }
            let isSplit = screen.kind == .split
            let entry = Entry(
                screen: screen, placement: wirePlacement, children: isSplit ? [] : model.children(of: id),
                selected: model.selectedTab(of: id) ?? 0, master: model.master(of: id), detail: model.detail(of: id),
                presented: model.presented(over: id)
            )
            entries.append(entry)
            for child in model.children(of: id) { visit(child) }
            if let presented = entry.presented { visit(presented) }
        }
        if let root = model.rootID { visit(root) }
        self.init(root: model.rootID, screens: entries)
    }

    /// The commands that rebuild this UI from an empty window, parents first.
    public var commands: [NavigationCommand] {
        guard let root, let rootEntry = screens.first(where: { $0.screen.id == root }) else { return [] }
        let byID = Dictionary(screens.map { ($0.screen.id, $0) }, uniquingKeysWith: { first, _ in first })
        var commands: [NavigationCommand] = [.setRoot(rootEntry.screen)]
        func rebuild(_ entry: Entry) {
            let children = entry.children.compactMap { byID[$0] }
            switch entry.screen.kind {
            case .stack where !children.isEmpty:
                commands.append(.setStack(entry.screen.id, children.map(\.screen)))
            case .tabs where !children.isEmpty:
                commands.append(.setTabs(entry.screen.id, children.map(\.screen), selected: entry.selected))
            case .split:
                if let master = entry.master.flatMap({ byID[$0] }) {
                    commands.append(.showMaster(entry.screen.id, master.screen))
                }
                if let detail = entry.detail.flatMap({ byID[$0] }) {
                    commands.append(.showDetail(entry.screen.id, detail.screen))
                }
            default:
                break
            }
            let contained = children + [entry.master, entry.detail].compactMap { $0.flatMap { byID[$0] } }
            for child in contained { rebuild(child) }
            if let presented = entry.presented.flatMap({ byID[$0] }) {
                commands.append(.present(presented.screen, over: entry.screen.id))
                rebuild(presented)
            }
        }
        rebuild(rootEntry)
        return commands
    }

    /// A presentation model holding this UI, and the reports a presenter adopting it makes (what is now visible).
    public func makeModel() -> (model: PresentationModel, reports: [CoordinatorInput]) {
        var model = PresentationModel()
        let update = model.apply(commands)
        return (model, update.reports)
    }
}
