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
    /// (`Codable` below, ``FastJSONWriter/command(_:)`` on every `COMMAND`). Each is read from the command when
    /// asked: a struct of them all was built, copied whole and destroyed on every `COMMAND`.
    struct Fields {
        let command: NavigationCommand

        init(_ command: NavigationCommand) { self.command = command }

        var op: StaticString {
            switch command {
            case .setRoot: "setRoot"
            case .push: "push"
            case .pop: "pop"
            case .popToRoot: "popToRoot"
            case .setStack: "setStack"
            case .present: "present"
            case .dismiss: "dismiss"
            case .setTabs: "setTabs"
            case .selectTab: "selectTab"
            case .showMaster: "showMaster"
            case .showDetail: "showDetail"
            }
        }

        var screen: Screen? {
            switch command {
            case .setRoot(let screen), .push(let screen, _), .present(let screen, _), .showMaster(_, let screen),
                .showDetail(_, let screen):
                screen
            case .pop, .popToRoot, .setStack, .dismiss, .setTabs, .selectTab: nil
            }
        }

        var screens: [Screen]? {
            switch command {
            case .setStack(_, let screens), .setTabs(_, let screens, _): screens
            case .setRoot, .push, .pop, .popToRoot, .present, .dismiss, .selectTab, .showMaster, .showDetail: nil
            }
        }

        var selected: Int? {
            if case .setTabs(_, _, let selected) = command { selected } else { nil }
        }

        var index: Int? {
            if case .selectTab(_, let index) = command { index } else { nil }
        }

        /// The stack, presenter, tabs or split the command acts on (none for `setRoot`).
        var target: PresentableID? { command.target }
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

extension FastJSONReader {
    /// A `WireCommand` inside a `COMMAND` body. Every field is read whatever the op (one of the wrong type gives up,
    /// where `JSONDecoder` would skip a field the op does not use); a missing field the op needs gives up too.
    mutating func command() throws(FastPathUnsupported) -> NavigationCommand {
        var op: String?
        var screen: Screen?
        var screens: [Screen]?
        var target: String?
        var selected: Int?
        var index: Int?
        let keys: [StaticString] = ["index", "op", "screen", "screens", "selected", "target"]
        try fields(keys, depth: 2) { reader, field throws(FastPathUnsupported) in
            switch field {
            case 0: index = try reader.integer()
            case 1: op = try reader.string()
            case 2: screen = try reader.screen(depth: 3)
            case 3: screens = try reader.screens()
            case 4: selected = try reader.integer()
            default: target = try reader.string()
            }
        }
        func need<Value>(_ value: Value?) throws(FastPathUnsupported) -> Value {
            guard let value else { throw FastPathUnsupported() }
            return value
        }
        let stack = target.map { PresentableID($0) }
        switch op {
        case "setRoot": return .setRoot(try need(screen))
        case "push": return .push(try need(screen), onto: try need(stack))
        case "pop": return .pop(stack: try need(stack))
        case "popToRoot": return .popToRoot(stack: try need(stack))
        case "setStack": return .setStack(try need(stack), try need(screens))
        case "present": return .present(try need(screen), over: try need(stack))
        case "dismiss": return .dismiss(presentedOver: try need(stack))
        case "setTabs": return .setTabs(try need(stack), try need(screens), selected: try need(selected))
        case "selectTab": return .selectTab(try need(stack), index: try need(index))
        case "showMaster": return .showMaster(try need(stack), try need(screen))
        case "showDetail": return .showDetail(try need(stack), try need(screen))
        default: throw FastPathUnsupported()
        }
    }

    /// `[screen, …]` as the `screens` of a command.
    private mutating func screens() throws(FastPathUnsupported) -> [Screen] {
        var screens: [Screen] = []
        try array { reader throws(FastPathUnsupported) in screens.append(try reader.screen(depth: 4)) }
        return screens
    }

    /// A `Screen` as its `Codable` form reads it: a missing `kind` is a view, a missing `type` the kind's name, a
    /// missing `data` `null`. `depth` is the screen object's own nesting depth in the body.
    private mutating func screen(depth: Int) throws(FastPathUnsupported) -> Screen {
        var id: String?
        var kind: String?
        var type: String?
        var data: JSONValue?
        try fields(["data", "id", "kind", "type"], depth: depth) { reader, field throws(FastPathUnsupported) in
            switch field {
            case 0: data = try reader.value(depth: depth)
            case 1: id = try reader.string()
            case 2: kind = try reader.string()
            default: type = try reader.string()
            }
        }
        guard let id else { throw FastPathUnsupported() }
        return Screen(id: PresentableID(id), kind: kind.map { Screen.Kind($0) } ?? .view, type: type, data: data ?? .null)
    }
}
