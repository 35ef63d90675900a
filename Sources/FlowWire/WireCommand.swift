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

    /// The command's wire fields: the one mapping from a command to its form that both encoders write
    /// (`Codable` below, ``FastJSONWriter/command(_:)`` on every `COMMAND`).
    struct Fields {
        var op: StaticString
        var screen: Screen?
        var screens: [Screen]?
        var selected: Int?
        var index: Int?
        var target: PresentableID?

        init(
            _ op: StaticString, screen: Screen? = nil, screens: [Screen]? = nil, selected: Int? = nil,
            index: Int? = nil, target: PresentableID? = nil
        ) {
            self.op = op
            self.screen = screen
            self.screens = screens
            self.selected = selected
            self.index = index
            self.target = target
        }

        init(_ command: NavigationCommand) {
            switch command {
            case .setRoot(let screen): self.init("setRoot", screen: screen)
            case .push(let screen, let stack): self.init("push", screen: screen, target: stack)
            case .pop(let stack): self.init("pop", target: stack)
            case .popToRoot(let stack): self.init("popToRoot", target: stack)
            case .setStack(let stack, let screens): self.init("setStack", screens: screens, target: stack)
            case .present(let screen, let presenter): self.init("present", screen: screen, target: presenter)
            case .dismiss(let presenter): self.init("dismiss", target: presenter)
            case .setTabs(let tabs, let screens, let selected):
                self.init("setTabs", screens: screens, selected: selected, target: tabs)
            case .selectTab(let tabs, let index): self.init("selectTab", index: index, target: tabs)
            case .showMaster(let split, let screen): self.init("showMaster", screen: screen, target: split)
            case .showDetail(let split, let screen): self.init("showDetail", screen: screen, target: split)
            }
        }
    }

    public func encode(to encoder: any Encoder) throws {
        let fields = Fields(command)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(fields.op.description, forKey: .op)
        try container.encodeIfPresent(fields.screen, forKey: .screen)
        try container.encodeIfPresent(fields.screens, forKey: .screens)
        try container.encodeIfPresent(fields.target, forKey: .target)
        try container.encodeIfPresent(fields.selected, forKey: .selected)
        try container.encodeIfPresent(fields.index, forKey: .index)
    }
}

extension FastJSONWriter {
    /// `WireCommand`'s form, as `JSONEncoder` writes it: its fields with keys in sorted order.
    mutating func command(_ command: NavigationCommand) throws(FastPathUnsupported) {
        let fields = WireCommand.Fields(command)
        raw("{")
        if let index = fields.index {
            raw("\"index\":")
            int(index)
            raw(",")
        }
        raw("\"op\":\"")
        raw(fields.op)
        raw("\"")
        if let screen = fields.screen {
            raw(",\"screen\":")
            try self.screen(screen)
        }
        if let screens = fields.screens {
            raw(",\"screens\":")
            try self.screens(screens)
        }
        if let selected = fields.selected {
            raw(",\"selected\":")
            int(selected)
        }
        if let target = fields.target {
            raw(",\"target\":")
            string(target.rawValue)
        }
        raw("}")
    }
}
