import FlowCore

/// Reads the JSON bodies of the messages of a step's round trip (`STEP`, `ACK`, `COMMAND`, `OK`), accepting only
/// what it is sure `JSONDecoder` reads the same way; anything else (an escape in a string, a number that is not a
/// plain integer, a duplicate key, any error) is left to `JSONDecoder`, which also words the errors.
package struct FastJSONReader {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// A whole JSON text as a value (duplicate keys, doubles, escapes and nesting past 64 are not covered), or `nil`
    /// to use `JSONDecoder`. `package`: the daemon reads its journal's records with it.
    package static func value(_ text: [UInt8]) -> JSONValue? {
        read(text) { reader throws(FastPathUnsupported) in try reader.value(depth: 0) }
    }

    /// `body` read whole by `read`, or `nil` to use `JSONDecoder`.
    package static func read<Value>(
        _ body: [UInt8], _ read: (inout FastJSONReader) throws(FastPathUnsupported) -> Value
    ) -> Value? {
        body.withUnsafeBufferPointer { whole($0, read) }
    }

    /// `body` (a part of a larger text, such as a value kept as its bytes) read whole by `read`, or `nil`.
    package static func read<Value>(
        _ body: ArraySlice<UInt8>, _ read: (inout FastJSONReader) throws(FastPathUnsupported) -> Value
    ) -> Value? {
        body.withUnsafeBufferPointer { whole($0, read) }
    }

    /// `buffer` read by `read` with nothing but whitespace after, or `nil`.
    @inline(__always)
    private static func whole<Value>(
        _ buffer: UnsafeBufferPointer<UInt8>, _ read: (inout FastJSONReader) throws(FastPathUnsupported) -> Value
    ) -> Value? {
        var reader = FastJSONReader(buffer)
        do throws(FastPathUnsupported) {
            let value = try read(&reader)
            reader.skipWhitespace()
            return reader.index == buffer.count ? value : nil
        } catch {
            return nil
        }
    }

    /// Where the reader is in its bytes: a reader that keeps a value as its bytes takes the range it read, and one
    /// that tried a value one way sets it back to read it another.
    package var offset: Int {
        get { index }
        set { index = newValue }
    }

    /// `{"name": …, "payload": …}`; a missing payload is `null`.
    mutating func step() throws(FastPathUnsupported) -> Step {
        var name: String?
        var payload: JSONValue?
        try fields(["name", "payload"], depth: 2) { reader, field throws(FastPathUnsupported) in
            if field == 0 { name = try reader.string() } else { payload = try reader.value(depth: 2) }
        }
        guard let name else { throw FastPathUnsupported() }
        return Step(name, payload: payload ?? .null)
    }

    /// Reads an object of known fields: a member whose key is `keys[i]` goes to `field` with `i`, once (a key seen
    /// twice gives up); any other member is read at `depth` and ignored. At most 64 keys.
    ///
    /// The key after the last one read is tried first, on the bytes in place: writers in sorted order (ours,
    /// `JSONEncoder`'s `.sortedKeys`) give it next when `keys` are sorted. Inlined, so that each message's `field`
    /// is inlined into its loop.
    @inline(__always)
    package mutating func fields(
        _ keys: [StaticString], depth: Int,
        _ field: (inout FastJSONReader, Int) throws(FastPathUnsupported) -> Void
    ) throws(FastPathUnsupported) {
        var seen: UInt64 = 0
        var next = 0
        try elements(open: 0x7B, close: 0x7D) { reader throws(FastPathUnsupported) in
            let known: Int?
            if next < keys.count, reader.readKey(keys[next]) {
                known = next
            } else {
                let key = try reader.memberKey()
                known = keys.firstIndex(where: { reader.key(key, is: $0) })
            }
            try reader.colon()
            guard let index = known else {
                _ = try reader.value(depth: depth)
                return
            }
            guard seen & (1 << index) == 0 else { throw FastPathUnsupported() }
            seen |= 1 << index
            next = index + 1
            try field(&reader, index)
        }
    }

    /// Reads an object, calling `member` with the reader on each member's value and the key's bytes.
    package mutating func object(
        _ member: (inout FastJSONReader, Range<Int>) throws(FastPathUnsupported) -> Void
    ) throws(FastPathUnsupported) {
        try elements(open: 0x7B, close: 0x7D) { reader throws(FastPathUnsupported) in
            let key = try reader.memberKey()
            try reader.colon()
            try member(&reader, key)
        }
    }

    /// A member's key, quotes read, as the range of its text: no escape and no control character, valid UTF-8 (an
    /// unknown field's key too: §2 reads the whole body as JSON).
    private mutating func memberKey() throws(FastPathUnsupported) -> Range<Int> {
        try expect(0x22)
        let start = index
        var ascii = true
        while index < bytes.count, bytes[index] != 0x22 {
            guard bytes[index] >= 0x20, bytes[index] != 0x5C else { throw FastPathUnsupported() }
            if bytes[index] >= 0x80 { ascii = false }
            index += 1
        }
        let key = start..<index
        try expect(0x22)
        if !ascii { _ = try text(key) }
        return key
    }

    /// Reads `"name"` if it comes next, as ``memberKey()`` would read it; leaves the reader where it was if not.
    @inline(__always)
    private mutating func readKey(_ name: StaticString) -> Bool {
        let end = index + name.utf8CodeUnitCount + 1
        guard end < bytes.count, bytes[index] == 0x22, bytes[end] == 0x22, bytes.holds(name, at: index + 1) else {
            return false
        }
        index = end + 1
        return true
    }

    /// Reads `text` if the bytes at the reader are exactly it; leaves the reader where it was if not.
    package mutating func read(verbatim text: StaticString) -> Bool {
        guard bytes.holds(text, at: index) else { return false }
        index += text.utf8CodeUnitCount
        return true
    }

    /// The `:` after a member's key, and the whitespace around it.
    @inline(__always)
    private mutating func colon() throws(FastPathUnsupported) {
        skipWhitespace()
        try expect(0x3A)
        skipWhitespace()
    }

    /// Reads an array, calling `element` with the reader on each element.
    package mutating func array(
        _ element: (inout FastJSONReader) throws(FastPathUnsupported) -> Void
    ) throws(FastPathUnsupported) {
        try elements(open: 0x5B, close: 0x5D, element)
    }

    /// `open`, then `element` read after the whitespace before each, separated by commas, up to `close`.
    @inline(__always)
    private mutating func elements(
        open: UInt8, close: UInt8, _ element: (inout FastJSONReader) throws(FastPathUnsupported) -> Void
    ) throws(FastPathUnsupported) {
        skipWhitespace()
        try expect(open)
        if closesAtOnce(close) { return }
        repeat {
            skipWhitespace()
            try element(&self)
        } while try another(closedBy: close)
    }

    /// Whether the object or array just opened closes at once (`{}`, `[]`); the closing byte is read if so.
    private mutating func closesAtOnce(_ close: UInt8) -> Bool {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == close else { return false }
        index += 1
        return true
    }

    /// After a member or an element: `true` after a comma (another follows), `false` after `close` (the end).
    private mutating func another(closedBy close: UInt8) throws(FastPathUnsupported) -> Bool {
        skipWhitespace()
        guard index < bytes.count else { throw FastPathUnsupported() }
        if bytes[index] == 0x2C {
            index += 1
            return true
        }
        try expect(close)
        return false
    }

    /// Reads `null` if it comes next.
    package mutating func null() -> Bool {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == 0x6E else { return false }
        return (try? literal("null")) != nil
    }

    /// A key's text (for a member kept as a value), valid UTF-8.
    package func text(_ range: Range<Int>) throws(FastPathUnsupported) -> String {
        guard let text = String(validating: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self) else {
            throw FastPathUnsupported()
        }
        return text
    }

    package func key(_ range: Range<Int>, is name: StaticString) -> Bool {
        guard range.count == name.utf8CodeUnitCount else { return false }
        return name.withUTF8Buffer { expected in
            var offset = 0
            while offset < expected.count {
                if bytes[range.lowerBound + offset] != expected[offset] { return false }
                offset += 1
            }
            return true
        }
    }

    mutating func unsigned() throws(FastPathUnsupported) -> UInt64 {
        skipWhitespace()
        let value = try integer()
        guard value >= 0 else { throw FastPathUnsupported() }
        return UInt64(value)
    }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    package mutating func value(depth: Int) throws(FastPathUnsupported) -> JSONValue {
        switch try valueStart(depth: depth) {
        case 0x7B:  // {
            index += 1
            var members: [String: JSONValue] = [:]
            if closesAtOnce(0x7D) { return .object(members) }
            repeat {
                skipWhitespace()
                let key = try string()
                skipWhitespace()
                try expect(0x3A)
                let element = try value(depth: depth + 1)
                guard members.updateValue(element, forKey: key) == nil else { throw FastPathUnsupported() }
            } while try another(closedBy: 0x7D)
            return .object(members)
        case 0x5B:  // [
            index += 1
            var elements: [JSONValue] = []
            if closesAtOnce(0x5D) { return .array(elements) }
            repeat {
                elements.append(try value(depth: depth + 1))
            } while try another(closedBy: 0x5D)
            return .array(elements)
        case 0x22:
            return .string(try string())
        case 0x74:
            try literal("true")
            return .bool(true)
        case 0x66:
            try literal("false")
            return .bool(false)
        case 0x6E:
            try literal("null")
            return .null
        default:
            return .int(try integer())
        }
    }

    /// Reads past a value as ``value(depth:)`` reads it, refusing what it refuses, without making it.
    package mutating func skipValue(depth: Int) throws(FastPathUnsupported) {
        switch try valueStart(depth: depth) {
        case 0x7B:  // {
            index += 1
            if closesAtOnce(0x7D) { return }
            var keys: [Range<Int>] = []
            var texts: Set<String>?
            repeat {
                skipWhitespace()
                try insert(try stringBytes(), into: &keys, &texts)
                skipWhitespace()
                try expect(0x3A)
                try skipValue(depth: depth + 1)
            } while try another(closedBy: 0x7D)
        case 0x5B:  // [
            index += 1
            if closesAtOnce(0x5D) { return }
            repeat {
                try skipValue(depth: depth + 1)
            } while try another(closedBy: 0x5D)
        case 0x22:
            _ = try stringBytes()
        case 0x74:
            try literal("true")
        case 0x66:
            try literal("false")
        case 0x6E:
            try literal("null")
        default:
            _ = try integer()
        }
    }

    /// The first byte of the value at `index`, past whitespace: what ``value(depth:)`` and ``skipValue(depth:)``
    /// switch on. Refuses a value nested 64 deep and the end of the bytes.
    @inline(__always)
    private mutating func valueStart(depth: Int) throws(FastPathUnsupported) -> UInt8 {
        guard depth < 64 else { throw FastPathUnsupported() }
        skipWhitespace()
        guard index < bytes.count else { throw FastPathUnsupported() }
        return bytes[index]
    }

    /// A string as ``string()`` reads it, as the range of its text (without the quotes).
    package mutating func stringBytes() throws(FastPathUnsupported) -> Range<Int> {
        try expect(0x22)
        let start = index
        var ascii = true
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x22 {
                let range = start..<index
                index += 1
                if !ascii { _ = try text(range) }
                return range
            }
            guard byte >= 0x20, byte != 0x5C else { throw FastPathUnsupported() }
            if byte >= 0x80 { ascii = false }
            index += 1
        }
        throw FastPathUnsupported()
    }

    /// Adds an object's key to the ones before it, refusing a repeated one as ``value(depth:)`` does (keys equal as
    /// `String`s: canonically equivalent texts are the same key).
    /// A few ASCII keys are compared byte by byte; past those, or with other text, they go into `texts`.
    private func insert(
        _ key: Range<Int>, into keys: inout [Range<Int>], _ texts: inout Set<String>?
    ) throws(FastPathUnsupported) {
        if texts == nil, keys.count < 16, isASCII(key) {
            guard !keys.contains(where: { bytes[$0].elementsEqual(bytes[key]) }) else { throw FastPathUnsupported() }
            keys.append(key)
            return
        }
        if texts == nil {
            texts = []
            for earlier in keys { texts!.insert(try text(earlier)) }
        }
        guard texts!.insert(try text(key)).inserted else { throw FastPathUnsupported() }
    }

    private func isASCII(_ range: Range<Int>) -> Bool { !bytes[range].contains { $0 >= 0x80 } }

    private mutating func expect(_ byte: UInt8) throws(FastPathUnsupported) {
        guard index < bytes.count, bytes[index] == byte else { throw FastPathUnsupported() }
        index += 1
    }

    private mutating func literal(_ word: StaticString) throws(FastPathUnsupported) {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw FastPathUnsupported() }
        let matches = word.withUTF8Buffer { expected in
            (0..<count).allSatisfy { bytes[index + $0] == expected[$0] }
        }
        guard matches else { throw FastPathUnsupported() }
        index += count
    }

    /// A string with no escapes and no control characters, valid UTF-8.
    package mutating func string() throws(FastPathUnsupported) -> String {
        let text = UnsafeBufferPointer(rebasing: bytes[try stringBytes()])
        // Copied into the string's own storage: a small ASCII string (a name, an ID) is taken as it is, where
        // `String(decoding:)` validates every string first; a longer or other one is validated as before.
        return String(unsafeUninitializedCapacity: text.count) { storage in
            if let from = text.baseAddress, let to = storage.baseAddress { to.initialize(from: from, count: text.count) }
            return text.count
        }
    }

    /// `-?(0|[1-9][0-9]*)` that fits in an `Int`, not followed by a fraction or an exponent.
    package mutating func integer() throws(FastPathUnsupported) -> Int {
        var negative = false
        if index < bytes.count, bytes[index] == 0x2D {
            negative = true
            index += 1
        }
        let start = index
        var magnitude: UInt64 = 0
        while index < bytes.count {
            let digit = bytes[index] &- 0x30
            guard digit < 10 else { break }
            // Wrapping, checked once after: 19 digits fit a UInt64, and 20 without a leading zero are past Int.
            magnitude = magnitude &* 10 &+ UInt64(digit)
            index += 1
        }
        let digits = index - start
        guard digits > 0, digits <= 19, !(digits > 1 && bytes[start] == 0x30) else { throw FastPathUnsupported() }
        if index < bytes.count, bytes[index] == 0x2E || bytes[index] == 0x65 || bytes[index] == 0x45 {
            throw FastPathUnsupported()
        }
        if negative {
            guard magnitude <= UInt64(Int.max) + 1, magnitude > 0 else { throw FastPathUnsupported() }
            return magnitude == UInt64(Int.max) + 1 ? Int.min : -Int(magnitude)
        }
        guard magnitude <= UInt64(Int.max) else { throw FastPathUnsupported() }
        return Int(magnitude)
    }
}
