internal import LibC
import SystemPackage

/// Reads a snapshot file that ``JournalFormat/checkSnapshotHeader(_:fileBytes:path:)`` accepts: its payload as one
/// array, or split into its records (``JournalSnapshot``'s framing) as they are read, the payload's CRC checked either
/// way before anything is returned.
struct SnapshotFileReader {
    let file: FileDescriptor
    let path: String
    let header: JournalFormat.SnapshotHeader

    /// Reads and checks the header of the snapshot open as `file`.
    init(_ file: FileDescriptor, path: String) throws(JournalError) {
        self.file = file
        self.path = path
        let fileBytes: Int
        do {
            fileBytes = Int(try file.stat().size)
        } catch {
            throw .io("cannot stat \(path)", error)
        }
        let header = try file.read(from: 0, upTo: JournalFormat.snapshotHeaderSize, path: path)
        self.header = try JournalFormat.checkSnapshotHeader(header, fileBytes: fileBytes, path: path)
    }

    /// The file's size as its header says.
    var fileBytes: Int { JournalFormat.snapshotHeaderSize + header.payloadBytes }

    /// The payload as one array.
    func payload() throws(JournalError) -> [UInt8] {
        let payload = try file.read(from: JournalFormat.snapshotHeaderSize, upTo: header.payloadBytes, path: path)
        guard payload.count == header.payloadBytes else {
            throw JournalFormat.payloadLengthMismatch(UInt64(header.payloadBytes), payload.count, path)
        }
        try check(CRC32C.checksum(payload))
        return payload
    }

    /// The payload's records, each its own array of its size (what ``JournalSnapshot/records(in:)`` gives for the
    /// payload). Small records are copied out of one reused read buffer; a large one is read straight into its
    /// array: no payload-sized buffer, no record moved, so a deep UI's megabyte record costs its own pages only.
    func records() throws(JournalError) -> [[UInt8]] {
        var stream = PayloadStream(
            file: file, path: path, payloadBytes: header.payloadBytes, buffer: min(Self.bufferBytes, header.payloadBytes))
        let (records, framing) = try JournalSnapshot.split(&stream, naming: "\(path): the snapshot's payload")
        if framing != nil { try stream.readToEnd() }  // a damaged length is reported as the CRC's mismatch
        try check(stream.crc.value)
        if let framing { throw framing }
        return records
    }

    /// The read buffer's size: records larger than half of it are read into their own arrays.
    static let bufferBytes = 64 * 1024

    private func check(_ crc: UInt32) throws(JournalError) {
        guard crc == header.payloadCRC else { throw JournalError(.corrupt, "\(path): the payload's CRC does not match") }
    }
}

/// A snapshot's payload read in order through one reused buffer, every byte into the CRC as it is read.
private struct PayloadStream: SnapshotPayloadSource {
    let file: FileDescriptor
    let path: String
    let payloadBytes: Int
    var crc = CRC32C()
    /// The buffer; `bytes[head..<tail]` is read and not yet taken.
    private var bytes: [UInt8]
    private var head = 0
    private var tail = 0
    /// Payload bytes read from the file so far.
    private var read = 0

    init(file: FileDescriptor, path: String, payloadBytes: Int, buffer: Int) {
        self.file = file
        self.path = path
        self.payloadBytes = payloadBytes
        bytes = [UInt8](unsafeUninitializedCapacity: buffer) { $1 = buffer }  // only what was read is ever read
    }

    /// Payload bytes not taken yet (buffered or still in the file).
    var unread: Int { tail - head + payloadBytes - read }

    /// Makes `count` bytes (at most the buffer's size) ready to take; `false` when the payload has fewer left.
    mutating func buffer(_ count: Int) throws(JournalError) -> Bool {
        guard tail - head < count else { return true }
        guard unread >= count else { return false }
        let kept = tail - head
        let from = head
        bytes.withUnsafeMutableBytes { buffer in
            buffer.baseAddress!.copyMemory(from: buffer.baseAddress! + from, byteCount: kept)
        }
        head = 0
        tail = kept
        let more = min(bytes.count - tail, payloadBytes - read)
        let start = tail
        let source = source
        let outcome = bytes.withUnsafeMutableBytes { buffer in
            Result { () throws(JournalError) in
                try source.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[start..<start + more]))
            }
        }
        try outcome.get()
        bytes.withUnsafeBytes { crc.update(UnsafeRawBufferPointer(rebasing: $0[start..<start + more])) }
        read += more
        tail += more
        return true
    }

    /// A little-endian `UInt32` length, made ready by ``buffer(_:)``.
    mutating func takeLength() -> Int {
        defer { head += 4 }
        return JournalSnapshot.length(at: head, in: bytes)
    }

    /// The next `count` bytes (at most ``unread``): a large record is read straight into its own array.
    mutating func take(_ count: Int) throws(JournalError) -> [UInt8] {
        count > SnapshotFileReader.bufferBytes / 2 ? try takeLarge(count) : try takeBuffered(count)
    }

    /// The next `count` bytes (at most the buffer's size, at most ``unread``), copied into an array of their own.
    private mutating func takeBuffered(_ count: Int) throws(JournalError) -> [UInt8] {
        _ = try buffer(count)
        defer { head += count }
        return Array(bytes[head..<head + count])
    }

    /// The next `count` bytes (at most ``unread``): what is buffered, then the rest read straight into the array.
    private mutating func takeLarge(_ count: Int) throws(JournalError) -> [UInt8] {
        let buffered = min(tail - head, count)
        let (source, bytes, head) = (source, bytes, head)
        var failure: JournalError?
        let record = [UInt8](unsafeUninitializedCapacity: count) { record, initialized in
            let target = UnsafeMutableRawBufferPointer(record)
            Self.populate(target)
            bytes.withUnsafeBytes { target.baseAddress!.copyMemory(from: $0.baseAddress! + head, byteCount: buffered) }
            do throws(JournalError) {
                try source.read(into: UnsafeMutableRawBufferPointer(rebasing: target[buffered...]))
                initialized = count
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        record.withUnsafeBytes { crc.update(UnsafeRawBufferPointer(rebasing: $0[buffered...])) }
        read += count - buffered
        self.head += buffered
        return record
    }

    /// Has the kernel make `buffer`'s fresh pages in one call (Linux's `MADV_POPULATE_WRITE`, 5.14 and later; older
    /// kernels refuse it and the read faults them in one by one, as elsewhere).
    private static func populate(_ buffer: UnsafeMutableRawBufferPointer) {
        #if canImport(Glibc)
        guard let base = buffer.baseAddress else { return }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let start = (Int(bitPattern: base) + page - 1) & ~(page - 1)
        let end = (Int(bitPattern: base) + buffer.count) & ~(page - 1)
        guard end > start else { return }
        _ = madvise(UnsafeMutableRawPointer(bitPattern: start), end - start, MADV_POPULATE_WRITE)
        #endif
    }

    /// Reads what is left of the payload, for its CRC only.
    mutating func readToEnd() throws(JournalError) {
        while read < payloadBytes {
            head = tail
            _ = try buffer(min(bytes.count, payloadBytes - read))
        }
    }

    /// Where the next bytes of the payload are read from.
    private var source: Source { Source(file: file, path: path, payloadBytes: payloadBytes, offset: read) }

    private struct Source {
        let file: FileDescriptor
        let path: String
        let payloadBytes: Int
        /// Payload bytes before the ones to read.
        let offset: Int

        /// Reads the payload's next `target.count` bytes into `target`.
        func read(into target: UnsafeMutableRawBufferPointer) throws(JournalError) {
            var done = 0
            while done < target.count {
                let count: Int
                do {
                    count = try file.read(
                        fromAbsoluteOffset: Int64(JournalFormat.snapshotHeaderSize + offset + done),
                        into: UnsafeMutableRawBufferPointer(rebasing: target[done...]))
                } catch {
                    throw .io("cannot read \(path)", error)
                }
                guard count > 0 else {  // the file shrank since its size was read
                    throw JournalFormat.payloadLengthMismatch(UInt64(payloadBytes), offset + done, path)
                }
                done += count
            }
        }
    }
}
