/// What a session holds against its bounds (docs/LIMITS.md, *One session's size* and the outbox's bounds): its
/// screens, the bytes of them as LIMITS counts them, its attachments, and its outbox's commands and bytes. The same
/// five quantities name a session's own figures (`SESSIONS`), the largest of each over the sessions and the daemon's
/// bounds (`HEALTH`, docs/PROTOCOL.md §7).
public struct SessionUsage: Sendable, Hashable, Codable, CustomStringConvertible {
    /// UI model nodes (`daemon.max_session_screens`).
    public var screens: Int
    /// The bytes of those screens as LIMITS counts them (`daemon.max_session_ui_bytes`).
    public var uiBytes: Int
    /// Live attachments, remote and in-daemon (`daemon.max_session_attachments`).
    public var attachments: Int
    /// Commands kept for replay (`daemon.outbox_limit`).
    public var outboxCommands: Int
    /// What those commands count (`daemon.outbox_bytes_limit`).
    public var outboxBytes: Int

    public init(screens: Int, uiBytes: Int, attachments: Int, outboxCommands: Int, outboxBytes: Int) {
        self.screens = screens
        self.uiBytes = uiBytes
        self.attachments = attachments
        self.outboxCommands = outboxCommands
        self.outboxBytes = outboxBytes
    }

    /// Every quantity 0: what the largest over no session is, and where the quantities' names are read from.
    public static let zero = SessionUsage(screens: 0, uiBytes: 0, attachments: 0, outboxCommands: 0, outboxBytes: 0)

    /// Each quantity with its wire name, in the wire's order.
    public var quantities: [(name: String, value: Int)] {
        [
            ("screens", screens), ("ui_bytes", uiBytes), ("attachments", attachments),
            ("outbox_commands", outboxCommands), ("outbox_bytes", outboxBytes),
        ]
    }

    /// The larger of each quantity (each may come from another session).
    public func maximum(_ other: SessionUsage) -> SessionUsage {
        SessionUsage(
            screens: max(screens, other.screens), uiBytes: max(uiBytes, other.uiBytes),
            attachments: max(attachments, other.attachments), outboxCommands: max(outboxCommands, other.outboxCommands),
            outboxBytes: max(outboxBytes, other.outboxBytes))
    }

    /// The bounds that refuse a session's steps once reached (screens, UI bytes, attachments; docs/LIMITS.md) of which
    /// this usage holds at least `percent` %, as `bounds` set them: each with its setting's name and the percentage
    /// (rounded down). The outbox's bounds are not among them: an outbox at its bound is a busy session's steady state
    /// (the oldest command goes for each new one), nothing is refused.
    public func near(_ bounds: SessionUsage, percent: Int = 90) -> [(setting: String, percent: Int)] {
        [
            ("daemon.max_session_screens", screens, bounds.screens),
            ("daemon.max_session_ui_bytes", uiBytes, bounds.uiBytes),
            ("daemon.max_session_attachments", attachments, bounds.attachments),
        ].compactMap { setting, value, bound in
            // In doubles: a bound near Int.max times 100 would overflow.
            let share = bound > 0 ? Double(value) * 100 / Double(bound) : 0
            return share >= Double(percent) ? (setting, Int(share.rounded(.down))) : nil
        }
    }

    /// `screens=12 ui_bytes=804 attachments=4 outbox_commands=9 outbox_bytes=1210`.
    public var description: String { quantities.map { "\($0.name)=\($0.value)" }.joined(separator: " ") }

    enum CodingKeys: String, CodingKey {
        case screens, attachments
        case uiBytes = "ui_bytes"
        case outboxCommands = "outbox_commands"
        case outboxBytes = "outbox_bytes"
    }
}
