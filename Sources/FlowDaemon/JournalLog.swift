/// The daemon's journal, without I/O: the records made and not yet taken by the transport, and every record kept as
/// one snapshot payload (``JournalSnapshot``).
struct JournalLog {
    /// Whether state changes make records; off for a daemon without a state directory.
    let enabled: Bool
    /// Records made since the transport last took them (``take()``).
    private var untaken: [[UInt8]] = []
    /// Every record kept, as a snapshot's payload: one contiguous buffer, so memory stays about the records' own size.
    private(set) var history: [UInt8] = []
    /// How many records ``history`` holds.
    private(set) var count = 0

    init(enabled: Bool) {
        self.enabled = enabled
    }

    /// Every record kept, one array each.
    var records: [[UInt8]] { (try? JournalSnapshot.records(in: history)) ?? [] }

    /// Makes a record of a state change (when ``enabled``): kept, and queued for the transport.
    mutating func append(_ record: JournalRecord) {
        guard enabled else { return }
        let bytes = record.encoded
        untaken.append(bytes)
        keep(bytes)
    }

    /// Keeps a record that is already written (one replayed at recovery): in the history, not for the transport.
    mutating func keep(_ bytes: [UInt8]) {
        JournalSnapshot.append(bytes, to: &history)
        count += 1
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
