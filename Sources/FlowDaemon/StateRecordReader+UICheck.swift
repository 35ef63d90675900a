internal import FlowWire

extension StateRecordReader {
    /// Reads past a saved UI model's bytes (`bytes` are the reader's), checking them for what reading them
    /// (``readUI(_:)``) and ``PresentationModel/init(saved:root:)`` refuse, without making the model: no screen, no
    /// string, no dictionary. When it returns, the bytes read into a model later. It asks one thing more than those
    /// do, and throws without it (the caller then reads the model at once): IDs in ASCII, so that IDs compared as
    /// bytes are compared as `String`s are.
    static func checkUI(_ reader: inout FastJSONReader, in bytes: [UInt8]) throws(FastPathUnsupported) {
        try bytes.withUnsafeBufferPointer { bytes throws(FastPathUnsupported) in try checkUI(&reader, in: bytes) }
    }

    private static func checkUI(
        _ reader: inout FastJSONReader, in bytes: UnsafeBufferPointer<UInt8>
    ) throws(FastPathUnsupported) {
        var ids: [Range<Int>] = []
        var references: [Range<Int>] = []
        var root: Range<Int>?
        var nodesRead = false
        var rootRead = false
        try reader.object { reader, key throws(FastPathUnsupported) in
            if reader.key(key, is: "nodes") {
                guard !nodesRead else { throw FastPathUnsupported() }
                nodesRead = true
                try reader.array { reader throws(FastPathUnsupported) in
                    try checkScreen(&reader, in: bytes, ids: &ids, references: &references)
                }
            } else if reader.key(key, is: "root") {
                guard !rootRead else { throw FastPathUnsupported() }
                rootRead = true
                if !reader.null() { root = try idBytes(&reader, in: bytes) }
            } else {
                try reader.skipValue(depth: 3)
            }
        }
        guard nodesRead, placesEveryScreen(ids: ids, references: references, root: root, in: bytes) else {
            throw FastPathUnsupported()
        }
    }

    /// One screen as ``readScreen(_:)`` reads it: its ID and the IDs it places (children, master, detail, modal).
    private static func checkScreen(
        _ reader: inout FastJSONReader, in bytes: UnsafeBufferPointer<UInt8>, ids: inout [Range<Int>],
        references: inout [Range<Int>]
    ) throws(FastPathUnsupported) {
        var seen = 0  // a bit per field of ``screenFields``
        try reader.object { reader, key throws(FastPathUnsupported) in
            guard let field = screenFields.firstIndex(where: { reader.key(key, is: $0) }) else {
                if reader.key(key, is: "node") { throw FastPathUnsupported() }  // the first format
                try reader.skipValue(depth: 4)
                return
            }
            guard seen & 1 << field == 0 else { throw FastPathUnsupported() }
            seen |= 1 << field
            switch field {
            case 0: ids.append(try idBytes(&reader, in: bytes))
            case 1, 2: if !reader.null() { _ = try idBytes(&reader, in: bytes) }
            case 3: try reader.skipValue(depth: 4)
            case 4:
                if !reader.null() {
                    try reader.array { reader throws(FastPathUnsupported) in references.append(try idBytes(&reader, in: bytes)) }
                }
            case 5: if !reader.null() { _ = try reader.integer() }
            default: if !reader.null() { references.append(try idBytes(&reader, in: bytes)) }
            }
        }
        guard seen & 1 != 0 else { throw FastPathUnsupported() }  // no id
    }

    /// A string's text as ``FastJSONReader/stringBytes()`` reads it (`bytes` are the reader's), scanned eight bytes at
    /// a time while they are ASCII with no escape and no control character (a deep UI's IDs: most of its bytes); any
    /// other string is left to the reader from its start.
    private static func idBytes(
        _ reader: inout FastJSONReader, in bytes: UnsafeBufferPointer<UInt8>
    ) throws(FastPathUnsupported) -> Range<Int> {
        let quote = reader.offset
        guard quote < bytes.count, bytes[quote] == 0x22, let base = bytes.baseAddress else {
            return try reader.stringBytes()
        }
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        var index = quote + 1
        while index + 8 <= bytes.count {
            let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
            let quotes = word ^ (ones &* 0x22)
            let backslashes = word ^ (ones &* 0x5C)
            // A byte set in `special` is a quote, a backslash, a control character or not ASCII.
            let special =
                ((quotes &- ones) & ~quotes) | ((backslashes &- ones) & ~backslashes) | ((word &- ones &* 0x20) & ~word)
                | word
            guard special & highs == 0 else { break }
            index += 8
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x22 {
                reader.offset = index + 1
                return quote + 1..<index
            }
            guard byte >= 0x20, byte != 0x5C, byte < 0x80 else { break }
            index += 1
        }
        return try reader.stringBytes()  // not ASCII, an escape, or no end: the reader's verdict
    }

    /// What ``PresentationModel/init(saved:root:)`` checks, on the IDs' bytes: no two screens with one ID, each
    /// reference places an existing screen other than the root, once, and every screen but the root is placed.
    private static func placesEveryScreen(
        ids: [Range<Int>], references: [Range<Int>], root: Range<Int>?, in bytes: UnsafeBufferPointer<UInt8>
    ) -> Bool {
        guard let root else { return ids.isEmpty }
        guard references.count == ids.count - 1, let base = bytes.baseAddress else { return false }
        var slots = [Int32](repeating: -1, count: max(4, (ids.count * 2 - 1).nextPowerOfTwo))
        var placed = [Bool](repeating: false, count: ids.count)
        return ids.withUnsafeBufferPointer { ids in
            slots.withUnsafeMutableBufferPointer { slots in
                placed.withUnsafeMutableBufferPointer { placed in
                    let table = IDTable(bytes: UnsafeRawPointer(base), ids: ids, slots: slots)
                    for index in ids.indices {
                        guard let found = table.slot(of: ids[index]), found.index == nil else { return false }
                        table.slots[found.slot] = Int32(index)
                    }
                    guard let rootIndex = table.slot(of: root)?.index else { return false }
                    for reference in references {
                        guard let index = table.slot(of: reference)?.index, index != rootIndex, !placed[index] else {
                            return false
                        }
                        placed[index] = true
                    }
                    return true
                }
            }
        }
    }
}

/// The screens' IDs by their bytes: an open-addressing table of their indices, hashed eight bytes at a time.
private struct IDTable {
    let bytes: UnsafeRawPointer
    let ids: UnsafeBufferPointer<Range<Int>>
    let slots: UnsafeMutableBufferPointer<Int32>
    /// A hash's top bits pick the slot: they depend on every byte.
    let shift: UInt64

    init(bytes: UnsafeRawPointer, ids: UnsafeBufferPointer<Range<Int>>, slots: UnsafeMutableBufferPointer<Int32>) {
        self.bytes = bytes
        self.ids = ids
        self.slots = slots
        shift = UInt64(64 - slots.count.trailingZeroBitCount)
    }

    /// The slot holding `id`, or the empty one where it would go; `nil` when `id` is not ASCII.
    func slot(of id: Range<Int>) -> (slot: Int, index: Int?)? {
        let start = bytes + id.lowerBound
        let count = id.count
        var hash = UInt64(truncatingIfNeeded: count) &* 0x9E37_79B9_7F4A_7C15
        var all: UInt64 = 0
        var offset = 0
        while offset + 8 <= count {
            let word = start.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            all |= word
            hash = ((hash << 5 | hash >> 59) ^ word) &* 0x517C_C1B7_2722_0A95
            offset += 8
        }
        var tail: UInt64 = 0
        while offset < count {
            tail = tail << 8 | UInt64(start.load(fromByteOffset: offset, as: UInt8.self))
            offset += 1
        }
        all |= tail
        hash = ((hash << 5 | hash >> 59) ^ tail) &* 0x517C_C1B7_2722_0A95
        guard all & 0x8080_8080_8080_8080 == 0 else { return nil }
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash >> shift) & mask
        while slots[slot] >= 0 {
            let index = Int(slots[slot])
            if sameBytes(ids[index], id) { return (slot, index) }
            slot = (slot + 1) & mask
        }
        return (slot, nil)
    }

    private func sameBytes(_ a: Range<Int>, _ b: Range<Int>) -> Bool {
        let count = a.count
        guard count == b.count else { return false }
        let left = bytes + a.lowerBound
        let right = bytes + b.lowerBound
        var offset = 0
        while offset + 8 <= count {
            guard left.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                == right.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            else { return false }
            offset += 8
        }
        while offset < count {
            guard left.load(fromByteOffset: offset, as: UInt8.self) == right.load(fromByteOffset: offset, as: UInt8.self)
            else { return false }
            offset += 1
        }
        return true
    }
}

extension Int {
    /// The smallest power of two not below this (1 for 0 or less).
    fileprivate var nextPowerOfTwo: Int { self <= 1 ? 1 : 1 << (Int.bitWidth - (self - 1).leadingZeroBitCount) }
}
