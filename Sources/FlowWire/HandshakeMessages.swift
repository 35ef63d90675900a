public import FlowCore

/// A client's role (`docs/PROTOCOL.md` §3).
public enum PeerRole: String, Sendable, Hashable, Codable, CaseIterable {
    case stepper
    case presenter
    case `operator`
}

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
    @Nullable public var req: UInt64?
    public var code: WireError.Code
    public var message: String
    @Nullable public var type: String?

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
}

// The fast path's reader and writer (FastJSONWriter.swift says why they are by hand).
extension Welcome {
    func write(to writer: inout FastJSONWriter) {
        writer.raw("{\"daemon\":")
        writer.string(daemon)
        writer.raw(",\"heartbeat_ms\":")
        writer.int(heartbeatMs)
        writer.raw(",\"peer\":")
        writer.string(peer)
        writer.raw(",\"protocol\":")
        writer.int(`protocol`)
        writer.raw(",\"req\":")
        writer.unsigned(req)
        writer.raw("}")
    }
}

extension Heartbeat {
    /// What a client's heartbeat (no sessions) is written as: read back without `JSONDecoder`.
    static let emptyBody = Array(#"{"sessions":{}}"#.utf8)

    /// The sessions in `JSONEncoder`'s sorted order (by UTF-8 bytes).
    func write(to writer: inout FastJSONWriter) {
        writer.raw("{\"sessions\":{")
        if sessions.count == 1, let (session, seq) = sessions.first {
            writer.string(session)
            writer.raw(":")
            writer.unsigned(seq)
        } else if !sessions.isEmpty {
            let sorted = sessions.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            for (index, session) in sorted.enumerated() {
                if index > 0 { writer.raw(",") }
                writer.string(session)
                writer.raw(":")
                writer.unsigned(sessions[session]!)
            }
        }
        writer.raw("}}")
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
        try reader.fields(["req", "result"], depth: 1) { reader, field throws(FastPathUnsupported) in
            if field == 0 {
                req = try reader.unsigned()
            } else {
                // Every accepted step's verdict: the shared value, not a dictionary made and freed for each reply.
                result = reader.read(verbatim: #"{"accepted":true}"#) ? StepVerdict.acceptedJSON : try reader.value(depth: 1)
            }
        }
        guard let req else { throw FastPathUnsupported() }
        self.init(req: req, result: result == nil || result == .null ? [:] : result!)
    }
}
