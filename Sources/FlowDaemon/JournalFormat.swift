/// The bytes of the journal's files: headers, frames and the snapshot (layout in docs/RELIABILITY.md, "On-disk
/// format"). Pure functions; ``JournalStore`` does the I/O.
enum JournalFormat {
    /// The snapshot's format version.
    static let snapshotVersion: UInt32 = 1
    /// The format version of the journals this flowd writes: 2 adds the length the journal before it had when this
    /// one was started (docs/RELIABILITY.md, "Why no crash mixes generations"). Version 1 journals are still read.
    static let journalVersion: UInt32 = 2
    static let journalMagic = Array("FLOWDJNL".utf8)
    static let snapshotMagic = Array("FLOWDSNP".utf8)
    /// The size of a version 2 journal header, the one this flowd writes.
    static let journalHeaderSize = 32
    /// The size of a version 1 journal header (no previous length).
    static let journalHeaderSizeV1 = 24
    static let snapshotHeaderSize = 36
    static let frameHeaderSize = 8

    static func journalFileName(_ generation: UInt64) -> String { "journal-\(generation)" }

    /// The generation in a `journal-<generation>` file name, `nil` for another name.
    static func journalGeneration(fileName: String) -> UInt64? {
        guard fileName.hasPrefix("journal-") else { return nil }
        let digits = fileName.dropFirst("journal-".count)
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return UInt64(digits)
    }

    /// A version 2 journal header: `previousLength` is the length journal-(`generation` - 1) had when this journal
    /// was started, 0 when none applies (the first journal, or one after a snapshot of its own generation).
    static func journalHeader(generation: UInt64, previousLength: Int) -> [UInt8] {
        var header: [UInt8] = []
        header.reserveCapacity(journalHeaderSize)
        header.append(contentsOf: journalMagic)
        header.appendLittleEndian(journalVersion)
        header.appendLittleEndian(generation)
        header.appendLittleEndian(UInt64(previousLength))
        header.appendLittleEndian(CRC32C.checksum(header))
        return header
    }

    /// A version 1 journal header (what flowd wrote before version 2): read, never written.
    static func journalHeaderV1(generation: UInt64) -> [UInt8] {
        var header: [UInt8] = []
        header.reserveCapacity(journalHeaderSizeV1)
        header.append(contentsOf: journalMagic)
        header.appendLittleEndian(UInt32(1))
        header.appendLittleEndian(generation)
        header.appendLittleEndian(CRC32C.checksum(header))
        return header
    }

    static func snapshotHeader(generation: UInt64, payload: [UInt8]) -> [UInt8] {
        var header: [UInt8] = []
        header.reserveCapacity(snapshotHeaderSize)
        header.append(contentsOf: snapshotMagic)
        header.appendLittleEndian(snapshotVersion)
        header.appendLittleEndian(generation)
        header.appendLittleEndian(UInt64(payload.count))
        var payloadCRC = CRC32C()
        payload.withUnsafeBytes { payloadCRC.update($0) }
        header.appendLittleEndian(payloadCRC.value)
        header.appendLittleEndian(CRC32C.checksum(header))
        return header
    }

    /// Appends `record` to `buffer` as one frame: length, CRC-32C of the length and the record, the record. The CRC
    /// covers the length so that a zero-filled tail does not pass for an empty record.
    static func appendFrame(_ record: [UInt8], to buffer: inout [UInt8]) {
        let length = UInt32(truncatingIfNeeded: record.count)
        var crc = CRC32C()
        crc.update(littleEndian: length)
        record.withUnsafeBytes { crc.update($0) }
        buffer.appendLittleEndian(length)
        buffer.appendLittleEndian(crc.value)
        buffer.append(contentsOf: record)
    }

    /// The records of a journal file's frames from `offset` on, up to the first frame that is torn or does not check.
    struct FrameScan {
        var records: [[UInt8]] = []
        /// The file offset of each record's frame.
        var offsets: [Int] = []
        /// Where the good frames end.
        var validBytes: Int
        /// Why the scan stopped before the end of the file; empty when it did not.
        var reason = ""
        /// Where a frame that checks starts after the one that did not, if one does: then the bad frame is damage,
        /// not a torn tail (docs/RELIABILITY.md, "Torn tail or damage").
        var validFrameAfter: Int?

        /// Whether the scan stopped at a torn tail: what follows the good frames holds no frame that checks.
        var isTornTail: Bool { validFrameAfter == nil }
    }

    static func scanFrames(_ bytes: [UInt8], from offset: Int, maxRecordBytes: Int) -> FrameScan {
        var scan = FrameScan(validBytes: offset)
        bytes.withUnsafeBytes { raw in
            var offset = offset
            defer { scan.validBytes = offset }
            while offset < raw.count {
                switch checkFrame(raw, at: offset, maxRecordBytes: maxRecordBytes) {
                case .valid(let length):
                    let start = offset + frameHeaderSize
                    scan.records.append(Array(UnsafeRawBufferPointer(rebasing: raw[start..<(start + length)])))
                    scan.offsets.append(offset)
                    offset = start + length
                case .invalid(let reason):
                    scan.reason = reason
                    scan.validFrameAfter = ((offset + 1)..<raw.count).first {
                        if case .valid = checkFrame(raw, at: $0, maxRecordBytes: maxRecordBytes) { return true }
                        return false
                    }
                    return
                }
            }
        }
        return scan
    }

    private enum FrameCheck {
        case valid(length: Int)
        case invalid(String)
    }

    /// Whether a whole frame that checks starts at `offset`. Cheap where none does: a length is rarely small enough
    /// to fit in the file, and only then is a CRC computed.
    private static func checkFrame(_ raw: UnsafeRawBufferPointer, at offset: Int, maxRecordBytes: Int) -> FrameCheck {
        guard raw.count - offset >= frameHeaderSize else { return .invalid("torn frame header") }
        let length = Int(raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self).littleEndian)
        let stored = raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self).littleEndian
        guard length <= maxRecordBytes, raw.count - offset - frameHeaderSize >= length else {
            return .invalid("frame length \(length) beyond the end of the file")
        }
        let start = offset + frameHeaderSize
        var crc = CRC32C()
        crc.update(UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + 4)]))
        crc.update(UnsafeRawBufferPointer(rebasing: raw[start..<(start + length)]))
        return crc.value == stored ? .valid(length: length) : .invalid("CRC mismatch")
    }

    /// What a journal file's first bytes say.
    enum HeaderCheck: Equatable {
        /// A valid header of `size` bytes; `previousLength` is what a version 2 header says (`nil`: version 1).
        case valid(size: Int, previousLength: Int?)
        /// No more than a header's bytes and not a valid header: a creation that a crash interrupted before anything
        /// could be appended.
        case interruptedCreation
    }

    static func checkJournalHeader(_ bytes: [UInt8], generation: UInt64, path: String) throws(JournalError) -> HeaderCheck {
        if bytes.count >= journalHeaderSize {
            let header = Array(bytes[0..<journalHeaderSize])
            let previous = Int(truncatingIfNeeded: header.readLittleEndianUInt64(at: 20))
            if previous >= 0, header == journalHeader(generation: generation, previousLength: previous) {
                return .valid(size: journalHeaderSize, previousLength: previous)
            }
        }
        if bytes.count >= journalHeaderSizeV1
            && Array(bytes[0..<journalHeaderSizeV1]) == journalHeaderV1(generation: generation)
        {
            return .valid(size: journalHeaderSizeV1, previousLength: nil)
        }
        if bytes.count <= journalHeaderSize { return .interruptedCreation }
        let fileVersion = bytes.readLittleEndianUInt32(at: 8)
        if Array(bytes[0..<8]) == journalMagic && fileVersion != 1 && fileVersion != journalVersion {
            throw JournalError(
                .incompatible,
                "\(path) has format version \(fileVersion); this flowd reads versions 1 and \(journalVersion)")
        }
        throw JournalError(.corrupt, "\(path) does not start with a valid journal header for generation \(generation)")
    }

    /// What a snapshot's header says, once checked.
    struct SnapshotHeader {
        /// The generation of the journal that applies on top of the snapshot.
        let generation: UInt64
        let payloadBytes: Int
        let payloadCRC: UInt32
    }

    /// Checks a snapshot file's header (its first ``snapshotHeaderSize`` bytes, fewer if it is shorter) against the
    /// file's size; the payload's CRC is checked by whoever reads the payload (``SnapshotFileReader``).
    static func checkSnapshotHeader(_ header: [UInt8], fileBytes: Int, path: String) throws(JournalError) -> SnapshotHeader {
        let headerSize = snapshotHeaderSize
        guard header.count >= headerSize, Array(header[0..<8]) == snapshotMagic else {
            throw JournalError(.corrupt, "\(path) is not a flowd snapshot (\(fileBytes) bytes)")
        }
        let fileVersion = header.readLittleEndianUInt32(at: 8)
        guard fileVersion == snapshotVersion else {
            throw JournalError(
                .incompatible,
                "\(path) has format version \(fileVersion); this flowd reads version \(snapshotVersion)")
        }
        guard CRC32C.checksum(header[0..<(headerSize - 4)]) == header.readLittleEndianUInt32(at: headerSize - 4) else {
            throw JournalError(.corrupt, "\(path): the header's CRC does not match")
        }
        let generation = header.readLittleEndianUInt64(at: 12)
        let length = header.readLittleEndianUInt64(at: 20)
        guard length == UInt64(fileBytes - headerSize) else { throw payloadLengthMismatch(length, fileBytes - headerSize, path) }
        guard generation >= 1 else { throw JournalError(.corrupt, "\(path): generation 0") }
        return SnapshotHeader(
            generation: generation, payloadBytes: Int(length), payloadCRC: header.readLittleEndianUInt32(at: 28))
    }

    /// The error of a snapshot whose payload is not as long as its header says.
    static func payloadLengthMismatch(_ length: UInt64, _ found: Int, _ path: String) -> JournalError {
        JournalError(.corrupt, "\(path): the header says \(length) payload bytes, the file has \(found)")
    }
}

extension [UInt8] {
    fileprivate mutating func appendLittleEndian(_ value: UInt32) {
        append(UInt8(truncatingIfNeeded: value))
        append(UInt8(truncatingIfNeeded: value >> 8))
        append(UInt8(truncatingIfNeeded: value >> 16))
        append(UInt8(truncatingIfNeeded: value >> 24))
    }

    fileprivate mutating func appendLittleEndian(_ value: UInt64) {
        appendLittleEndian(UInt32(truncatingIfNeeded: value))
        appendLittleEndian(UInt32(truncatingIfNeeded: value >> 32))
    }

    fileprivate func readLittleEndianUInt32(at offset: Int) -> UInt32 {
        withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self).littleEndian }
    }

    fileprivate func readLittleEndianUInt64(at offset: Int) -> UInt64 {
        withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt64.self).littleEndian }
    }
}
