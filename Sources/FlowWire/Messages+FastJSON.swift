import FlowCore

// The messages of a step's round trip, written (`STEP`, `COMMAND`, `OK`, `ACK`, and `EVENT` for watchers) and read
// (`STEP`, `ACK`) by hand: JSONEncoder/JSONDecoder cost several microseconds a message there (docs/PERFORMANCE.md).
// Each is held to its `Codable` form, byte for byte and value for value, by FastPathTests.

extension WireMessage {
    /// The body as `JSONEncoder` writes it, for the messages of a step's round trip; `nil` for the others, or for a
    /// body the fast path leaves to `JSONEncoder` (a double somewhere).
    var fastBody: [UInt8]? {
        var writer = FastJSONWriter()
        do throws(FastPathUnsupported) {
            switch self {
            case .step(let body): try body.write(to: &writer)
            case .command(let body): try body.write(to: &writer)
            case .ok(let body): try body.write(to: &writer)
            case .ack(let body): body.write(to: &writer)
            case .event(let body): try body.write(to: &writer)
            case .adapt(let body): try body.write(to: &writer)
            default: return nil
            }
        } catch {
            return nil
        }
        return writer.bytes
    }

    /// The message `body` holds for `type`, for the messages of a step's round trip (`STEP`, `ACK` and `ADAPTED` to the
    /// daemon, `COMMAND` and `OK` to its clients); `nil` to use `JSONDecoder` (another type, or a body the fast path is
    /// not sure to read as `JSONDecoder` does).
    package static func fastMessage(_ type: MessageType, body: [UInt8]) -> WireMessage? {
        switch type {
        case .step: return FastJSONReader.read(body, StepMessage.init(reading:)).map(WireMessage.step)
        case .ack: return FastJSONReader.read(body, Ack.init(reading:)).map(WireMessage.ack)
        case .command: return FastJSONReader.read(body, CommandMessage.init(reading:)).map(WireMessage.command)
        case .ok: return FastJSONReader.read(body, OKReply.init(reading:)).map(WireMessage.ok)
        case .adapted: return FastJSONReader.read(body, AdaptedMessage.init(reading:)).map(WireMessage.adapted)
        default: return nil
        }
    }
}

extension StepMessage {
    func write(to writer: inout FastJSONWriter) throws(FastPathUnsupported) {
        writer.raw("{\"attachment\":")
        writer.int(attachment)
        writer.raw(",\"req\":")
        writer.unsigned(req)
        writer.raw(",\"session\":")
        writer.string(session)
        writer.raw(",\"step\":")
        try writer.step(step)
        writer.raw("}")
    }

    /// Unknown fields are read and ignored; a known field seen twice gives up.
    init(reading reader: inout FastJSONReader) throws(FastPathUnsupported) {
        var req: UInt64?
        var session: String?
        var attachment: Int?
        var step: Step?
        try reader.object { reader, key throws(FastPathUnsupported) in
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
            } else {
                _ = try reader.value(depth: 1)
            }
        }
        guard let req, let session, let attachment, let step else { throw FastPathUnsupported() }
        self.init(req: req, session: session, attachment: attachment, step: step)
    }
}

extension CommandMessage {
    /// `package`: the daemon's snapshot writes a session's outbox with it.
    package func write(to writer: inout FastJSONWriter) throws(FastPathUnsupported) {
        writer.raw("{\"command\":")
        try writer.command(command)
        writer.raw(",\"seq\":")
        writer.unsigned(seq)
        writer.raw(",\"session\":")
        writer.string(session)
        writer.raw("}")
    }

    /// Unknown fields are read and ignored; a known field seen twice gives up.
    init(reading reader: inout FastJSONReader) throws(FastPathUnsupported) {
        var session: String?
        var seq: UInt64?
        var command: NavigationCommand?
        try reader.object { reader, key throws(FastPathUnsupported) in
            if reader.key(key, is: "session") {
                guard session == nil else { throw FastPathUnsupported() }
                session = try reader.string()
            } else if reader.key(key, is: "seq") {
                guard seq == nil else { throw FastPathUnsupported() }
                seq = try reader.unsigned()
            } else if reader.key(key, is: "command") {
                guard command == nil else { throw FastPathUnsupported() }
                command = try reader.command()
            } else {
                _ = try reader.value(depth: 1)
            }
        }
        guard let session, let seq, let command else { throw FastPathUnsupported() }
        self.init(session: session, seq: seq, command: command)
    }
}

extension OKReply {
    func write(to writer: inout FastJSONWriter) throws(FastPathUnsupported) {
        writer.raw("{\"req\":")
        writer.unsigned(req)
        writer.raw(",\"result\":")
        try writer.value(result)
        writer.raw("}")
    }

    /// Unknown fields are read and ignored; a known field seen twice gives up; a missing or `null` `result` is `{}`
    /// (as `decodeIfPresent` reads it).
    init(reading reader: inout FastJSONReader) throws(FastPathUnsupported) {
        var req: UInt64?
        var result: JSONValue?
        try reader.object { reader, key throws(FastPathUnsupported) in
            if reader.key(key, is: "req") {
                guard req == nil else { throw FastPathUnsupported() }
                req = try reader.unsigned()
            } else if reader.key(key, is: "result") {
                guard result == nil else { throw FastPathUnsupported() }
                result = try reader.value(depth: 1)
            } else {
                _ = try reader.value(depth: 1)
            }
        }
        guard let req else { throw FastPathUnsupported() }
        self.init(req: req, result: result == nil || result == .null ? [:] : result!)
    }
}

extension Ack {
    func write(to writer: inout FastJSONWriter) {
        writer.raw("{\"seq\":")
        writer.unsigned(seq)
        writer.raw(",\"session\":")
        writer.string(session)
        writer.raw("}")
    }

    /// Unknown fields are read and ignored; a known field seen twice gives up.
    init(reading reader: inout FastJSONReader) throws(FastPathUnsupported) {
        var session: String?
        var seq: UInt64?
        try reader.object { reader, key throws(FastPathUnsupported) in
            if reader.key(key, is: "session") {
                guard session == nil else { throw FastPathUnsupported() }
                session = try reader.string()
            } else if reader.key(key, is: "seq") {
                guard seq == nil else { throw FastPathUnsupported() }
                seq = try reader.unsigned()
            } else {
                _ = try reader.value(depth: 1)
            }
        }
        guard let session, let seq else { throw FastPathUnsupported() }
        self.init(session: session, seq: seq)
    }
}

extension EventMessage {
    func write(to writer: inout FastJSONWriter) throws(FastPathUnsupported) {
        writer.raw("{\"coordinator\":")
        writer.optionalInt(coordinator)
        writer.raw(",\"event\":")
        writer.string(event)
        writer.raw(",\"flow\":")
        writer.optionalString(flow)
        if let reason {
            writer.raw(",\"reason\":")
            writer.string(reason)
        }
        writer.raw(",\"session\":")
        writer.string(session)
        writer.raw(",\"step\":")
        try writer.step(step)
        writer.raw(",\"text\":")
        writer.string(text)
        writer.raw("}")
    }
}
