internal import Logging

/// A session's bounds: the screens and attachments it may hold (`daemon.max_session_screens`,
/// `daemon.max_session_attachments`; docs/LIMITS.md, *One session's size*).
enum SessionBounds {
    /// The drop reason of a step refused because its session is at a bound, and the `ERROR` code of a deep link.
    static let reason = "sessionFull"
}

extension DaemonCore {
    /// Whether `session` takes steps now: not while it holds `max_session_screens` screens or
    /// `max_session_attachments` attachments. A step may take it past a bound by what that one step adds; the
    /// presenter's reports (a person's dismissals) and the flows' own ends bring it back under.
    mutating func admitsSteps(_ session: Session) -> Bool {
        let screens = session.screenCount
        let attachments = session.remoteAttachments.count + session.localAttachments.count
        let full = screens >= configuration.maxSessionScreens || attachments >= configuration.maxSessionAttachments
        if full != session.full {
            session.full = full
            // Logged when it changes, not for every step refused (those are counted).
            let metadata: Logger.Metadata = [
                "session": "\(session.id)", "screens": "\(screens)", "attachments": "\(attachments)",
            ]
            if full {
                logger.warning("session at its bounds: its steps are refused (sessionFull)", metadata: metadata)
            } else {
                logger.notice("session under its bounds again: its steps are taken", metadata: metadata)
            }
        }
        return !full
    }
}
