internal import FlowCore
internal import FlowWire
internal import Logging

// Pending sessions: recovered as their `session` or `state` record, made on first use or in the background after start.
extension DaemonCore {
    /// The session with this ID, made first if it is pending: the one way to a session that reads or changes it.
    /// `nil` for no session, and for one whose saved state does not restore (``unrestorableReason(_:)``).
    mutating func session(_ id: String) -> Session? {
        if let session = sessions.made(id) { return session }
        guard let pending = sessions[pending: id] else { return nil }
        do throws(RecoveryError) {
            return try make(pending)
        } catch {
            sessions.markUnrestorable(id, reason: "its saved state does not restore (\(error.message))")
            logger.error(
                "session's saved state does not restore: kept, refused with sessionUnrestorable until ended",
                metadata: ["session": "\(id)", "code": "\(error.code)", "error": "\(error.message)"])
            return nil
        }
    }

    /// Why the session with this ID could not be made from its `state` record; `nil` for any other ID.
    package func unrestorableReason(_ id: String) -> String? { sessions.unrestorableReason(id) }

    /// How many sessions' saved states did not restore (`sessions_unrestorable` in `HEALTH`).
    package var unrestorableSessionCount: Int { sessions.unrestorableCount }

    /// Refuses a request naming a session that is not there: `sessionUnrestorable` for one whose saved state did
    /// not restore, `unknownSession` otherwise.
    mutating func rejectMissingSession(_ id: String, req: UInt64?, type: MessageType, to peer: Peer) {
        if let reason = sessions.unrestorableReason(id) {
            return reject(
                .sessionUnrestorable,
                "session '\(id)' is kept but not served: \(reason); END_SESSION (flowctl end-session \(id)) drops it, "
                    + "and its ID can then be created anew",
                req: req, type: type, to: peer)
        }
        reject(.unknownSession, "no session '\(id)'", req: req, type: type, to: peer)
    }

    /// How many recovered sessions are not made yet (`sessions_pending` in `HEALTH`).
    package var pendingSessionCount: Int { sessions.pendingCount }

    /// How many pending sessions flowd's I/O loop makes per turn (``PendingSession/madePerTurn``).
    package static var pendingSessionsMadePerTurn: Int { PendingSession.madePerTurn }

    /// The bytes of saved states flowd's I/O loop makes pending sessions from per turn at most
    /// (``PendingSession/bytesMadePerTurn``).
    package static var pendingSessionBytesPerTurn: Int { PendingSession.bytesMadePerTurn }

    /// Makes up to `limit` pending sessions, in the order recovery found them, stopping sooner once their saved
    /// states reach `bytes` (at least one is made): the I/O loop's background work after a start, a bounded slice per
    /// turn so steps and operators keep being served. Returns what making them asks (in-daemon steppers to listen to,
    /// adaptations); their waiting attachments are offered to stepper processes (``AttachOffers``).
    package mutating func makePendingSessions(limit: Int, bytes: Int = .max, now: UInt64) -> [DaemonOutput] {
        currentTime = now
        var made = 0
        var read = 0
        while made < limit, read < bytes, let pending = sessions.nextPendingSession() {
            read += pending.savedState?.count ?? 0
            _ = session(pending.id)
            made += 1
        }
        if made > 0, sessions.pendingCount == 0 {
            logger.notice(
                "recovered sessions all made",
                metadata: ["sessions": "\(sessions.count)", "ms_since_start": "\(now - startedAt)"])
        }
        return takeOutputs()
    }

    /// Keeps a session recovery found created, or saved as `savedState` (a `state` record's bytes), as pending:
    /// counted, listed, watched for idleness, not made.
    mutating func keepPending(
        _ id: String, app: String?, savedState: [UInt8]? = nil, numbering: AttachmentNumbering = .compositeLeaves,
        usage: SessionUsage? = nil
    ) {
        let version = app.flatMap { apps[$0] } ?? apps.current
        var pending = PendingSession(
            id: id, application: version?.application ?? application, appVersion: version?.id,
            appVersionUnrecorded: app == nil && version != nil, lastActive: currentTime, savedState: savedState,
            numbering: numbering, usage: usage)
        idleDeadlines.watch(id, lastActive: pending.lastActive, entry: &pending.idleEntry)
        sessions.insert(pending: pending)
        apps.retain(pending.appVersion)
    }

    /// Makes a pending session as recovery makes it (replaying: nothing sent, published or counted): a created one's
    /// root coordinated, a saved one's state read and restored. Then, once recovery is over, asks what recovery asks
    /// for each session at its end (``resumeRecovered(_:)``); a hibernated one takes back what it held
    /// (``wake(_:from:)``).
    ///
    /// - Throws: ``RecoveryError`` (`unreadableRecord`, `unrestorable`) when a saved state does not read or restore;
    ///   the session is then left pending.
    mutating func make(_ pending: PendingSession) throws(RecoveryError) -> Session {
        let session: Session
        if let saved = pending.savedState {
            session = try restoreSaved(saved, of: pending)
        } else {
            session = Session(
                id: pending.id, application: pending.application, appVersion: pending.appVersion,
                outbox: configuration.outboxBounds, holdings: holdings, now: pending.lastActive)
            session.appVersionUnrecorded = pending.appVersionUnrecorded
            session.unchangedSinceCreation = true
        }
        session.idleEntry = pending.idleEntry
        // A hibernated one's record was written now, but the journal on disk may still start it the older way.
        if pending.numbering == .wholeComposites { session.numbering = .wholeComposites }
        sessions.insert(session)
        let recovering = replaying
        let publishes = publishesEvents
        let counted = counters
        let held = outputs
        replaying = true
        publishesEvents = false
        outputs = []
        if pending.savedState == nil { coordinateRoot(of: session) }
        outputs = held
        counters = counted
        publishesEvents = publishes
        replaying = recovering
        watchForHibernation(session, since: currentTime)
        if let hibernation = pending.hibernation {
            wake(session, from: hibernation)
        } else if !recovering {
            resumeRecovered(session)
            session.lastActive = pending.lastActive  // what resuming journals is no activity (idle expiry)
            // Its attachments wait, as a recovered session's do: offered to the stepper processes connected already.
            if !session.remoteAttachments.isEmpty, attachOffersDue == nil, peers.counts[.stepper] != nil {
                attachOffersDue = currentTime
            }
        }
        return session
    }
}

extension DaemonCore {
    /// A pending session's `state` record read in full (its header was read at recovery) and restored.
    private func restoreSaved(_ bytes: [UInt8], of pending: PendingSession) throws(RecoveryError) -> Session {
        let record: JournalRecord
        do throws(JournalRecord.DecodingFailure) {
            record = try log.decode(bytes)
        } catch {
            throw RecoveryError(.unreadableRecord, "session '\(pending.id)''s state record cannot be read: \(error)")
        }
        guard case .state(let state, let app, let numbering, let usage) = record.kind, record.session == pending.id,
            (app.flatMap { apps[$0] } ?? apps.current)?.id == pending.appVersion
        else {
            throw RecoveryError(
                .unreadableRecord, "session '\(pending.id)''s state record reads differently from its header")
        }
        do throws(RestorationError) {
            return try restoredSession(
                pending.id, state: state, app: app, numbering: numbering, usage: usage ?? pending.usage,
                now: pending.lastActive)
        } catch {
            throw RecoveryError(.unrestorable, "session '\(pending.id)' cannot be restored: \(error)")
        }
    }
}
