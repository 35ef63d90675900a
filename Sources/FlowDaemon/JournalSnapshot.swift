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
    /// ``SnapshotFileReader/records()``).
    package static func records(in payload: [UInt8]) throws(JournalError) -> [[UInt8]] {
        var records: [[UInt8]] = []
        var offset = 0
        while offset < payload.count {
            guard payload.count - offset >= 4 else {
                throw JournalError(.corrupt, "the snapshot's payload ends inside a record length")
            }
            let length = self.length(at: offset, in: payload)
            offset += 4
            guard payload.count - offset >= length else {
                throw JournalError(.corrupt, "the snapshot's payload ends inside a record")
            }
            records.append(Array(payload[offset..<offset + length]))
            offset += length
        }
        return records
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

    private static func length(at offset: Int, in payload: [UInt8]) -> Int {
        Int(payload[offset]) | Int(payload[offset + 1]) << 8 | Int(payload[offset + 2]) << 16
            | Int(payload[offset + 3]) << 24
    }
}
