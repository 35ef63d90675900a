/// When the I/O thread compacts the journal next, and what it noted of the compaction under way: the turn logic of a
/// sliced compaction (docs/RELIABILITY.md, "Snapshots and compaction"), decided here from what the journal says and
/// carried out by ``DaemonServer/compactIfDue(_:_:core:clock:now:)``, so that it is tested without files
/// (`CompactionScheduleTests`).
///
/// A compaction goes: not started (``next`` says when one may) → *preparing* (saving the changed sessions, a slice a
/// turn) → *running* (the writer writes the snapshot) → not started again. Once every session is saved, the journals
/// switch only when the transport has written every record taken: a record taken but not written would be in the
/// payload and in neither journal.
///
/// Not `Sendable`: a value of the I/O thread's loop.
struct CompactionSchedule {
    /// How long a compaction is put off after an I/O error (a full disk): the journal goes on as it is meanwhile.
    static let putOffMs: UInt64 = 60_000

    /// The earliest time (in the loop's clock) the next compaction may start.
    private(set) var next: UInt64 = 0
    /// The compaction saving the changed sessions, a bounded part a turn, before its snapshot is started.
    private(set) var preparing: Preparing?
    /// The compaction whose snapshot the writer is writing, if one is.
    private(set) var running: Running?

    /// Whether the loop's next turn has work without waiting: sessions left to save. (Once saved, a compaction that
    /// waits for the transport to write its records waits as the transport's retries do.)
    var isSaving: Bool { preparing.map { !$0.preparation.isDone } ?? false }

    struct Preparing {
        var preparation: CompactionPreparation
        /// The I/O thread's part so far, and how many turns it took.
        var ioThreadDuration: Duration = .zero
        var turns = 0
    }

    struct Running {
        let records: Int
        let journalBytesBefore: Int
        let compaction: JournalCompaction
        /// The I/O thread's part: saving the changed sessions, taking the payload, switching journals; over `turns`.
        let ioThreadDuration: Duration
        let turns: Int
        /// The application versions live when it started, and the reloads counted then.
        let liveAppVersions: Set<String>
        let appReloads: Int?
    }

    /// Whether a turn starts a new compaction now: none is under way, the journal `needsCompaction`, has no record
    /// `recordsPending` (taken, not written yet) and a put-off is over.
    func startsCompaction(needsCompaction: Bool, recordsPending: Bool, now: UInt64) -> Bool {
        preparing == nil && running == nil && needsCompaction && !recordsPending && now >= next
    }

    /// A new compaction, its changed sessions noted (``DaemonCore/prepareCompaction()``).
    mutating func start(_ preparation: CompactionPreparation) {
        preparing = Preparing(preparation: preparation)
    }

    /// Notes a turn's slice (``DaemonCore/continueCompaction(_:bytes:)``, `preparation` as it left it) and says
    /// whether the journals switch now: every noted session visited and no record pending. When they do, the
    /// compaction is no longer preparing: ``switched(_:)`` or ``putOff(now:)`` follows.
    mutating func sliceSaved(
        _ preparation: CompactionPreparation, took duration: Duration, recordsPending: Bool
    ) -> Preparing? {
        guard var preparing else { return nil }
        preparing.preparation = preparation
        preparing.turns += 1
        preparing.ioThreadDuration += duration
        guard preparation.isDone, !recordsPending else {
            self.preparing = preparing
            return nil
        }
        self.preparing = nil
        return preparing
    }

    /// The journals switched and the writer writes the snapshot.
    mutating func switched(_ snapshot: Running) {
        running = snapshot
    }

    /// The writer wrote the snapshot: the next compaction may start at once (when the journal needs one). Returns
    /// the snapshot's notes, for the log.
    mutating func written(now: UInt64) -> Running? {
        guard let written = running else { return nil }
        running = nil
        next = now
        return written
    }

    /// A step failed with an I/O error (starting the snapshot, or writing it): nothing is under way, and the next
    /// compaction waits ``putOffMs``.
    mutating func putOff(now: UInt64) {
        preparing = nil
        running = nil
        next = now + Self.putOffMs
    }
}

@available(*, unavailable, message: "a value of the I/O thread's loop")
extension CompactionSchedule: Sendable {}
