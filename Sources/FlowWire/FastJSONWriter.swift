import FlowCore

// Hand-written because JSONEncoder/JSONDecoder cost several microseconds a message on a step's round trip
// (docs/PERFORMANCE.md); held to JSONEncoder's exact bytes by FastPathTests, and Codable stays the reference.

/// Something the fast paths leave to `Codable`: doubles, escaped strings, unusual numbers, duplicate keys, any error.
package struct FastPathUnsupported: Error {
    package init() {}
}

/// Writes JSON bodies byte for byte as the codec's `JSONEncoder` does (with `.sortedKeys` and
/// `.withoutEscapingSlashes`). `package`: the daemon's journal writes its hot records with it too.
package struct FastJSONWriter {
    /// Where the bytes are written, the first `count` of it (the rest is spare room, grown by doubling). Bytes are
    /// stored through its pointer: `Array.append(contentsOf:)` is a call of about 90 instructions, ~40 a step.
    private var storage: [UInt8]
    /// How many bytes of `storage` were written.
    package private(set) var count = 0

    // Not `Array(repeating:count:)`: it goes through the standard library's unspecialized allocation, which looks up
    // the array's storage type at run time.
    package init() { storage = Array(repeatElement(0, count: 256)) }

    /// What was written (a copy: ``withBytes(_:)`` and ``takeBytes()`` make none).
    package var bytes: [UInt8] { Array(storage[..<count]) }

    /// Calls `body` with what was written, without copying it.
    package func withBytes<Result, Failure: Error>(
        _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let count = count
        return try storage.withUnsafeBufferPointer { (all) throws(Failure) -> Result in
            try body(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: all[..<count])))
        }
    }

    /// Hands over what was written, without copying it, and empties the writer.
    package mutating func takeBytes() -> [UInt8] {
        var taken: [UInt8] = []
        swap(&taken, &storage)
        taken.removeLast(taken.count - count)
        count = 0
        return taken
    }

    /// Empties the writer for the next body, keeping its buffer: a writer reused a message after another allocates
    /// nothing once its buffer fits the largest.
    package mutating func reset() { count = 0 }

    /// Replaces what was written with `body` (one `JSONEncoder` wrote).
    package mutating func replace(with body: [UInt8]) {
        storage = body
        count = body.count
    }

    @inline(__always)
    private mutating func append(_ byte: UInt8) {
        if count == storage.count { grow(toHold: count + 1) }
        let at = count
        storage.withUnsafeMutableBufferPointer { $0[at] = byte }
        count = at + 1
    }

    @inline(__always)
    private mutating func append(_ source: UnsafeBufferPointer<UInt8>) {
        guard let from = source.baseAddress, !source.isEmpty else { return }
        let end = count + source.count
        if end > storage.count { grow(toHold: end) }
        let at = count
        storage.withUnsafeMutableBufferPointer { ($0.baseAddress! + at).update(from: from, count: source.count) }
        count = end
    }

    @inline(never)
    private mutating func grow(toHold needed: Int) {
        storage.append(contentsOf: repeatElement(0, count: Swift.max(needed, storage.count * 2, 64) - storage.count))
    }

    @inline(__always)
    package mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { literal in
            // Most literals are a few bytes (`{`, `,`, `":`): stored one by one, under one uniqueness check, they cost
            // less than a `memcpy` call.
            guard literal.count <= 3 else { return append(literal) }
            let end = count + literal.count
            if end > storage.count { grow(toHold: end) }
            let at = count
            storage.withUnsafeMutableBufferPointer { all in
                for index in 0..<literal.count { all[at + index] = literal[index] }
            }
            count = end
        }
    }

    /// An object member's `"key":`, after a `,` unless it is the `first`. `key` is written unescaped, so it must need
    /// no escaping in JSON; members are written in call order, so a caller matching `JSONEncoder`'s `.sortedKeys`
    /// calls in that order. Stored under one uniqueness check: the journal's records write six or more keys each.
    package mutating func key(_ key: StaticString, first: Bool) {
        key.withUTF8Buffer { name in
            let start = first ? count : count + 1
            let end = start + name.count + 3
            if end > storage.count { grow(toHold: end) }
            let comma = count
            storage.withUnsafeMutableBufferPointer { all in
                if !first { all[comma] = 0x2C }
                let to = all.baseAddress! + start
                to[0] = 0x22
                if let from = name.baseAddress { (to + 1).update(from: from, count: name.count) }
                to[name.count + 1] = 0x22
                to[name.count + 2] = 0x3A
            }
            count = end
        }
    }

    package mutating func string(_ text: String) {
        // `utf8`'s own storage (a native string's buffer, a small string's bytes on the stack), without the copy and
        // the retain and release of `withUTF8` on a `var`; that way only for a string that has none.
        guard text.utf8.withContiguousStorageIfAvailable({ string(utf8: $0) }) == nil else { return }
        var text = text
        text.withUTF8 { string(utf8: $0) }
    }

    /// A string's UTF-8, quoted and escaped.
    private mutating func string(utf8: UnsafeBufferPointer<UInt8>) {
        guard utf8.contains(where: Self.isEscaped) else {
            // Nothing to escape (nearly every string): stored at once with its quotes, under one uniqueness check.
            let end = count + utf8.count + 2
            if end > storage.count { grow(toHold: end) }
            let at = count
            storage.withUnsafeMutableBufferPointer { all in
                let to = all.baseAddress! + at
                to[0] = 0x22
                if let from = utf8.baseAddress { (to + 1).update(from: from, count: utf8.count) }
                to[utf8.count + 1] = 0x22
            }
            count = end
            return
        }
        append(0x22)
        var start = 0
        for index in 0..<utf8.count {
            let byte = utf8[index]
            guard Self.isEscaped(byte) else { continue }
            append(UnsafeBufferPointer(rebasing: utf8[start..<index]))
            start = index + 1
            append(0x5C)
            switch byte {
            case 0x22: append(0x22)
            case 0x5C: append(0x5C)
            case 0x08: append(0x62)  // \b
            case 0x09: append(0x74)  // \t
            case 0x0A: append(0x6E)  // \n
            case 0x0C: append(0x66)  // \f
            case 0x0D: append(0x72)  // \r
            default:
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                for escaped in [0x75, 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]] { append(escaped) }
            }
        }
        append(UnsafeBufferPointer(rebasing: utf8[start..<utf8.count]))
        append(0x22)
    }

    /// Whether a string's byte is written escaped: a control character, a quote or a backslash.
    @inline(__always)
    private static func isEscaped(_ byte: UInt8) -> Bool { byte < 0x20 || byte == 0x22 || byte == 0x5C }

    package mutating func int(_ value: Int) {
        if value < 0 {
            append(0x2D)
            // -(Int.min) does not fit in an Int; its magnitude does in a UInt64.
            unsigned(UInt64(bitPattern: Int64(value)).magnitudeOfNegative)
        } else {
            unsigned(UInt64(value))
        }
    }

    package mutating func unsigned(_ value: UInt64) {
        if value < 10 {
            append(0x30 + UInt8(value))
            return
        }
        // The digits written from the end of a buffer on the stack, then appended at once: a digit appended at a time
        // and turned around cost about 4 times as many instructions (a 19-digit time stamp is in every step).
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = digits.count
            var rest = value
            while rest > 0 {
                start -= 1
                digits[start] = 0x30 + UInt8(rest % 10)
                rest /= 10
            }
            append(UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    mutating func optionalString(_ text: String?) {
        if let text { string(text) } else { raw("null") }
    }

    mutating func optionalInt(_ value: Int?) {
        if let value { int(value) } else { raw("null") }
    }

    /// A JSON value; doubles are left to `JSONEncoder`, whose number formatting is its own.
    package mutating func value(_ value: JSONValue) throws(FastPathUnsupported) {
        switch value {
        case .null: raw("null")
        case .bool(let flag): flag ? raw("true") : raw("false")
        case .int(let number): int(number)
        case .double: throw FastPathUnsupported()
        case .string(let text): string(text)
        case .array(let values):
            append(0x5B)
            for (index, element) in values.enumerated() {
                if index > 0 { append(0x2C) }
                try self.value(element)
            }
            append(0x5D)
        case .object(let members) where members.count == 1:
            // One member (every accepted step's verdict): no sorted array of keys to make.
            let (key, member) = members.first!
            append(0x7B)
            string(key)
            append(0x3A)
            try self.value(member)
            append(0x7D)
        case .object(let members):
            append(0x7B)
            var first = true
            for key in members.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
                if !first { append(0x2C) }
                first = false
                string(key)
                append(0x3A)
                try self.value(members[key]!)
            }
            append(0x7D)
        }
    }

    package mutating func step(_ step: Step) throws(FastPathUnsupported) {
        raw("{\"name\":")
        string(step.name)
        raw(",\"payload\":")
        try value(step.payload)
        raw("}")
    }

    mutating func screen(_ screen: Screen) throws(FastPathUnsupported) {
        raw("{\"data\":")
        try value(screen.data)
        raw(",\"id\":")
        string(screen.id.rawValue)
        raw(",\"kind\":")
        string(screen.kind.rawValue)
        raw(",\"type\":")
        string(screen.type)
        raw("}")
    }

    mutating func screens(_ screens: [Screen]) throws(FastPathUnsupported) {
        append(0x5B)
        for (index, screen) in screens.enumerated() {
            if index > 0 { append(0x2C) }
            try self.screen(screen)
        }
        append(0x5D)
    }
}

extension UInt64 {
    /// The magnitude of a negative `Int64` given by its bit pattern.
    fileprivate var magnitudeOfNegative: UInt64 { ~self &+ 1 }
}
