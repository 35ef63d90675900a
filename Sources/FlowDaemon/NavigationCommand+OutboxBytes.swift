internal import FlowCore

/// The size a command counts against a session's outbox byte bound (`daemon.outbox_bytes_limit`, docs/LIMITS.md,
/// "Many sessions, many steps"): an estimate near both its JSON and its memory, made from the command alone so that
/// a restart counts a saved command as the running daemon counted it.
///
/// A command counts 64 bytes; each screen it carries 32 more, its ID's and type's UTF-8 bytes, and its data: 8 bytes
/// a JSON value, plus the UTF-8 bytes of its strings and keys. Numbers count alike whatever their JSON spelling (a
/// saved `1.0` may come back as `1`), and a native string's UTF-8 count is stored, so a string is not read.
extension NavigationCommand {
    var outboxBytes: Int {
        switch self {
        case .pop, .popToRoot, .dismiss, .selectTab: return 64
        case .setRoot(let screen), .push(let screen, _), .present(let screen, _), .showMaster(_, let screen),
            .showDetail(_, let screen):
            return 64 &+ screen.outboxBytes
        case .setStack(_, let screens), .setTabs(_, let screens, _):
            var bytes = 64
            for index in screens.indices { bytes &+= screens[index].outboxBytes }
            return bytes
        }
    }
}

extension Screen {
    /// Inlined, with the common `data` (a scalar or a string) counted in place: a call between the screen's read and
    /// its use made the compiler copy the screen out of its array or box first (~200 instructions a command).
    @inline(__always)
    fileprivate var outboxBytes: Int {
        let text = 32 &+ id.rawValue.utf8.count &+ type.utf8.count
        switch data {
        case .null, .bool, .int, .double: return text &+ 8
        case .string(let string): return text &+ 8 &+ string.utf8.count
        case .array, .object: return text &+ data.outboxBytes
        }
    }
}

extension JSONValue {
    /// 8 bytes a value, and the UTF-8 bytes of its strings and keys (one walk of the value).
    fileprivate var outboxBytes: Int {
        switch self {
        case .null, .bool, .int, .double: return 8
        case .string(let string): return 8 &+ string.utf8.count
        case .array(let values):
            var bytes = 8
            for value in values { bytes &+= value.outboxBytes }
            return bytes
        case .object(let members):
            var bytes = 8
            for (key, value) in members { bytes &+= key.utf8.count &+ value.outboxBytes }
            return bytes
        }
    }
}
