internal import FlowCore
internal import FlowWire
internal import Logging

// Hibernation: a made session idle for `daemon.hibernate_after_s` kept as its saved state only, made again on its
// next use exactly as a recovered one is (docs/RELIABILITY.md, "Hibernation").
extension DaemonCore {
    /// Watches a session without a presenter for hibernation, its deadline counted from `since` (unless an entry
    /// stands for it already: a session hosted again is watched when it loses its presenter).
    mutating func watchForHibernation(_ session: Session, since: UInt64) {
        guard session.host == nil else { return }
        hibernationDeadlines.watch(session.id, lastActive: since, entry: &session.hibernationEntry)
    }

    /// Hibernates the sessions due: no presenter and no journaled change for `daemon.hibernate_after_s`. A tick
    /// looks at the due entries only (``IdleDeadlines``), and hibernates ``hibernatedPerTick`` at most, stopping
    /// sooner once the `state` records it encoded reach ``hibernatedBytesPerTick`` (at least one session a tick; as
    /// many bytes as a turn makes pending sessions from, ``PendingSession/bytesMadePerTurn``):
    /// sessions made together (a restart's, a burst of creations) come due together, and saving them all at once
    /// would hold the I/O loop (docs/RELIABILITY.md, "Hibernation"). The rest stay due, so the next tick comes at once.
    mutating func hibernateIdleSessions(now: UInt64) {
        var hibernated = 0
        var written = 0
        while hibernated < Self.hibernatedPerTick, written < hibernatedBytesPerTick,
            let entry = hibernationDeadlines.popDue(now: now)
        {
            guard let session = sessions[made: entry.key], session.hibernationEntry == entry.serial else { continue }
            session.hibernationEntry = nil
            guard session.host == nil else { continue }  // watched again when it loses its presenter
            if session.lastActive + hibernationDeadlines.timeoutMs > now {
                watchForHibernation(session, since: session.lastActive)  // it changed since: its deadline moved
                continue
            }
            hibernated += 1
            if let reason = hibernate(session, written: &written) {
                counters.sessionsNotHibernated[reason, default: 0] += 1
                logger.debug(
                    "session cannot hibernate: kept made", metadata: ["session": "\(session.id)", "reason": "\(reason)"])
                watchForHibernation(session, since: now)  // what stops it may change
            }
        }
    }

    /// The most sessions one tick hibernates, as many as a turn makes (``PendingSession/madePerTurn``): saving a
    /// stepped demo session costs ~500 µs.
    static let hibernatedPerTick = PendingSession.madePerTurn

    /// Turns a made session into a pending one holding its `state` record (shared with the journal log), its remote
    /// attachments left in the peer index as they are; returns why it cannot, leaving it made. Adds the bytes of the
    /// `state` record it encoded to `written` (none for one kept as the log's record or as created).
    private mutating func hibernate(_ session: Session, written: inout Int) -> String? {
        if let reason = hibernationRefusal(session) { return reason }
        let saved: [UInt8]?
        if !session.appVersionUnrecorded, let record = log.soleRecord(of: session.id), let kept = Self.kept(record) {
            saved = kept  // unchanged since it was created or saved as data: made again from the log's record
        } else if !log.enabled, session.unchangedSinceCreation {
            saved = nil  // without a journal too: made again as it was created
        } else {
            guard let restoration = session.application.restoration(session: session.id) else {
                return RestorationError.Code.notRestorable.rawValue
            }
            let state: SessionState
            do throws(RestorationError) {
                state = try session.save(with: restoration)
            } catch {
                return error.code.rawValue
            }
            let bytes = JournalRecord(
                session: session.id, kind: .state(state, app: session.appVersion, usage: session.knownUsage)
            ).encoded
            written += bytes.count
            guard !bytes.isEmpty else { return "notEncodable" }
            if log.enabled {
                log.replace(session.id, with: bytes)  // what compaction would save: the next snapshot holds it
                session.appVersionUnrecorded = false
                saved = log.soleRecord(of: session.id) ?? bytes
            } else {
                saved = JournalSnapshot.keepsBuffer(count: bytes.count, capacity: bytes.capacity) ? bytes : Array(bytes[...])
            }
        }
        for id in session.localAttachments.sorted() {
            outputs.append(.detachLocal(session: session.id, attachment: id))  // listened to again when made
        }
        let attachments = session.remoteAttachments.keys.sorted().map { id in
            PendingSession.Hibernation.Attachment(
                id: id, kind: session.remoteAttachments[id]!.kind, assignedTo: session.remoteAttachments[id]!.assignedTo)
        }
        let usage = session.knownUsage
        sessions.insert(
            hibernated: PendingSession(
                id: session.id, application: session.application, appVersion: session.appVersion,
                appVersionUnrecorded: session.appVersionUnrecorded, lastActive: session.lastActive,
                idleEntry: session.idleEntry, savedState: saved,
                hibernation: PendingSession.Hibernation(
                    attachments: attachments, summary: usage.map { summary(of: session, usage: $0) }),
                numbering: session.numbering, usage: usage))
        counters.sessionsHibernated += 1
        return nil
    }

    /// What a pending session keeps of a session's sole record: a `state` record's bytes (shared with the log), or
    /// `.some(nil)` for a `session` record (made again as recovery makes one only created); `nil` for any other.
    private static func kept(_ record: [UInt8]) -> [UInt8]?? {
        if StateRecordHeader(record) != nil { return .some(record) }
        guard let decoded = try? JournalRecord(decoding: record) else { return nil }
        switch decoded.kind {
        case .state: return .some(record)
        case .sessionCreated: return .some(nil)
        default: return nil
        }
    }

    /// Why a session cannot be kept as its state record now: what a state record does not hold is in flight.
    private func hibernationRefusal(_ session: Session) -> String? {
        if !session.pendingAdapts.isEmpty { return "adaptPending" }
        if pendingDeepLinks.contains(where: { $0.session == session.id }) { return "deepLinkWaiting" }
        for id in session.localAttachments {
            guard let stepper = session.machine.attachment(id)?.stepper, Self.emitsOnlyWhenAsked(stepper) else {
                return "localStepper"
            }
        }
        if !session.machine.visiblePresentables.isEmpty { return "visible" }
        return nil
    }

    /// Whether an in-daemon stepper emits only as it is attached or handles a `USER_ACTION` (which makes its
    /// session first), never by itself: a hibernated session cannot hear it. A restorable stepper is data by its
    /// contract (made again as attached, its state saved): FlowCore's own and an application's alike.
    private static func emitsOnlyWhenAsked(_ stepper: any Stepper) -> Bool { stepper is any RestorableStepper }

    /// A hibernated session made again: its remote attachments taken back from the peer index with the peers that
    /// hold them (no `ATTACH` again), its in-daemon steppers listened to again.
    mutating func wake(_ session: Session, from hibernation: PendingSession.Hibernation) {
        for attachment in hibernation.attachments {
            guard let peer = attachment.assignedTo else { continue }  // waiting: the index holds it so already
            holdings.attachmentChanged(
                PeerHoldings.AttachmentKey(session: session.id, attachment: attachment.id), kind: attachment.kind,
                from: peer, to: nil, ended: true)
            session.assign(attachment.id, to: peer)
        }
        for id in session.localAttachments.sorted() {
            guard let attachment = session.machine.attachment(id) else { continue }
            outputs.append(.resumeLocal(session: session.id, attachment: attachment))
        }
        counters.sessionsWoken += 1
    }

    /// Ends a hibernated session's remote attachments as ending a made one does: each stepper process holding one
    /// gets a `DETACH` (`sessionEnded`), in attachment order.
    mutating func endHibernated(_ id: String, _ hibernation: PendingSession.Hibernation) {
        for attachment in hibernation.attachments {
            if let stepper = attachment.assignedTo {
                send(.detach(Detach(session: id, attachment: attachment.id.rawValue, reason: "sessionEnded")), to: stepper)
            }
            holdings.attachmentChanged(
                PeerHoldings.AttachmentKey(session: id, attachment: attachment.id), kind: attachment.kind,
                from: attachment.assignedTo, to: nil, ended: true)
        }
    }

    /// How many sessions are hibernated now (`sessions_hibernated.now` in `HEALTH`).
    package var hibernatedSessionCount: Int { sessions.hibernatedCount }

    /// How many hibernation deadlines are waiting (for tests: at most one per made session).
    package var hibernationDeadlineCount: Int { hibernationDeadlines.count }
}
