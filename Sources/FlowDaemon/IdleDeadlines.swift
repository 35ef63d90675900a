/// When sessions without a presenter may have been idle long enough to end (`daemon.idle_session_timeout_s`): a heap
/// of deadlines keyed by session ID, at most one entry per session, checked again when due. A tick looks at the due
/// entries only, never at every session; a change to a session only moves its `lastActive` (the entry finds that out
/// when it is due).
///
/// Not `Sendable`: owned by ``DaemonCore`` on the daemon's I/O thread.
struct IdleDeadlines {
    typealias Entry = DeadlineHeap<String>.Entry

    /// The idle time that ends a session, in milliseconds; 0: never.
    let timeoutMs: UInt64
    private var heap = DeadlineHeap<String>()
    private var lastSerial: UInt64 = 0

    init(timeoutMs: UInt64) { self.timeoutMs = timeoutMs }

    /// The earliest deadline, if any.
    var next: UInt64? { heap.next }

    /// How many entries are waiting (at most one per session, plus those of sessions ended since).
    var count: Int { heap.count }

    /// Watches a session that may be idle now (it was created or lost its presenter), unless an entry already
    /// stands for it: that one is due no later than this one would be, since `lastActive` only grows.
    mutating func watch(_ session: Session) {
        watch(session.id, lastActive: session.lastActive, entry: &session.idleEntry)
    }

    /// Watches a session by its ID, idle since `lastActive`; `entry`: the session's entry, set here.
    mutating func watch(_ id: String, lastActive: UInt64, entry: inout UInt64?) {
        guard timeoutMs > 0, entry == nil else { return }
        lastSerial += 1
        entry = lastSerial
        heap.insert(lastActive + timeoutMs, for: id, serial: lastSerial)
    }

    /// The next entry due at `now`, taken out of the heap.
    mutating func popDue(now: UInt64) -> Entry? {
        heap.popFirst(before: now + 1)
    }
}

extension DaemonCore {
    /// Ends the sessions that had no presenter and no journaled change for `daemon.idle_session_timeout_s`, as
    /// `END_SESSION` does (reason `idle`). Not while the journal cannot be written: the end must be journaled.
    mutating func endIdleSessions(now: UInt64) {
        guard journalAvailable else { return }
        while let entry = idleDeadlines.popDue(now: now) {
            if var pending = sessions[pending: entry.key] {
                // Pending: nothing changed it since recovery or hibernation (a change makes it), no presenter hosts it.
                guard pending.idleEntry == entry.serial else { continue }
                if pending.lastActive + idleDeadlines.timeoutMs > now {
                    pending.idleEntry = nil  // it changed before it hibernated: its deadline moved
                    idleDeadlines.watch(pending.id, lastActive: pending.lastActive, entry: &pending.idleEntry)
                    sessions.update(pending: pending)
                    continue
                }
                endSession(pending.id, reason: "idle")
                continue
            }
            guard let session = sessions[made: entry.key], session.idleEntry == entry.serial else { continue }
            session.idleEntry = nil
            // A hosted session is watched again when it loses its presenter (``peerLost(_:reassigning:)``).
            guard session.host == nil else { continue }
            if session.lastActive + idleDeadlines.timeoutMs > now {
                idleDeadlines.watch(session)  // it changed since: its deadline moved
                continue
            }
            endSession(session.id, reason: "idle")
        }
    }

    /// How many idle deadlines are waiting (for tests: at most one per session).
    package var idleDeadlineCount: Int { idleDeadlines.count }
}
