internal import Logging

/// A session's bounds: the screens, the bytes of screens and the attachments it may hold
/// (`daemon.max_session_screens`, `daemon.max_session_ui_bytes`, `daemon.max_session_attachments`; docs/LIMITS.md,
/// *One session's size*).
enum SessionBounds {
    /// The drop reason of a step refused because its session is at a bound, and the `ERROR` code of a deep link.
    static let reason = "sessionFull"
}

extension DaemonCore {
    /// Whether `session` takes steps now: not while it holds `max_session_screens` screens, `max_session_ui_bytes`
    /// bytes of them or `max_session_attachments` attachments. A step may take it past a bound by what that one step
    /// adds; the presenter's reports (a person's dismissals) and the flows' own ends bring it back under.
    mutating func admitsSteps(_ session: Session) -> Bool {
        let reached = boundsReached(session)
        let full = !reached.isEmpty
        if full != session.full {
            session.full = full
            // Logged when it changes, not for every step refused (those are counted).
            var metadata: Logger.Metadata = [
                "session": "\(session.id)", "screens": "\(session.screenCount)", "ui_bytes": "\(session.uiBytes)",
                "attachments": "\(attachmentCount(session))",
            ]
            if full {
                metadata["bounds"] = "\(reached.joined(separator: ","))"
                logger.warning("session at its bounds: its steps are refused (sessionFull)", metadata: metadata)
            } else {
                logger.notice("session under its bounds again: its steps are taken", metadata: metadata)
            }
        }
        return !full
    }

    /// Why a deep link into `session` is refused `sessionFull`: the bounds it is at and what it holds.
    func sessionFullMessage(_ session: Session) -> String {
        "session '\(session.id)' is at \(boundsReached(session).joined(separator: ", ")): it holds "
            + "\(session.screenCount) screens, \(session.uiBytes) bytes of them as docs/LIMITS.md counts them, and "
            + "\(attachmentCount(session)) attachments"
    }

    /// The settings whose bounds `session` is at, none while it takes steps: each a read of a count the session keeps.
    private func boundsReached(_ session: Session) -> [String] {
        var reached: [String] = []
        if session.screenCount >= configuration.maxSessionScreens { reached.append("daemon.max_session_screens") }
        if session.uiBytes >= configuration.maxSessionUIBytes { reached.append("daemon.max_session_ui_bytes") }
        if attachmentCount(session) >= configuration.maxSessionAttachments {
            reached.append("daemon.max_session_attachments")
        }
        return reached
    }

    private func attachmentCount(_ session: Session) -> Int {
        session.remoteAttachments.count + session.localAttachments.count
    }
}
