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
    /// ``SnapshotFileReader/records()``). The largest takes over the payload's buffer (moved to its start, not copied)
    /// when the others are small beside it (``keepsBuffer(count:capacity:)``). Pass the payload's last use.
    package static func records(in payload: consuming [UInt8]) throws(JournalError) -> [[UInt8]] {
        // Two passes rather than a list of ranges: at 100 000 records that list would be megabytes of garbage.
        var count = 0
        var largest: (index: Int, range: Range<Int>)?
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
            if length > largest?.range.count ?? -1 { largest = (count, offset..<offset + length) }
            count += 1
            offset += length
        }
        let kept = largest.flatMap { keepsBuffer(count: $0.range.count, capacity: payload.capacity) ? $0 : nil }
        var records: [[UInt8]] = []
        records.reserveCapacity(count)
        offset = 0
        while offset < payload.count {
            let length = self.length(at: offset, in: payload)
            offset += 4
            records.append(records.count == kept?.index ? [] : Array(payload[offset..<offset + length]))
            offset += length
        }
        if let kept {
            var bytes = consume payload
            bytes.removeSubrange(kept.range.upperBound...)
            bytes.removeSubrange(..<kept.range.lowerBound)
            records[kept.index] = bytes
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
