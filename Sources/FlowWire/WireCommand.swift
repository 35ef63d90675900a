public import FlowCore

/// A ``NavigationCommand`` in its wire form: `{"op": "push", "screen": {...}, "target": "wishlist"}`
/// (`docs/PROTOCOL.md` §6.3).
public struct WireCommand: Sendable, Hashable, Codable {
    /// The command.
    public var command: NavigationCommand

    public init(_ command: NavigationCommand) { self.command = command }

    private enum CodingKeys: String, CodingKey { case op, screen, screens, target, selected, index }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let op = try container.decode(String.self, forKey: .op)
        func screen() throws -> Screen { try container.decode(Screen.self, forKey: .screen) }
        func screens() throws -> [Screen] { try container.decode([Screen].self, forKey: .screens) }
        func target() throws -> PresentableID { try container.decode(PresentableID.self, forKey: .target) }
        switch op {
        case "setRoot": command = .setRoot(try screen())
        case "push": command = .push(try screen(), onto: try target())
        case "pop": command = .pop(stack: try target())
        case "popToRoot": command = .popToRoot(stack: try target())
        case "setStack": command = .setStack(try target(), try screens())
        case "present": command = .present(try screen(), over: try target())
        case "dismiss": command = .dismiss(presentedOver: try target())
        case "setTabs":
            command = .setTabs(try target(), try screens(), selected: try container.decode(Int.self, forKey: .selected))
        case "selectTab": command = .selectTab(try target(), index: try container.decode(Int.self, forKey: .index))
        case "showMaster": command = .showMaster(try target(), try screen())
        case "showDetail": command = .showDetail(try target(), try screen())
        default:
            throw DecodingError.dataCorruptedError(forKey: .op, in: container, debugDescription: "unknown op '\(op)'")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch command {
        case .setRoot(let screen):
            try container.encode("setRoot", forKey: .op)
            try container.encode(screen, forKey: .screen)
        case .push(let screen, let stack):
            try container.encode("push", forKey: .op)
            try container.encode(screen, forKey: .screen)
            try container.encode(stack, forKey: .target)
        case .pop(let stack):
            try container.encode("pop", forKey: .op)
            try container.encode(stack, forKey: .target)
        case .popToRoot(let stack):
            try container.encode("popToRoot", forKey: .op)
            try container.encode(stack, forKey: .target)
        case .setStack(let stack, let screens):
            try container.encode("setStack", forKey: .op)
            try container.encode(stack, forKey: .target)
            try container.encode(screens, forKey: .screens)
        case .present(let screen, let presenter):
            try container.encode("present", forKey: .op)
            try container.encode(screen, forKey: .screen)
            try container.encode(presenter, forKey: .target)
        case .dismiss(let presenter):
            try container.encode("dismiss", forKey: .op)
            try container.encode(presenter, forKey: .target)
        case .setTabs(let tabs, let screens, let selected):
            try container.encode("setTabs", forKey: .op)
            try container.encode(tabs, forKey: .target)
            try container.encode(screens, forKey: .screens)
            try container.encode(selected, forKey: .selected)
        case .selectTab(let tabs, let index):
            try container.encode("selectTab", forKey: .op)
            try container.encode(tabs, forKey: .target)
            try container.encode(index, forKey: .index)
        case .showMaster(let split, let screen):
            try container.encode("showMaster", forKey: .op)
            try container.encode(split, forKey: .target)
            try container.encode(screen, forKey: .screen)
        case .showDetail(let split, let screen):
            try container.encode("showDetail", forKey: .op)
            try container.encode(split, forKey: .target)
            try container.encode(screen, forKey: .screen)
        }
    }
}
