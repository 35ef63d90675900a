/// The daemon's sessions by ID, with their IDs kept in sorted order as sessions are created and ended: so `SESSIONS`
/// pages through them without sorting every session per request, and nothing on the step path walks them.
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
    /// Every session's ID, sorted.
    private var sortedIDs = SortedSessionIDs()
    let visits = Visits()

    var count: Int { byID.count }

    subscript(id: String) -> Session? {
        visits.lookups += 1
        return byID[id]
    }

    /// Adds a session (a new ID: a session is created once; ``remove(_:)`` frees its ID).
    mutating func insert(_ session: Session) {
        if byID.updateValue(session, forKey: session.id) == nil { sortedIDs.insert(session.id) }
    }

    /// Removes a session; returns it if it was there.
    mutating func remove(_ id: String) -> Session? {
        guard let session = byID.removeValue(forKey: id) else { return nil }
        sortedIDs.remove(id)
        return session
    }

    /// Every session's ID, sorted (a walk).
    var ids: [String] {
        visits.walks += 1
        return sortedIDs.all
    }

    /// Every session, sorted by ID (a walk).
    var sorted: [Session] { ids.map { byID[$0]! } }

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
