/// The daemon's sessions by ID, with their IDs kept in sorted order as sessions are created and ended: so `SESSIONS`
/// pages through them without sorting every session per request, and nothing on the step path walks them. A session
/// is made (a ``Session``) or pending (``PendingSession``: recovered, not made yet); ``DaemonCore/session(_:)`` is how
/// the daemon reaches one, making it if it is pending.
///
/// It counts its lookups and its walks over every session (``Visits``): the tests that hold heartbeats, `HELLO`s
/// and lost peers to what a peer holds read them.
///
/// Not `Sendable`: owned by ``DaemonCore`` on the daemon's I/O thread.
struct SessionTable {
    /// How often the table was read: sessions looked up by ID, and walks over all of them.
    final class Visits {
        var lookups = 0
        var walks = 0
    }

    private var byID: [String: Session] = [:]
    /// The session ``made(_:)`` found last: a step's messages (the STEP, then the presenter's ACK) look up the same
    /// session one after the other, and comparing an ID costs less than hashing it. Forgotten as ``byID`` changes.
    private var lastMade: Session?
    private var pendingByID: [String: PendingSession] = [:]
    /// Pending sessions whose `state` record did not restore when they were made, and why: kept (their ID taken,
    /// their record in every snapshot) until an operator ends them (docs/RELIABILITY.md, "Pending sessions").
    private var unrestorableByID: [String: (session: PendingSession, reason: String)] = [:]
    /// The pending sessions' IDs in the order recovery found them, for making them in the background; an ID made or
    /// ended since is skipped when reached.
    private var pendingOrder: [String] = []
    private var nextPending = 0
    /// How many of the pending sessions are hibernated (``PendingSession/hibernation``).
    private(set) var hibernatedCount = 0
    /// Every session's ID (made and pending), sorted.
    private var sortedIDs = SortedSessionIDs()
    let visits = Visits()

    /// Sessions made, pending and unrestorable.
    var count: Int { byID.count + pendingByID.count + unrestorableByID.count }

    /// Sessions recovery found and did not make yet (hibernated ones are counted in ``hibernatedCount``).
    var pendingCount: Int { pendingByID.count - hibernatedCount }

    /// Sessions whose saved state did not restore.
    var unrestorableCount: Int { unrestorableByID.count }

    /// Whether a session (made, pending or unrestorable) has this ID.
    func contains(_ id: String) -> Bool { byID[id] != nil || pendingByID[id] != nil || unrestorableByID[id] != nil }

    /// The made session with this ID (a pending one is made by ``DaemonCore/session(_:)``).
    subscript(made id: String) -> Session? {
        visits.lookups += 1
        return byID[id]
    }

    /// The made session with this ID, as ``subscript(made:)``, remembered for the next call.
    mutating func made(_ id: String) -> Session? {
        if let lastMade, lastMade.id == id {
            visits.lookups += 1
            return lastMade
        }
        lastMade = self[made: id]
        return lastMade
    }

    /// The pending session with this ID.
    subscript(pending id: String) -> PendingSession? { pendingByID[id] }

    /// Adds a session (a new ID: a session is created once; ``remove(_:)`` frees its ID), or the made session of a
    /// pending one.
    mutating func insert(_ session: Session) {
        lastMade = nil
        let pending = pendingByID.removeValue(forKey: session.id)
        let wasPending = pending != nil
        if pending?.hibernation != nil { hibernatedCount -= 1 }
        if byID.updateValue(session, forKey: session.id) == nil, !wasPending { sortedIDs.insert(session.id) }
    }

    /// Why the session with this ID could not be restored; `nil` when it is not unrestorable.
    func unrestorableReason(_ id: String) -> String? { unrestorableByID[id]?.reason }

    /// Turns a pending session whose state did not restore into an unrestorable one.
    mutating func markUnrestorable(_ id: String, reason: String) {
        guard let session = pendingByID.removeValue(forKey: id) else { return }
        if session.hibernation != nil { hibernatedCount -= 1 }
        unrestorableByID[id] = (session, reason)
    }

    /// Turns a made session that recovery cannot replay on into an unrestorable one (no longer made: its records
    /// stay in the journal log, a pending session stands for its ID).
    mutating func markUnrestorable(made session: Session, reason: String) {
        guard byID.removeValue(forKey: session.id) != nil else { return }
        lastMade = nil
        let standIn = PendingSession(
            id: session.id, application: session.application, appVersion: session.appVersion,
            appVersionUnrecorded: session.appVersionUnrecorded, lastActive: session.lastActive,
            idleEntry: session.idleEntry, numbering: session.numbering)
        unrestorableByID[session.id] = (standIn, reason)
    }

    /// Adds a session recovery found only created or saved as data (a new ID).
    mutating func insert(pending session: PendingSession) {
        if pendingByID.updateValue(session, forKey: session.id) == nil { sortedIDs.insert(session.id) }
        pendingOrder.append(session.id)
    }

    /// Turns a made session into the hibernated pending one that stands for it (same ID, so its place in the
    /// sorted IDs stays; not made in the background: it waits for its next use).
    mutating func insert(hibernated session: PendingSession) {
        guard byID.removeValue(forKey: session.id) != nil else { return }
        lastMade = nil
        pendingByID[session.id] = session
        hibernatedCount += 1
    }

    /// Replaces a pending session by a changed copy of it.
    mutating func update(pending session: PendingSession) {
        guard pendingByID[session.id] != nil else { return }
        pendingByID[session.id] = session
    }

    /// The hibernated sessions (a walk over the pending ones, for checks).
    var hibernated: [PendingSession] { pendingByID.values.filter { $0.hibernation != nil } }

    /// The next pending session to make in the background, in the order recovery found them.
    mutating func nextPendingSession() -> PendingSession? {
        while nextPending < pendingOrder.count {
            let id = pendingOrder[nextPending]
            nextPending += 1
            if let pending = pendingByID[id], pending.hibernation == nil { return pending }
        }
        pendingOrder = []
        nextPending = 0
        return nil
    }

    /// Removes a session; returns it if it was there.
    mutating func remove(_ id: String) -> Session? {
        guard let session = byID.removeValue(forKey: id) else { return nil }
        lastMade = nil
        sortedIDs.remove(id)
        return session
    }

    /// Removes a pending or unrestorable session; returns it if it was there.
    mutating func remove(pending id: String) -> PendingSession? {
        if let session = pendingByID.removeValue(forKey: id) {
            if session.hibernation != nil { hibernatedCount -= 1 }
            sortedIDs.remove(id)
            return session
        }
        guard let session = unrestorableByID.removeValue(forKey: id)?.session else { return nil }
        sortedIDs.remove(id)
        return session
    }

    /// Every session's ID (made and pending), sorted (a walk).
    var ids: [String] {
        visits.walks += 1
        return sortedIDs.all
    }

    /// Every made session, sorted by ID (a walk).
    var made: [Session] { ids.compactMap { byID[$0] } }

    /// Every made session, in no order (a walk, without sorting or copying the IDs).
    var madeInNoOrder: Dictionary<String, Session>.Values {
        visits.walks += 1
        return byID.values
    }

    /// Every pending session, hibernated or not yet made after a restart, in no order (a walk).
    var pendingInNoOrder: Dictionary<String, PendingSession>.Values {
        visits.walks += 1
        return pendingByID.values
    }

    /// Up to `limit` IDs after `after` (exclusive) that start with `prefix`, sorted; and whether more follow (not a
    /// walk: a binary search, then the page).
    func ids(after: String?, prefix: String, limit: Int) -> (ids: [String], more: Bool) {
        sortedIDs.ids(after: after, prefix: prefix, limit: limit)
    }
}

extension DaemonCore {
    /// How often the sessions were looked up by ID and walked all together since the daemon started (for the tests
    /// that hold the work of a heartbeat, a `HELLO` or a lost peer to what that peer holds).
    package var sessionVisits: (lookups: Int, walks: Int) { (sessions.visits.lookups, sessions.visits.walks) }
}
