public import FlowCore

/// `ADAPT`: the daemon asks a stepper process whether a flow's step goes through (`docs/PROTOCOL.md` §5.6).
public struct AdaptMessage: Sendable, Hashable, Codable {
    public var session: String
    /// The request's number in its session; `ADAPTED` carries it back.
    public var request: Int
    /// The stepper kind the flow asks (one the process serves).
    public var kind: String
    /// The name of the flow whose step it is.
    public var flow: String
    /// The coordinator running that flow: a flow's instance, for logic that counts per flow.
    public var coordinator: Int
    /// The step to adapt.
    public var step: Step

    public init(session: String, request: Int, kind: String, flow: String, coordinator: Int, step: Step) {
        self.session = session
        self.request = request
        self.kind = kind
        self.flow = flow
        self.coordinator = coordinator
        self.step = step
    }
}

/// What a stepper process answers to `ADAPT`.
public enum AdaptAnswer: Sendable, Hashable, CustomStringConvertible {
    /// The step goes through as it is.
    case allow
    /// The flow navigates to this step instead.
    case replace(Step)
    /// The step is dropped (`adaptedToNone`).
    case refuse

    /// The answer that makes a flow navigate to `adapted` when it asked about `step`, as a Swift flow's `adapt`
    /// returns a step: `step` itself allows it, ``FlowCore/Step/none`` refuses it, another step replaces it.
    public init(_ adapted: Step, asked step: Step) {
        if adapted.isNone {
            self = .refuse
        } else if adapted == step {
            self = .allow
        } else {
            self = .replace(adapted)
        }
    }

    /// `allow`, `replace`, `refuse`: the `answer` field.
    public var name: String {
        switch self {
        case .allow: return "allow"
        case .replace: return "replace"
        case .refuse: return "refuse"
        }
    }

    public var description: String {
        if case .replace(let step) = self { return "replace \(step)" }
        return name
    }
}

/// `ADAPTED`: a stepper process's answer to `ADAPT` (`docs/PROTOCOL.md` §5.6); not a request, no reply.
public struct AdaptedMessage: Sendable, Hashable, Codable {
    public var session: String
    public var request: Int
    public var answer: AdaptAnswer

    public init(session: String, request: Int, answer: AdaptAnswer) {
        self.session = session
        self.request = request
        self.answer = answer
    }

    enum CodingKeys: String, CodingKey { case session, request, answer, step }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        session = try container.decode(String.self, forKey: .session)
        request = try container.decode(Int.self, forKey: .request)
        switch try container.decode(String.self, forKey: .answer) {
        case "allow": answer = .allow
        case "refuse": answer = .refuse
        case "replace": answer = .replace(try container.decode(Step.self, forKey: .step))
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .answer, in: container, debugDescription: "is not 'allow', 'replace' or 'refuse'")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(session, forKey: .session)
        try container.encode(request, forKey: .request)
        try container.encode(answer.name, forKey: .answer)
        if case .replace(let step) = answer { try container.encode(step, forKey: .step) }
    }
}

// The fast path's reader and writer (FastJSONWriter.swift says why they are by hand).
extension AdaptMessage {
    func write(to writer: inout FastJSONWriter) throws(FastPathUnsupported) {
        writer.raw("{\"coordinator\":")
        writer.int(coordinator)
        writer.raw(",\"flow\":")
        writer.string(flow)
        writer.raw(",\"kind\":")
        writer.string(kind)
        writer.raw(",\"request\":")
        writer.int(request)
        writer.raw(",\"session\":")
        writer.string(session)
        writer.raw(",\"step\":")
        try writer.step(step)
        writer.raw("}")
    }
}

extension AdaptedMessage {
    /// Unknown fields are read and ignored; a known field seen twice, or an answer that is not one of the three,
    /// gives up (`JSONDecoder` then names the error).
    init(reading reader: inout FastJSONReader) throws(FastPathUnsupported) {
        var session: String?
        var request: Int?
        var answer: String?
        var step: Step?
        try reader.fields(["answer", "request", "session", "step"], depth: 1) {
            reader, field throws(FastPathUnsupported) in
            switch field {
            case 0: answer = try reader.string()
            case 1: request = try reader.integer()
            case 2: session = try reader.string()
            default: step = try reader.step()
            }
        }
        guard let session, let request, let answer else { throw FastPathUnsupported() }
        switch answer {
        case "allow": self.init(session: session, request: request, answer: .allow)
        case "refuse": self.init(session: session, request: request, answer: .refuse)
        case "replace":
            guard let step else { throw FastPathUnsupported() }
            self.init(session: session, request: request, answer: .replace(step))
        default: throw FastPathUnsupported()
        }
    }
}
