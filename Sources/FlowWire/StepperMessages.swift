public import FlowCore

/// `ATTACH`: the daemon hands an attachment to a stepper process.
public struct Attach: Sendable, Hashable, Codable {
    public var session: String
    public var attachment: Int
    public var kind: String
    public var presentable: String
    public var role: String
    public var context: JSONValue
    /// Whether a stepper process already emitted a step for this attachment that the daemon carried out (on any
    /// connection): the stepper's start-up steps were taken, so a restarted process must not take them again.
    public var resumed: Bool

    public init(
        session: String, attachment: Int, kind: String, presentable: String, role: String, context: JSONValue,
        resumed: Bool = false
    ) {
        self.session = session
        self.attachment = attachment
        self.kind = kind
        self.presentable = presentable
        self.role = role
        self.context = context
        self.resumed = resumed
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        session = try container.decode(String.self, forKey: .session)
        attachment = try container.decode(Int.self, forKey: .attachment)
        kind = try container.decode(String.self, forKey: .kind)
        presentable = try container.decode(String.self, forKey: .presentable)
        role = try container.decode(String.self, forKey: .role)
        context = try container.decode(JSONValue.self, forKey: .context)
        resumed = try container.decodeIfPresent(Bool.self, forKey: .resumed) ?? false
    }
}

/// `DETACH`: an attachment ended.
public struct Detach: Sendable, Hashable, Codable {
    public var session: String
    public var attachment: Int
    public var reason: String

    public init(session: String, attachment: Int, reason: String) {
        self.session = session
        self.attachment = attachment
        self.reason = reason
    }
}

/// `STEP`: a stepper emits a step for an attachment.
public struct StepMessage: Sendable, Hashable, Codable {
    public var req: UInt64
    public var session: String
    public var attachment: Int
    public var step: Step

    public init(req: UInt64, session: String, attachment: Int, step: Step) {
        self.req = req
        self.session = session
        self.attachment = attachment
        self.step = step
    }
}

/// `ACTION`: a person acted on the screen an attachment is about.
public struct ActionMessage: Sendable, Hashable, Codable {
    public var session: String
    public var attachment: Int
    public var presentable: String
    public var action: Step

    public init(session: String, attachment: Int, presentable: String, action: Step) {
        self.session = session
        self.attachment = attachment
        self.presentable = presentable
        self.action = action
    }
}

// The fast path's reader and writer (FastJSONWriter.swift says why they are by hand).
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
        try reader.fields(["attachment", "req", "session", "step"], depth: 1) {
            reader, field throws(FastPathUnsupported) in
            switch field {
            case 0: attachment = try reader.integer()
            case 1: req = try reader.unsigned()
            case 2: session = try reader.string()
            default: step = try reader.step()
            }
        }
        guard let req, let session, let attachment, let step else { throw FastPathUnsupported() }
        self.init(req: req, session: session, attachment: attachment, step: step)
    }
}
