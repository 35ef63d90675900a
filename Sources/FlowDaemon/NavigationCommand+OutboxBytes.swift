internal import FlowCore

/// The size a command counts against a session's outbox byte bound (`daemon.outbox_bytes_limit`, docs/LIMITS.md,
/// "Many sessions, many steps"): an estimate near both its JSON and its memory, made from the command alone so that
/// a restart counts a saved command as the running daemon counted it.
///
/// A command counts 64 bytes, and each screen it carries what the UI counts it (``Screen/estimatedBytes``).
extension NavigationCommand {
    var outboxBytes: Int {
        switch self {
        case .pop, .popToRoot, .dismiss, .selectTab: return 64
        case .setRoot(let screen), .push(let screen, _), .present(let screen, _), .showMaster(_, let screen),
            .showDetail(_, let screen):
            return 64 &+ screen.estimatedBytes
        case .setStack(_, let screens), .setTabs(_, let screens, _):
            var bytes = 64
            for index in screens.indices { bytes &+= screens[index].estimatedBytes }
            return bytes
        }
    }
}
