import FlowCore

// The codec's fast paths: the messages of a step's round trip (STEP and ACK in; COMMAND, OK and EVENT out, plus
// HEARTBEAT both ways) are written and read here without `JSONEncoder`/`JSONDecoder`, which cost several microseconds
// a message (docs/PERFORMANCE.md). The bytes written are exactly `JSONEncoder`'s with `.sortedKeys` and
// `.withoutEscapingSlashes` (keys in UTF-8 byte order, the same escapes); whatever the fast paths do not cover
// (doubles, escaped strings, unusual numbers, duplicate keys, any error) goes the `Codable` way, which stays the
// reference.

/// Something the fast paths leave to `Codable`.
package struct FastPathUnsupported: Error {
    package init() {}
}

/// Writes JSON bodies byte for byte as the codec's `JSONEncoder` does (with `.sortedKeys` and
/// `.withoutEscapingSlashes`). `package`: the daemon's journal writes its hot records with it too.
package struct FastJSONWriter {
    package private(set) var bytes: [UInt8] = []

    package init() { bytes.reserveCapacity(256) }

    package mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
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
        var digits: [UInt8] = []
        digits.reserveCapacity(20)
        var rest = value
        while rest > 0 {
            digits.append(0x30 + UInt8(rest % 10))
            rest /= 10
        }
        bytes.append(contentsOf: digits.reversed())
    }

    mutating func optionalString(_ text: String?) {
        if let text { string(text) } else { raw("null") }
    }

    mutating func optionalInt(_ value: Int?) {
        if let value { int(value) } else { raw("null") }
    }

    /// A JSON value; doubles are left to `JSONEncoder`, whose number formatting is its own.
    package mutating func value(_ value: StepPayload) throws(FastPathUnsupported) {
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

    /// `WireCommand`'s form: `op` and the fields of its row, keys sorted.
    mutating func command(_ command: NavigationCommand) throws(FastPathUnsupported) {
        switch command {
        case .setRoot(let screen):
            raw("{\"op\":\"setRoot\",\"screen\":")
            try self.screen(screen)
            raw("}")
        case .push(let screen, let stack):
            raw("{\"op\":\"push\",\"screen\":")
            try self.screen(screen)
            target(stack)
        case .pop(let stack):
            raw("{\"op\":\"pop\"")
            target(stack)
        case .popToRoot(let stack):
            raw("{\"op\":\"popToRoot\"")
            target(stack)
        case .setStack(let stack, let screens):
            raw("{\"op\":\"setStack\",\"screens\":")
            try self.screens(screens)
            target(stack)
        case .present(let screen, let presenter):
            raw("{\"op\":\"present\",\"screen\":")
            try self.screen(screen)
            target(presenter)
        case .dismiss(let presenter):
            raw("{\"op\":\"dismiss\"")
            target(presenter)
        case .setTabs(let tabs, let screens, let selected):
            raw("{\"op\":\"setTabs\",\"screens\":")
            try self.screens(screens)
            raw(",\"selected\":")
            int(selected)
            target(tabs)
        case .selectTab(let tabs, let index):
            raw("{\"index\":")
            int(index)
            raw(",\"op\":\"selectTab\"")
            target(tabs)
        case .showMaster(let split, let screen):
            raw("{\"op\":\"showMaster\",\"screen\":")
            try self.screen(screen)
            target(split)
        case .showDetail(let split, let screen):
            raw("{\"op\":\"showDetail\",\"screen\":")
            try self.screen(screen)
            target(split)
        }
    }

    /// `,"target":…}`: the last field of every command that has one.
    private mutating func target(_ id: PresentableID) {
        raw(",\"target\":")
        string(id.rawValue)
        raw("}")
    }

    /// The body of a message on a step's round trip; `nil` for the others, which `JSONEncoder` writes.
    static func body(_ message: WireMessage) -> [UInt8]? {
        var writer = FastJSONWriter()
        do throws(FastPathUnsupported) {
            switch message {
            case .command(let body):
                writer.raw("{\"command\":")
                try writer.command(body.command)
                writer.raw(",\"seq\":")
                writer.unsigned(body.seq)
                writer.raw(",\"session\":")
                writer.string(body.session)
                writer.raw("}")
            case .ok(let body):
                writer.raw("{\"req\":")
                writer.unsigned(body.req)
                writer.raw(",\"result\":")
                try writer.value(body.result)
                writer.raw("}")
            case .event(let body):
                writer.raw("{\"coordinator\":")
                writer.optionalInt(body.coordinator)
                writer.raw(",\"event\":")
                writer.string(body.event)
                writer.raw(",\"flow\":")
                writer.optionalString(body.flow)
                if let reason = body.reason {
                    writer.raw(",\"reason\":")
                    writer.string(reason)
                }
                writer.raw(",\"session\":")
                writer.string(body.session)
                writer.raw(",\"step\":")
                try writer.step(body.step)
                writer.raw(",\"text\":")
                writer.string(body.text)
                writer.raw("}")
            case .ack(let body):
                writer.raw("{\"seq\":")
                writer.unsigned(body.seq)
                writer.raw(",\"session\":")
                writer.string(body.session)
                writer.raw("}")
            case .step(let body):
                writer.raw("{\"attachment\":")
                writer.int(body.attachment)
                writer.raw(",\"req\":")
                writer.unsigned(body.req)
                writer.raw(",\"session\":")
                writer.string(body.session)
                writer.raw(",\"step\":")
                try writer.step(body.step)
                writer.raw("}")
            case .heartbeat(let body):
                writer.raw("{\"sessions\":{")
                var first = true
                for key in body.sessions.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
                    if !first { writer.raw(",") }
                    first = false
                    writer.string(key)
                    writer.raw(":")
                    writer.unsigned(body.sessions[key]!)
                }
                writer.raw("}}")
            default:
                return nil
            }
        } catch {
            return nil
        }
        return writer.bytes
    }
}

extension UInt64 {
    /// The magnitude of a negative `Int64` given by its bit pattern.
    fileprivate var magnitudeOfNegative: UInt64 { ~self &+ 1 }
}

/// Reads the JSON bodies of the messages a step's round trip brings in (`STEP`, `ACK`, `HEARTBEAT`), accepting only
/// what it is sure `JSONDecoder` reads the same way; anything else (an escape in a string, a number that is not a
/// plain integer, a duplicate key, any error) is left to `JSONDecoder`, which also words the errors.
package struct FastJSONReader {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// A whole JSON text as a value (duplicate keys, doubles, escapes and nesting past 64 are not covered), or `nil`
    /// to use `JSONDecoder`. `package`: the daemon reads its journal's records with it.
    package static func value(_ text: [UInt8]) -> StepPayload? {
        text.withUnsafeBufferPointer { buffer in
            var reader = FastJSONReader(buffer)
            guard let value = try? reader.value(depth: 0) else { return nil }
            reader.skipWhitespace()
            return reader.index == buffer.count ? value : nil
        }
    }

    /// The message `body` holds for `type`, or `nil` to use `JSONDecoder`.
    static func message(_ type: MessageType, body: [UInt8]) -> WireMessage? {
        switch type {
        case .step, .ack, .heartbeat: break
        default: return nil
        }
        return body.withUnsafeBufferPointer { buffer in
            var reader = FastJSONReader(buffer)
            return try? reader.message(type)
        }
    }

    /// Reads the body's fields straight into the message (unknown fields are read and ignored, a known field seen
    /// twice gives up).
    private mutating func message(_ type: MessageType) throws(FastPathUnsupported) -> WireMessage {
        var req: UInt64?
        var session: String?
        var attachment: Int?
        var step: Step?
        var seq: UInt64?
        var sessions: [String: UInt64]?
        var sessionsSeen = false
        try object { reader, key throws(FastPathUnsupported) in
            if reader.key(key, is: "req") {
                guard req == nil else { throw FastPathUnsupported() }
                req = try reader.unsigned()
            } else if reader.key(key, is: "session") {
                guard session == nil else { throw FastPathUnsupported() }
                session = try reader.string()
            } else if reader.key(key, is: "attachment") {
                guard attachment == nil else { throw FastPathUnsupported() }
                attachment = try reader.integer()
            } else if reader.key(key, is: "step") {
                guard step == nil else { throw FastPathUnsupported() }
                step = try reader.step()
            } else if reader.key(key, is: "seq") {
                guard seq == nil else { throw FastPathUnsupported() }
                seq = try reader.unsigned()
            } else if reader.key(key, is: "sessions") {
                guard !sessionsSeen else { throw FastPathUnsupported() }
                sessionsSeen = true
                sessions = try reader.sessionSeqs()
            } else {
                _ = try reader.value(depth: 1)
            }
        }
        skipWhitespace()
        guard index == bytes.count else { throw FastPathUnsupported() }
        switch type {
        case .step:
            guard let req, let session, let attachment, let step else { throw FastPathUnsupported() }
            return .step(StepMessage(req: req, session: session, attachment: attachment, step: step))
        case .ack:
            guard let session, let seq else { throw FastPathUnsupported() }
            return .ack(Ack(session: session, seq: seq))
        default:
            return .heartbeat(Heartbeat(sessions: sessions ?? [:]))
        }
    }

    /// `{"name": …, "payload": …}`; a missing payload is `null`.
    private mutating func step() throws(FastPathUnsupported) -> Step {
        var name: String?
        var payload: StepPayload?
        try object { reader, key throws(FastPathUnsupported) in
            if reader.key(key, is: "name") {
                guard name == nil else { throw FastPathUnsupported() }
                name = try reader.string()
            } else if reader.key(key, is: "payload") {
                guard payload == nil else { throw FastPathUnsupported() }
                payload = try reader.value(depth: 2)
            } else {
                _ = try reader.value(depth: 2)
            }
        }
        guard let name else { throw FastPathUnsupported() }
        return Step(name, payload: payload ?? .null)
    }

    /// `HEARTBEAT`'s `sessions`: `null` or an object of sequence numbers.
    private mutating func sessionSeqs() throws(FastPathUnsupported) -> [String: UInt64]? {
        switch try value(depth: 1) {
        case .null:
            return nil
        case .object(let entries):
            var sessions: [String: UInt64] = [:]
            for (key, value) in entries {
                guard case .int(let seq) = value, seq >= 0 else { throw FastPathUnsupported() }
                sessions[key] = UInt64(seq)
            }
            return sessions
        default:
            throw FastPathUnsupported()
        }
    }

    /// Reads an object, calling `member` with the reader on each member's value and the key's bytes.
    private mutating func object(
        _ member: (inout FastJSONReader, Range<Int>) throws(FastPathUnsupported) -> Void
    ) throws(FastPathUnsupported) {
        skipWhitespace()
        try expect(0x7B)
        skipWhitespace()
        if index < bytes.count, bytes[index] == 0x7D {
            index += 1
            return
        }
        while true {
            skipWhitespace()
            try expect(0x22)
            let start = index
            while index < bytes.count, bytes[index] != 0x22 {
                guard bytes[index] >= 0x20, bytes[index] != 0x5C else { throw FastPathUnsupported() }
                index += 1
            }
            let key = start..<index
            try expect(0x22)
            skipWhitespace()
            try expect(0x3A)
            skipWhitespace()
            try member(&self, key)
            skipWhitespace()
            guard index < bytes.count else { throw FastPathUnsupported() }
            if bytes[index] == 0x2C {
                index += 1
                continue
            }
            try expect(0x7D)
            return
        }
    }

    private func key(_ range: Range<Int>, is name: StaticString) -> Bool {
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

    private mutating func unsigned() throws(FastPathUnsupported) -> UInt64 {
        skipWhitespace()
        let value = try integer()
        guard value >= 0 else { throw FastPathUnsupported() }
        return UInt64(value)
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private mutating func value(depth: Int) throws(FastPathUnsupported) -> StepPayload {
        guard depth < 64 else { throw FastPathUnsupported() }
        skipWhitespace()
        guard index < bytes.count else { throw FastPathUnsupported() }
        switch bytes[index] {
        case 0x7B:  // {
            index += 1
            var members: [String: StepPayload] = [:]
            skipWhitespace()
            if index < bytes.count, bytes[index] == 0x7D {
                index += 1
                return .object(members)
            }
            while true {
                skipWhitespace()
                let key = try string()
                skipWhitespace()
                try expect(0x3A)
                let element = try value(depth: depth + 1)
                guard members.updateValue(element, forKey: key) == nil else { throw FastPathUnsupported() }
                skipWhitespace()
                guard index < bytes.count else { throw FastPathUnsupported() }
                if bytes[index] == 0x2C {
                    index += 1
                    continue
                }
                try expect(0x7D)
                return .object(members)
            }
        case 0x5B:  // [
            index += 1
            var elements: [StepPayload] = []
            skipWhitespace()
            if index < bytes.count, bytes[index] == 0x5D {
                index += 1
                return .array(elements)
            }
            while true {
                elements.append(try value(depth: depth + 1))
                skipWhitespace()
                guard index < bytes.count else { throw FastPathUnsupported() }
                if bytes[index] == 0x2C {
                    index += 1
                    continue
                }
                try expect(0x5D)
                return .array(elements)
            }
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
    private mutating func string() throws(FastPathUnsupported) -> String {
        try expect(0x22)
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x22 {
                let text = String(validating: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                index += 1
                guard let text else { throw FastPathUnsupported() }
                return text
            }
            guard byte >= 0x20, byte != 0x5C else { throw FastPathUnsupported() }
            index += 1
        }
        throw FastPathUnsupported()
    }

    /// `-?(0|[1-9][0-9]*)` that fits in an `Int`, not followed by a fraction or an exponent.
    private mutating func integer() throws(FastPathUnsupported) -> Int {
        var negative = false
        if index < bytes.count, bytes[index] == 0x2D {
            negative = true
            index += 1
        }
        let start = index
        var magnitude: UInt64 = 0
        while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
            let (times, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(UInt64(bytes[index] - 0x30))
            guard !overflow1, !overflow2 else { throw FastPathUnsupported() }
            magnitude = sum
            index += 1
        }
        let digits = index - start
        guard digits > 0, !(digits > 1 && bytes[start] == 0x30) else { throw FastPathUnsupported() }
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

