/// The journal's records on the core's side: those made since the transport last took them, and per session the
/// records a snapshot must hold to rebuild it (its `state` record and what followed, or its whole history when it
/// could not be saved as data).
struct JournalLog {
    /// Whether state changes make records; off for a daemon without a state directory.
    let enabled: Bool
    /// Records made since the transport last took them (``take()``).
    private var untaken: [[UInt8]] = []
    /// The daemon ID's record, as a snapshot starts with it.
    private var daemonRecord: [UInt8]?
    /// Each live session's records: its creation or state record, then the ones after it framed as in a snapshot's
    /// payload, in one contiguous buffer.
    private var sessions: [String: SessionRecords] = [:]
    /// The session a record was last added to, and where ``sessions`` holds it: a session's records mostly follow
    /// one another, and comparing an ID costs less than hashing it. Forgotten as ``sessions`` gains or loses an ID.
    private var lastAdded: (session: String, index: [String: SessionRecords].Index)?
    /// How many records ``sessions`` and ``daemonRecord`` hold.
    private(set) var count = 0
    /// Whether records were dropped (a session ended or saved as data) that STEP de-duplication windows were built
    /// from: a snapshot must then hold the windows themselves.
    private(set) var droppedStepRecords = false
    /// The sessions a compaction has to look at: more than one record, or marked (``markChanged(_:)``). The others
    /// are one record already, copied into the next snapshot as they are, so a compaction costs what changed.
    private(set) var changedSessions: Set<String> = []

    private struct SessionRecords {
        /// The session's creation or state record, unframed: the caller's bytes, shared rather than copied (a deep
        /// UI's state record is a megabyte, read at a restart) unless they hold much spare capacity.
        var first: [UInt8]?
        /// The records after ``first``, framed.
        var rest: [UInt8] = []
        var count = 0

        /// Adds a record after ``first``; returns whether it is the first such (the session has changed since).
        mutating func add(_ record: [UInt8]) -> Bool {
            let firstAfter = rest.isEmpty
            JournalSnapshot.append(record, to: &rest)
            count += 1
            return firstAfter
        }

        /// The bytes these records take in a snapshot's payload.
        var framedCount: Int { (first.map { 4 + $0.count } ?? 0) + rest.count }

        func append(to payload: inout [UInt8]) {
            if let first { JournalSnapshot.append(first, to: &payload) }
            payload += rest
        }
    }

    init(enabled: Bool) {
        self.enabled = enabled
    }

    /// Whether the log holds nothing yet: a new state.
    var isEmpty: Bool { daemonRecord == nil && sessions.isEmpty }

    /// Makes a record of a state change (when ``enabled``): kept, and queued for the transport.
    mutating func append(_ record: JournalRecord) {
        guard enabled else { return }
        let bytes = record.encoded
        untaken.append(bytes)
        keep(bytes, of: record)
    }

    /// Keeps a record: one made now, or one replayed at recovery (already written, not for the transport).
    mutating func keep(_ bytes: [UInt8], of record: JournalRecord) {
        guard enabled else { return }
        switch record.kind {
        case .daemon(let id, _):
            // A snapshot names the daemon ID alone: what it replaced matters only to the journal that recorded it.
            if daemonRecord == nil { count += 1 }
            daemonRecord = JournalRecord.daemon(id).encoded
        case .sessionEnded:
            lastAdded = nil
            count -= sessions.removeValue(forKey: record.session)?.count ?? 0
            changedSessions.remove(record.session)
            droppedStepRecords = true
        case .sessionCreated, .state:
            replace(record.session, with: bytes)
        case .stepWindows:
            droppedStepRecords = true  // every snapshot writes the live windows anew (``payload(trailer:)``)
        case .input, .report, .snapshotAdopted, .compositeLeaves:
            // The set hears of the session once, as its records start to follow its first.
            if sessions.values[index(of: record.session)].add(bytes) { changedSessions.insert(record.session) }
            count += 1
        }
    }

    /// Where ``sessions`` holds a session's records, added empty if it holds none.
    private mutating func index(of session: String) -> [String: SessionRecords].Index {
        if let lastAdded, lastAdded.session == session { return lastAdded.index }
        let index: [String: SessionRecords].Index
        if let found = sessions.index(forKey: session) {
            index = found
        } else {
            sessions[session] = SessionRecords()
            index = sessions.index(forKey: session)!
        }
        lastAdded = (session, index)
        return index
    }

    /// Has the next compaction look at a session even with nothing recorded since its last record (a session whose
    /// records do not name its application version yet).
    mutating func markChanged(_ session: String) {
        guard enabled, sessions[session] != nil else { return }
        changedSessions.insert(session)
    }

    /// The session's record when it is the only one the log holds for it (nothing changed it since it was created
    /// or saved as data): its `session` or `state` record, the log's own bytes.
    func soleRecord(of session: String) -> [UInt8]? {
        guard enabled, let records = sessions[session], records.rest.isEmpty else { return nil }
        return records.first
    }

    /// Replaces a session's records by one: its creation, or its state as data.
    mutating func replace(_ session: String, with bytes: [UInt8]) {
        if let replaced = sessions[session]?.count, replaced > 1 { droppedStepRecords = true }
        count -= sessions[session]?.count ?? 0
        var records = SessionRecords()
        records.first = JournalSnapshot.keepsBuffer(count: bytes.count, capacity: bytes.capacity) ? bytes : Array(bytes[...])
        records.count = 1
        lastAdded = nil
        sessions[session] = records
        count += 1
        changedSessions.remove(session)
    }

    /// A snapshot's payload: the daemon record, each session's records (sessions in ID order), then `trailer` (the
    /// STEP de-duplication windows, which follow the records they would otherwise be rebuilt from).
    ///
    /// `sortedIDs`: the live sessions' IDs in order, as the session table keeps them, which spares sorting them here
    /// (at 100 000 sessions most of a compaction's work, docs/PERFORMANCE.md); sorted here if they are not the IDs
    /// this log holds.
    func payload(sortedIDs: [String], trailer: [UInt8]?) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(sessions.values.reduce(64) { $0 + $1.framedCount } + (trailer?.count ?? 0))
        if let daemonRecord { JournalSnapshot.append(daemonRecord, to: &bytes) }
        let start = bytes.count
        var copied = 0
        var previous: String?
        for session in sortedIDs {
            guard let records = sessions[session], previous.map({ $0 < session }) ?? true else { break }
            records.append(to: &bytes)
            copied += 1
            previous = session
        }
        if copied != sessions.count {
            bytes.removeSubrange(start...)
            for session in sessions.keys.sorted() { sessions[session]!.append(to: &bytes) }
        }
        if let trailer { JournalSnapshot.append(trailer, to: &bytes) }
        return bytes
    }

    /// Reads one record.
    func decode(_ bytes: [UInt8]) throws(JournalRecord.DecodingFailure) -> JournalRecord {
        try JournalRecord(decoding: bytes)
    }

    /// Takes the records made since the last call, in order.
    mutating func take() -> [[UInt8]] {
        defer { untaken = [] }
        return untaken
    }
}
