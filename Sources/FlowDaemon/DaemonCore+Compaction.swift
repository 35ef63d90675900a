internal import FlowCore
internal import Logging

// Saving the changed sessions as data before a snapshot is written, a bounded part a loop turn
// (docs/RELIABILITY.md, "State snapshots").
extension DaemonCore {
    /// Saves each changed session's live state as data, in place of its history, all at once: what
    /// ``prepareCompaction()`` and ``continueCompaction(_:bytes:)`` do over several turns, for callers that hold no
    /// loop (tests, ``FlowdTesting``).
    @discardableResult
    package mutating func compactJournal() -> JournalCompaction {
        var preparation = prepareCompaction()
        while !continueCompaction(&preparation, bytes: .max) {}
        return preparation.compaction
    }

    /// Notes the sessions with records since their last one, the ones a compaction saves; nothing is saved yet.
    package mutating func prepareCompaction() -> CompactionPreparation {
        guard log.enabled else { return CompactionPreparation(changed: [], unchanged: 0) }
        let changed = log.changedSessions.sorted()
        return CompactionPreparation(changed: changed, unchanged: sessions.count - changed.count)
    }

    /// Saves the next sessions `preparation` noted as data, each in place of its history (the log's, which the next
    /// snapshot is taken from; the journals on disk are untouched until it is), stopping once the `state` records it
    /// encoded reach `bytes` or ``PendingSession/madePerTurn`` sessions were saved (at least one a call): a big
    /// session's state is a megabyte, and saving sixty at once held the I/O loop for seconds. Returns whether every
    /// noted session was visited.
    ///
    /// A session no longer changed when visited is passed over: ended, or saved since (hibernated). One changed
    /// again after it was saved has its `state` record and the records since, as any session between snapshots. A
    /// session whose flows the application cannot restore, or whose tree waits for code (an asynchronous adaptation,
    /// a `.ready` block), keeps its history until a later compaction; those are counted and logged.
    package mutating func continueCompaction(_ preparation: inout CompactionPreparation, bytes: Int) -> Bool {
        var written = 0
        var visited = 0
        while preparation.next < preparation.changed.count, written < bytes, visited < PendingSession.madePerTurn {
            let id = preparation.changed[preparation.next]
            preparation.next += 1
            guard log.changedSessions.contains(id), let session = self.session(id) else { continue }
            visited += 1
            do throws(RestorationError) {
                guard let restoration = session.application.restoration(session: session.id) else {
                    throw RestorationError(.notRestorable, "the application restores no flows")
                }
                let state = try session.save(with: restoration)
                let record = JournalRecord(
                    session: session.id, kind: .state(state, app: session.appVersion, usage: session.knownUsage)
                ).encoded
                written += record.count
                guard !record.isEmpty else { throw RestorationError(.notRestorable, "the state does not encode") }
                log.replace(session.id, with: record)
                session.appVersionUnrecorded = false
                preparation.compaction.saved += 1
            } catch {
                preparation.compaction.keptAsHistory[error.code.rawValue, default: 0] += 1
                counters.sessionsKeptAsHistory[error.code.rawValue, default: 0] += 1
                logger.debug(
                    "session kept as history in the snapshot",
                    metadata: ["session": "\(session.id)", "reason": "\(error)"])
            }
        }
        return preparation.next == preparation.changed.count
    }
}

/// A compaction's saving of the changed sessions, under way: the sessions noted when it started, how far it got, and
/// what it did so far.
package struct CompactionPreparation: Sendable {
    /// The sessions changed when it started, in ID order.
    let changed: [String]
    /// The index in ``changed`` of the next session to visit.
    var next = 0
    package var compaction = JournalCompaction()

    init(changed: [String], unchanged: Int) {
        self.changed = changed
        compaction.unchanged = unchanged
    }

    /// Whether every noted session was visited.
    package var isDone: Bool { next == changed.count }
}
