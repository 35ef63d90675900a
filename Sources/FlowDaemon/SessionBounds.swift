internal import Logging

/// A session's bounds: the screens, the bytes of screens and the attachments it may hold
/// (`daemon.max_session_screens`, `daemon.max_session_ui_bytes`, `daemon.max_session_attachments`; docs/LIMITS.md,
/// *One session's size*); as a set, the ones a session is at. Bits, so that a step's check allocates nothing.
struct SessionBounds: OptionSet, Sendable {
    let rawValue: UInt8

    static let screens = SessionBounds(rawValue: 1 << 0)
    static let uiBytes = SessionBounds(rawValue: 1 << 1)
    static let attachments = SessionBounds(rawValue: 1 << 2)

    /// The drop reason of a step refused because its session is at a bound, and the `ERROR` code of a deep link.
    static let reason = "sessionFull"

    /// The settings of these bounds, as the config file names them.
    var settings: [String] {
        [
            (Self.screens, "daemon.max_session_screens"), (.uiBytes, "daemon.max_session_ui_bytes"),
            (.attachments, "daemon.max_session_attachments"),
        ].filter { contains($0.0) }.map(\.1)
    }
}

extension DaemonCore {
    /// Whether `session` takes steps now: not while it holds `max_session_screens` screens, `max_session_ui_bytes`
    /// bytes of them or `max_session_attachments` attachments. A step may take it past a bound by what that one step
    /// adds; the presenter's reports (a person's dismissals) and the flows' own ends bring it back under.
    mutating func admitsSteps(_ session: Session) -> Bool {
        let (reached, size) = boundsReached(session)
        let full = !reached.isEmpty
        if full != session.full {
            session.full = full
            // Logged when it changes, not for every step refused (those are counted).
            var metadata: Logger.Metadata = [
                "session": "\(session.id)", "screens": "\(size.screens)", "ui_bytes": "\(size.bytes)",
                "attachments": "\(size.attachments)",
            ]
            if full {
                metadata["bounds"] = "\(reached.settings.joined(separator: ","))"
                logger.warning("session at its bounds: its steps are refused (sessionFull)", metadata: metadata)
            } else {
                logger.notice("session under its bounds again: its steps are taken", metadata: metadata)
            }
        }
        return !full
    }

    /// Why a deep link into `session` is refused `sessionFull`: the bounds it is at and what it holds.
    func sessionFullMessage(_ session: Session) -> String {
        let (reached, size) = boundsReached(session)
        return "session '\(session.id)' is at \(reached.settings.joined(separator: ", ")): it holds \(size.screens) "
            + "screens, \(size.bytes) bytes of them as docs/LIMITS.md counts them, and \(size.attachments) attachments"
    }

    /// The bounds `session` is at (none while it takes steps), and what it holds: counts the session keeps, read once.
    private func boundsReached(
        _ session: Session
    ) -> (SessionBounds, size: (screens: Int, bytes: Int, attachments: Int)) {
        let ui = session.uiSize
        let attachments = session.remoteAttachments.count + session.localAttachments.count
        var reached: SessionBounds = []
        if ui.screens >= configuration.maxSessionScreens { reached.insert(.screens) }
        if ui.bytes >= configuration.maxSessionUIBytes { reached.insert(.uiBytes) }
        if attachments >= configuration.maxSessionAttachments { reached.insert(.attachments) }
        return (reached, (ui.screens, ui.bytes, attachments))
    }
}
