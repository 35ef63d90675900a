/// RFC 8259's grammar, checked over a body's bytes before `JSONDecoder` reads it: Foundation's decoder also takes
/// texts the RFC does not (a trailing comma, `\'` and `\x41` escapes, `1.`, a byte order mark), which
/// `docs/PROTOCOL.md` §2 answers with `malformedBody`; nor does it check the UTF-8 of a string it skips (an unknown
/// field's), so strings are checked here too. Escaped surrogates (`\uD800`) are left to the decoder.
struct JSONSyntax {
    enum Fault: Error {
        /// Not a JSON text.
        case invalid
        /// Objects and arrays nested deeper than the limit (the outermost is the first level), found before any
        /// other fault after it: in linear time, where `JSONDecoder` takes quadratic time on deep values.
        case tooDeep
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private let depthLimit: Int
    private var index = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>, depthLimit: Int) {
        self.bytes = bytes
        self.depthLimit = depthLimit
    }

    /// What is wrong with `text` as one JSON text (whitespace around one value), `nil` when nothing is.
    static func fault(in text: [UInt8], depthLimit: Int) -> Fault? {
        text.withUnsafeBufferPointer { buffer in
            var syntax = JSONSyntax(buffer, depthLimit: depthLimit)
            do throws(Fault) {
                syntax.skipWhitespace()
                try syntax.value(depth: 0)
                syntax.skipWhitespace()
                return syntax.index == buffer.count ? nil : .invalid
            } catch {
                return error
            }
        }
    }

    private var next: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = next, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
    }

    private mutating func expect(_ byte: UInt8) throws(Fault) {
        guard next == byte else { throw .invalid }
        index += 1
    }

    /// A value inside `depth` containers.
    private mutating func value(depth: Int) throws(Fault) {
        switch next {
        case 0x7B?: try container(close: 0x7D, depth: depth + 1, keyed: true)
        case 0x5B?: try container(close: 0x5D, depth: depth + 1, keyed: false)
        case 0x22?: try string()
        case 0x74?: try literal("true")
        case 0x66?: try literal("false")
        case 0x6E?: try literal("null")
        case 0x2D?, (0x30...0x39)?: try number()
        default: throw .invalid
        }
    }

    /// An object (`keyed`) or an array, its opening byte next: members or elements separated by commas, none after
    /// the last.
    private mutating func container(close: UInt8, depth: Int, keyed: Bool) throws(Fault) {
        guard depth <= depthLimit else { throw .tooDeep }
        index += 1
        skipWhitespace()
        if next == close {
            index += 1
            return
        }
        while true {
            if keyed {
                guard next == 0x22 else { throw .invalid }
                try string()
                skipWhitespace()
                try expect(0x3A)
                skipWhitespace()
            }
            try value(depth: depth)
            skipWhitespace()
            guard next == 0x2C else { return try expect(close) }
            index += 1
            skipWhitespace()
        }
    }

    private mutating func literal(_ word: StaticString) throws(Fault) {
        guard bytes.holds(word, at: index) else { throw .invalid }
        index += word.utf8CodeUnitCount
    }

    /// `-`? (`0` | [1-9][0-9]*) (`.` [0-9]+)? ([eE] [+-]? [0-9]+)?
    private mutating func number() throws(Fault) {
        if next == 0x2D { index += 1 }
        if next == 0x30 {
            index += 1
        } else {
            try digits()
        }
        if next == 0x2E {
            index += 1
            try digits()
        }
        if next == 0x45 || next == 0x65 {
            index += 1
            if next == 0x2B || next == 0x2D { index += 1 }
            try digits()
        }
    }

    /// One or more decimal digits.
    private mutating func digits() throws(Fault) {
        guard let first = next, first >= 0x30, first <= 0x39 else { throw .invalid }
        while let byte = next, byte >= 0x30, byte <= 0x39 { index += 1 }
    }

    /// A string, its opening quote next: no control character unescaped, only the RFC's escapes.
    private mutating func string() throws(Fault) {
        index += 1
        while let byte = next {
            index += 1
            switch byte {
            case 0x22: return
            case 0x00..<0x20: throw .invalid
            case 0x5C:
                guard let escaped = next else { throw .invalid }
                index += 1
                switch escaped {
                case 0x22, 0x5C, 0x2F, 0x62, 0x66, 0x6E, 0x72, 0x74: break
                case 0x75:
                    for _ in 0..<4 {
                        guard let hex = next, (0x30...0x39).contains(hex) || (0x41...0x46).contains(hex)
                            || (0x61...0x66).contains(hex)
                        else { throw .invalid }
                        index += 1
                    }
                default: throw .invalid
                }
            case 0x80...: try utf8Sequence(leading: byte)
            default: break
            }
        }
        throw .invalid
    }

    /// The continuation bytes of a UTF-8 sequence whose leading byte was just read (RFC 3629: no overlong form, no
    /// surrogate, nothing past U+10FFFF).
    private mutating func utf8Sequence(leading: UInt8) throws(Fault) {
        let count: Int
        var second: ClosedRange<UInt8> = 0x80...0xBF
        switch leading {
        case 0xC2...0xDF: count = 1
        case 0xE0: (count, second) = (2, 0xA0...0xBF)
        case 0xED: (count, second) = (2, 0x80...0x9F)
        case 0xE1...0xEF: count = 2
        case 0xF0: (count, second) = (3, 0x90...0xBF)
        case 0xF1...0xF3: count = 3
        case 0xF4: (count, second) = (3, 0x80...0x8F)
        default: throw .invalid
        }
        for position in 0..<count {
            guard let byte = next, (position == 0 ? second : 0x80...0xBF).contains(byte) else { throw .invalid }
            index += 1
        }
    }
}
