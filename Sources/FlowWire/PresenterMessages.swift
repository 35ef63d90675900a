public import FlowCore

/// `SYNC`: a presenter (re)starts hosting a session after `last_seq`.
public struct Sync: Sendable, Hashable, Codable {
    public var req: UInt64
    public var session: String
    public var lastSeq: UInt64
    public var create: Bool

    public init(req: UInt64, session: String, lastSeq: UInt64, create: Bool = false) {
        self.req = req
        self.session = session
        self.lastSeq = lastSeq
        self.create = create
    }

    enum CodingKeys: String, CodingKey {
        case req, session, create
        case lastSeq = "last_seq"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        req = try container.decode(UInt64.self, forKey: .req)
        session = try container.decode(String.self, forKey: .session)
        lastSeq = try container.decodeIfPresent(UInt64.self, forKey: .lastSeq) ?? 0
        create = try container.decodeIfPresent(Bool.self, forKey: .create) ?? false
    }
}

/// `SNAPSHOT`: the whole UI of a session at `seq`.
public struct SnapshotMessage: Sendable, Hashable, Codable {
    public var session: String
    public var seq: UInt64
    public var ui: UISnapshot

    public init(session: String, seq: UInt64, ui: UISnapshot) {
        self.session = session
        self.seq = seq
        self.ui = ui
    }
}

/// `COMMAND`: one navigation command, sequenced.
public struct CommandMessage: Sendable, Hashable, Codable {
    public var session: String
    public var seq: UInt64
    public var command: NavigationCommand

    public init(session: String, seq: UInt64, command: NavigationCommand) {
        self.session = session
        self.seq = seq
        self.command = command
    }

    enum CodingKeys: String, CodingKey { case session, seq, command }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        session = try container.decode(String.self, forKey: .session)
        seq = try container.decode(UInt64.self, forKey: .seq)
        command = try container.decode(WireCommand.self, forKey: .command).command
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(session, forKey: .session)
        try container.encode(seq, forKey: .seq)
        try container.encode(WireCommand(command), forKey: .command)
    }
}

/// `ACK`: the presenter applied every command up to `seq`.
public struct Ack: Sendable, Hashable, Codable {
    public var session: String
    public var seq: UInt64

    public init(session: String, seq: UInt64) {
        self.session = session
        self.seq = seq
    }
}

/// What a presenter reports about one presentable.
public enum PresentableState: String, Sendable, Hashable, Codable {
    case visible
    case hidden
    case dismissed
}

/// One entry of a `REPORT`.
public struct PresentableReport: Sendable, Hashable, Codable {
    public var presentable: String
    public var state: PresentableState

    public init(presentable: String, state: PresentableState) {
        self.presentable = presentable
        self.state = state
    }

    /// The report a ``PresentationModel`` change makes, as the coordinator input it stands for.
    public init?(_ input: CoordinatorInput) {
        switch input {
        case .visibilityChanged(let id, let visible): self.init(presentable: id.rawValue, state: visible ? .visible : .hidden)
        case .dismissed(let id): self.init(presentable: id.rawValue, state: .dismissed)
        default: return nil
        }
    }

    /// The coordinator input this report stands for.
    public var input: CoordinatorInput {
        switch state {
        case .visible: return .visibilityChanged(PresentableID(presentable), visible: true)
        case .hidden: return .visibilityChanged(PresentableID(presentable), visible: false)
        case .dismissed: return .dismissed(PresentableID(presentable))
        }
    }
}

/// `REPORT`: what changed on a presenter's screen, in order.
public struct Report: Sendable, Hashable, Codable {
    public var req: UInt64
    public var session: String
    public var reports: [PresentableReport]

    public init(req: UInt64, session: String, reports: [PresentableReport]) {
        self.req = req
        self.session = session
        self.reports = reports
    }
}

/// `USER_ACTION`: a person acted on a screen.
public struct UserAction: Sendable, Hashable, Codable {
    public var req: UInt64
    public var session: String
    public var presentable: String
    public var action: Step

    public init(req: UInt64, session: String, presentable: String, action: Step) {
        self.req = req
        self.session = session
        self.presentable = presentable
        self.action = action
    }
}

// The fast path's reader and writer (FastJSONWriter.swift says why they are by hand).
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
    package init(reading reader: inout FastJSONReader) throws(FastPathUnsupported) {
        var session: String?
        var seq: UInt64?
        var command: NavigationCommand?
        try reader.fields(["command", "seq", "session"], depth: 1) { reader, field throws(FastPathUnsupported) in
            switch field {
            case 0: command = try reader.command()
            case 1: seq = try reader.unsigned()
            default: session = try reader.string()
            }
        }
        guard let session, let seq, let command else { throw FastPathUnsupported() }
        self.init(session: session, seq: seq, command: command)
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
        try reader.fields(["seq", "session"], depth: 1) { reader, field throws(FastPathUnsupported) in
            if field == 0 { seq = try reader.unsigned() } else { session = try reader.string() }
        }
        guard let session, let seq else { throw FastPathUnsupported() }
        self.init(session: session, seq: seq)
    }
}
