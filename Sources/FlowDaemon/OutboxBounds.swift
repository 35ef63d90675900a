/// How much of its past a session keeps for a presenter's replay: at most ``commands`` commands and ``bytes`` bytes of
/// them (``NavigationCommand/outboxBytes``), and always the last one (`daemon.outbox_limit`,
/// `daemon.outbox_bytes_limit`).
struct OutboxBounds: Sendable, Equatable {
    let commands: Int
    let bytes: Int

    /// At least one command: a ``DaemonConfiguration`` built in code is not held to the settings' bounds.
    init(commands: Int, bytes: Int) {
        self.commands = max(1, commands)
        self.bytes = bytes
    }
}

extension DaemonConfiguration {
    /// The bounds of each session's outbox.
    var outboxBounds: OutboxBounds { OutboxBounds(commands: outboxLimit, bytes: outboxBytesLimit) }
}
