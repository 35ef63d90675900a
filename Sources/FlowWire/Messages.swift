public import FlowCore

/// A client's role (`docs/PROTOCOL.md` §3).
public enum PeerRole: String, Sendable, Hashable, Codable, CaseIterable {
    case stepper
    case presenter
    case `operator`
}

// MARK: - Handshake and liveness

/// `HELLO`: the first message of every connection.
public struct Hello: Sendable, Hashable, Codable {
    public var req: UInt64
    public var role: PeerRole
    public var name: String
    public var instance: String
    public var heartbeatMs: Int
    /// Stepper kinds served (steppers only).
    public var serves: [String]
    /// Whether the process answers `ADAPT` for the kinds it serves (steppers only; written only when `true`).
    public var adapts: Bool

    public init(
        req: UInt64, role: PeerRole, name: String, instance: String, heartbeatMs: Int, serves: [String] = [],
        adapts: Bool = false
    ) {
        self.req = req
        self.role = role
        self.name = name
        self.instance = instance
        self.heartbeatMs = heartbeatMs
        self.serves = serves
        self.adapts = adapts
    }

    enum CodingKeys: String, CodingKey {
        case req, role, name, instance, serves, adapts
        case heartbeatMs = "heartbeat_ms"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(req, forKey: .req)
        try container.encode(role, forKey: .role)
        try container.encode(name, forKey: .name)
        try container.encode(instance, forKey: .instance)
        try container.encode(heartbeatMs, forKey: .heartbeatMs)
        try container.encode(serves, forKey: .serves)
        if adapts { try container.encode(adapts, forKey: .adapts) }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        req = try container.decode(UInt64.self, forKey: .req)
        role = try container.decode(PeerRole.self, forKey: .role)
        name = try container.decode(String.self, forKey: .name)
        instance = try container.decode(String.self, forKey: .instance)
        heartbeatMs = try container.decode(Int.self, forKey: .heartbeatMs)
        serves = try container.decodeIfPresent([String].self, forKey: .serves) ?? []
        adapts = try container.decodeIfPresent(Bool.self, forKey: .adapts) ?? false
    }
}

/// `WELCOME`: the daemon's answer to `HELLO`.
public struct Welcome: Sendable, Hashable, Codable {
    public var req: UInt64
    public var peer: String
    public var daemon: String
    public var heartbeatMs: Int
    public var `protocol`: Int

    public init(req: UInt64, peer: String, daemon: String, heartbeatMs: Int, protocol: Int = WireProtocol.version) {
        self.req = req
        self.peer = peer
        self.daemon = daemon
        self.heartbeatMs = heartbeatMs
        self.protocol = `protocol`
    }

    enum CodingKeys: String, CodingKey {
        case req, peer, daemon, `protocol`
        case heartbeatMs = "heartbeat_ms"
    }
}

/// `HEARTBEAT`: a sign of life; from the daemon to a presenter, the latest sequence number of each hosted session.
public struct Heartbeat: Sendable, Hashable, Codable {
    public var sessions: [String: UInt64]

    public init(sessions: [String: UInt64] = [:]) { self.sessions = sessions }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard container.contains(.sessions), try !container.decodeNil(forKey: .sessions) else {
            sessions = [:]
            return
        }
        // Entry by entry in key order: JSONDecoder walks a dictionary in an order that differs between decodes, and
        // the first bad entry names the error, which must be the same for the same bytes.
        let entries = try container.nestedContainer(keyedBy: SessionKey.self, forKey: .sessions)
        var sessions: [String: UInt64] = [:]
        for key in entries.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) {
            sessions[key.stringValue] = try entries.decode(UInt64.self, forKey: key)
        }
        self.sessions = sessions
    }

    private struct SessionKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

/// `OK`: a request succeeded.
public struct OKReply: Sendable, Hashable, Codable {
    public var req: UInt64
    public var result: JSONValue

    public init(req: UInt64, result: JSONValue = [:]) {
        self.req = req
        self.result = result
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        req = try container.decode(UInt64.self, forKey: .req)
        result = try container.decodeIfPresent(JSONValue.self, forKey: .result) ?? [:]
    }
}

/// `ERROR`: a request failed, or a message broke the protocol.
public struct ErrorReply: Sendable, Hashable, Codable {
    public var req: UInt64?
    public var code: WireError.Code
    public var message: String
    public var type: String?

    public init(req: UInt64?, code: WireError.Code, message: String, type: String?) {
        self.req = req
        self.code = code
        self.message = message
        self.type = type
    }

    /// The reply for a wire error.
    public init(_ error: WireError) {
        self.init(req: error.req, code: error.code, message: error.message, type: error.type?.rawValue)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(req, forKey: .req)
        try container.encode(code, forKey: .code)
        try container.encode(message, forKey: .message)
        try container.encode(type, forKey: .type)
    }
}

// MARK: - Steppers

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

// MARK: - Presenters

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
