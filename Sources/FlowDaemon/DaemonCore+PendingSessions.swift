internal import FlowCore
internal import Logging

// Pending sessions: recovered as their `session` record, made on first use or in the background after start.
extension DaemonCore {
    /// The session with this ID, made first if it is pending: the one way to a session that reads or changes it.
    mutating func session(_ id: String) -> Session? {
        if let session = sessions[made: id] { return session }
        guard let pending = sessions[pending: id] else { return nil }
        return make(pending)
    }

    /// How many recovered sessions are not made yet (`sessions_pending` in `HEALTH`).
    package var pendingSessionCount: Int { sessions.pendingCount }

    /// How many pending sessions flowd's I/O loop makes per turn (``PendingSession/madePerTurn``).
    package static var pendingSessionsMadePerTurn: Int { PendingSession.madePerTurn }

    /// Makes up to `limit` pending sessions, in the order recovery found them: the I/O loop's background work after a
    /// start, a bounded slice per turn so steps and operators keep being served. Returns what making them asks
    /// (in-daemon steppers to listen to, adaptations); their waiting attachments are offered to stepper processes
    /// (``AttachOffers``).
    package mutating func makePendingSessions(limit: Int, now: UInt64) -> [DaemonOutput] {
        currentTime = now
        var made = 0
        while made < limit, let pending = sessions.nextPendingSession() {
            _ = make(pending)
            made += 1
        }
        if made > 0, sessions.pendingCount == 0 {
            logger.notice(
                "recovered sessions all made",
                metadata: ["sessions": "\(sessions.count)", "ms_since_start": "\(now - startedAt)"])
        }
        return takeOutputs()
    }

    /// Keeps a session recovery found created as pending: counted, listed, watched for idleness, not made.
    mutating func keepPending(_ id: String, app: String?) {
        let version = app.flatMap { apps[$0] } ?? apps.current
        var pending = PendingSession(
            id: id, application: version?.application ?? application, appVersion: version?.id,
            appVersionUnrecorded: app == nil && version != nil, lastActive: currentTime)
        idleDeadlines.watch(id, lastActive: pending.lastActive, entry: &pending.idleEntry)
        sessions.insert(pending: pending)
        apps.retain(pending.appVersion)
    }

    /// Makes a pending session as recovery makes a created one (replaying: nothing sent, published or counted), then,
    /// once recovery is over, asks what recovery asks for each session at its end (``resumeRecovered(_:)``).
    private mutating func make(_ pending: PendingSession) -> Session {
        let session = Session(
            id: pending.id, application: pending.application, appVersion: pending.appVersion,
            outboxLimit: configuration.outboxLimit, holdings: holdings, now: pending.lastActive)
        session.appVersionUnrecorded = pending.appVersionUnrecorded
        session.idleEntry = pending.idleEntry
        sessions.insert(session)
        let recovering = replaying
        let publishes = publishesEvents
        let counted = counters
        let held = outputs
        replaying = true
        publishesEvents = false
        outputs = []
        coordinateRoot(of: session)
        outputs = held
        counters = counted
        publishesEvents = publishes
        replaying = recovering
        if !recovering {
            resumeRecovered(session)
            // Its attachments wait, as a recovered session's do: offered to the stepper processes connected already.
            if !session.remoteAttachments.isEmpty, attachOffersDue == nil, peers.all.contains(where: { $0.role == .stepper }) {
                attachOffersDue = currentTime
            }
        }
        return session
    }
}
