/// A snapshot's payload: the records the state needs (``DaemonCore/journalHistory``), each as a little-endian
/// `UInt32` length and its bytes. The ``JournalStore`` checksums the payload as a whole.
package enum JournalSnapshot {
    static func payload(_ records: [[UInt8]]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(records.reduce(0) { $0 + 4 + $1.count })
        for record in records { append(record, to: &bytes) }
        return bytes
    }

    /// Appends one record to a payload.
    static func append(_ record: [UInt8], to payload: inout [UInt8]) {
        let length = UInt32(record.count)
        payload.append(UInt8(length & 0xff))
        payload.append(UInt8(length >> 8 & 0xff))
        payload.append(UInt8(length >> 16 & 0xff))
        payload.append(UInt8(length >> 24))
        payload.append(contentsOf: record)
    }

    /// The records of a payload in memory, each its own array (a restart reads them from the file with
    /// ``SnapshotFileReader/records()``, through the same ``split(_:naming:)``).
    package static func records(in payload: [UInt8]) throws(JournalError) -> [[UInt8]] {
        var source = PayloadInMemory(bytes: payload)
        let (records, framing) = try split(&source, naming: "the snapshot's payload")
        if let framing { throw framing }
        return records
    }

    /// Splits the payload `source` holds into its records, up to the first that its framing cuts short: that
    /// `.corrupt` error (its message starting with `payload`) is returned beside the records before it rather than
    /// thrown, so that a file's reader can check the payload's CRC first; a thrown error is the source's own.
    static func split(
        _ source: inout some SnapshotPayloadSource, naming payload: String
    ) throws(JournalError) -> (records: [[UInt8]], framing: JournalError?) {
        var records: [[UInt8]] = []
        while source.unread > 0 {
            guard try source.buffer(4) else {
                return (records, JournalError(.corrupt, "\(payload) ends inside a record length"))
            }
            let length = source.takeLength()
            guard length <= source.unread else {
                return (records, JournalError(.corrupt, "\(payload) ends inside a record"))
            }
            records.append(try source.take(length))
        }
        return (records, nil)
    }

    /// Whether a record of `count` bytes is kept in a buffer of `capacity` bytes as it is, rather than copied into one
    /// of its size: when the spare room is at most a sixteenth of it.
    static func keepsBuffer(count: Int, capacity: Int) -> Bool {
        capacity - count <= count / 16
    }

    /// Where record `index`'s length starts in the payload `records` were read from; for error messages.
    static func offset(ofRecord index: Int, in records: [[UInt8]]) -> Int {
        records.prefix(index).reduce(0) { $0 + 4 + $1.count }
    }

    /// The little-endian `UInt32` record length at `offset`.
    static func length(at offset: Int, in payload: [UInt8]) -> Int {
        Int(payload[offset]) | Int(payload[offset + 1]) << 8 | Int(payload[offset + 2]) << 16
            | Int(payload[offset + 3]) << 24
    }
}

/// A snapshot's payload as ``JournalSnapshot/split(_:naming:)`` reads it, in order: in memory, or from a snapshot
/// file as it is read (``SnapshotFileReader``).
protocol SnapshotPayloadSource {
    /// Payload bytes not taken yet.
    var unread: Int { get }
    /// Makes the next `count` bytes (at most 4) ready to take; `false` when the payload has fewer left.
    mutating func buffer(_ count: Int) throws(JournalError) -> Bool
    /// A record's length, made ready by ``buffer(_:)``.
    mutating func takeLength() -> Int
    /// The next `count` bytes (at most ``unread``) as an array of their own.
    mutating func take(_ count: Int) throws(JournalError) -> [UInt8]
}

/// A payload held in memory whole.
private struct PayloadInMemory: SnapshotPayloadSource {
    let bytes: [UInt8]
    var offset = 0

    var unread: Int { bytes.count - offset }

    func buffer(_ count: Int) -> Bool { unread >= count }

    mutating func takeLength() -> Int {
        defer { offset += 4 }
        return JournalSnapshot.length(at: offset, in: bytes)
    }

    mutating func take(_ count: Int) -> [UInt8] {
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }
}
