internal import FlowWire

extension StateRecordReader {
    /// Reads past a saved UI model's bytes (`bytes` are the reader's), checking them for what reading them
    /// (``readUI(_:)``) and ``PresentationModel/init(saved:root:)`` refuse, without making the model: no screen, no
    /// string, no dictionary. When it returns, the bytes read into a model later. It asks one thing more than those
    /// do, and throws without it (the caller then reads the model at once): IDs in ASCII, so that IDs compared as
    /// bytes are compared as `String`s are.
    static func checkUI(_ reader: inout FastJSONReader, in bytes: [UInt8]) throws(FastPathUnsupported) {
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
                    try checkScreen(&reader, ids: &ids, references: &references)
                }
            } else if reader.key(key, is: "root") {
                guard !rootRead else { throw FastPathUnsupported() }
                rootRead = true
                if !reader.null() { root = try reader.stringBytes() }
            } else {
                try reader.skipValue(depth: 3)
            }
        }
        guard nodesRead,
            bytes.withUnsafeBufferPointer({ placesEveryScreen(ids: ids, references: references, root: root, in: $0) })
        else { throw FastPathUnsupported() }
    }

    /// One screen as ``readScreen(_:)`` reads it: its ID and the IDs it places (children, master, detail, modal).
    private static func checkScreen(
        _ reader: inout FastJSONReader, ids: inout [Range<Int>], references: inout [Range<Int>]
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
            case 0: ids.append(try reader.stringBytes())
            case 1, 2: if !reader.null() { _ = try reader.stringBytes() }
            case 3: try reader.skipValue(depth: 4)
            case 4:
                if !reader.null() {
                    try reader.array { reader throws(FastPathUnsupported) in references.append(try reader.stringBytes()) }
                }
            case 5: if !reader.null() { _ = try reader.integer() }
            default: if !reader.null() { references.append(try reader.stringBytes()) }
            }
        }
        guard seen & 1 != 0 else { throw FastPathUnsupported() }  // no id
    }

    /// What ``PresentationModel/init(saved:root:)`` checks, on the IDs' bytes: no two screens with one ID, each
    /// reference places an existing screen other than the root, once, and every screen but the root is placed. IDs
    /// are found in an open-addressing table of their positions, hashed from their bytes.
    private static func placesEveryScreen(
        ids: [Range<Int>], references: [Range<Int>], root: Range<Int>?, in bytes: UnsafeBufferPointer<UInt8>
    ) -> Bool {
        var slots = [Int32](repeating: -1, count: max(4, (ids.count * 2 - 1).nextPowerOfTwo))
        let mask = slots.count - 1
        /// The slot holding `id`, or the empty one where it would go; `nil` when `id` is not ASCII.
        func slot(of id: Range<Int>) -> (slot: Int, index: Int?)? {
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a
            var all: UInt8 = 0
            for offset in id {
                let byte = bytes[offset]
                all |= byte
                hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
            }
            guard all < 0x80 else { return nil }
            var slot = Int(truncatingIfNeeded: hash ^ hash >> 29) & mask
            while slots[slot] >= 0 {
                let found = ids[Int(slots[slot])]
                if bytes[found].elementsEqual(bytes[id]) { return (slot, Int(slots[slot])) }
                slot = (slot + 1) & mask
            }
            return (slot, nil)
        }
        for (index, id) in ids.enumerated() {
            guard let found = slot(of: id), found.index == nil else { return false }
            slots[found.slot] = Int32(index)
        }
        guard let root else { return ids.isEmpty }
        guard let rootIndex = slot(of: root)?.index, references.count == ids.count - 1 else { return false }
        var placed = [Bool](repeating: false, count: ids.count)
        for reference in references {
            guard let index = slot(of: reference)?.index, index != rootIndex, !placed[index] else { return false }
            placed[index] = true
        }
        return true
    }
}

extension Int {
    /// The smallest power of two not below this (1 for 0 or less).
    fileprivate var nextPowerOfTwo: Int { self <= 1 ? 1 : 1 << (Int.bitWidth - (self - 1).leadingZeroBitCount) }
}
