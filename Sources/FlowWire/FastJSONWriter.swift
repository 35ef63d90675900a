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
    package private(set) var bytes: [UInt8] = []

    package init() { bytes.reserveCapacity(256) }

    /// Empties the writer for the next body, keeping its buffer: a writer reused a message after another allocates
    /// nothing once its buffer fits the largest.
    package mutating func reset() { bytes.removeAll(keepingCapacity: true) }

    /// Replaces what was written with `body` (one `JSONEncoder` wrote).
    package mutating func replace(with body: [UInt8]) { bytes = body }

    package mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { literal in
            // Most literals are a few bytes (`{`, `,`, `":`): appended one by one they cost a half to a third of
            // `append(contentsOf:)`'s instructions.
            if literal.count <= 3 {
                for byte in literal { bytes.append(byte) }
            } else {
                bytes.append(contentsOf: literal)
            }
        }
    }

    package mutating func string(_ text: String) {
        bytes.append(0x22)
        var text = text
        text.withUTF8 { utf8 in
            var start = 0
            for index in 0..<utf8.count {
                let byte = utf8[index]
                guard byte < 0x20 || byte == 0x22 || byte == 0x5C else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
                start = index + 1
                bytes.append(0x5C)
                switch byte {
                case 0x22: bytes.append(0x22)
                case 0x5C: bytes.append(0x5C)
                case 0x08: bytes.append(0x62)  // \b
                case 0x09: bytes.append(0x74)  // \t
                case 0x0A: bytes.append(0x6E)  // \n
                case 0x0C: bytes.append(0x66)  // \f
                case 0x0D: bytes.append(0x72)  // \r
                default:
                    let hex: [UInt8] = Array("0123456789abcdef".utf8)
                    bytes.append(contentsOf: [0x75, 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]])
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<utf8.count]))
        }
        bytes.append(0x22)
    }

    package mutating func int(_ value: Int) {
        if value < 0 {
            bytes.append(0x2D)
            // -(Int.min) does not fit in an Int; its magnitude does in a UInt64.
            unsigned(UInt64(bitPattern: Int64(value)).magnitudeOfNegative)
        } else {
            unsigned(UInt64(value))
        }
    }

    package mutating func unsigned(_ value: UInt64) {
        if value < 10 {
            bytes.append(0x30 + UInt8(value))
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
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
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
            bytes.append(0x5B)
            for (index, element) in values.enumerated() {
                if index > 0 { bytes.append(0x2C) }
                try self.value(element)
            }
            bytes.append(0x5D)
        case .object(let members) where members.count == 1:
            // One member (every accepted step's verdict): no sorted array of keys to make.
            let (key, member) = members.first!
            bytes.append(0x7B)
            string(key)
            bytes.append(0x3A)
            try self.value(member)
            bytes.append(0x7D)
        case .object(let members):
            bytes.append(0x7B)
            var first = true
            for key in members.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
                if !first { bytes.append(0x2C) }
                first = false
                string(key)
                bytes.append(0x3A)
                try self.value(members[key]!)
            }
            bytes.append(0x7D)
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
        bytes.append(0x5B)
        for (index, screen) in screens.enumerated() {
            if index > 0 { bytes.append(0x2C) }
            try self.screen(screen)
        }
        bytes.append(0x5D)
    }
}

extension UInt64 {
    /// The magnitude of a negative `Int64` given by its bit pattern.
    fileprivate var magnitudeOfNegative: UInt64 { ~self &+ 1 }
}
