public import FlowCore

/// A request naming nothing but its number (`HEALTH`).
public struct PlainRequest: Sendable, Hashable, Codable {
    public var req: UInt64
    public init(req: UInt64) { self.req = req }
}

/// `DESCRIBE`: the vocabulary of the application a session runs (its version's), or (`session` absent) of the one
/// new sessions get.
public struct DescribeRequest: Sendable, Hashable, Codable {
    public var req: UInt64
    public var session: String?
    public init(req: UInt64, session: String? = nil) {
        self.req = req
        self.session = session
    }
}

/// `SESSIONS`: one page of the sessions, sorted by ID (§7.3).
public struct SessionsRequest: Sendable, Hashable, Codable {
    /// The sessions in a page when the request names no `limit`.
    public static let defaultLimit = 500
    /// The most sessions in a page; a larger `limit` is taken as this.
    public static let maxLimit = 2000

    public var req: UInt64
    /// The page starts after this ID (the previous page's `next`); `nil`: at the first session.
    public var after: String?
    /// The most sessions in the page (1 or more; ``defaultLimit`` when `nil`, at most ``maxLimit``).
    public var limit: Int?
    /// Only the sessions whose ID starts with this.
    public var prefix: String?

    public init(req: UInt64, after: String? = nil, limit: Int? = nil, prefix: String? = nil) {
        self.req = req
        self.after = after
        self.limit = limit
        self.prefix = prefix
    }
}

/// A request about one session (`TREE`, `CREATE_SESSION`, `END_SESSION`).
public struct SessionRequest: Sendable, Hashable, Codable {
    public var req: UInt64
    public var session: String

    public init(req: UInt64, session: String) {
        self.req = req
        self.session = session
    }
}

/// `DEEPLINK`: an operator injects a step into a session's whole tree, or opens a URI deep link (its chain of steps,
/// each once the flows it needs are ready). Exactly one of `step` and `uri`.
public struct DeepLinkRequest: Sendable, Hashable, Codable {
    public var req: UInt64
    public var session: String
    public var step: Step?
    public var uri: String?
}

// In an extension, so that both go through the memberwise initializer Swift writes.
extension DeepLinkRequest {
    public init(req: UInt64, session: String, step: Step) {
        self.init(req: req, session: session, step: step, uri: nil)
    }

    public init(req: UInt64, session: String, uri: String) {
        self.init(req: req, session: session, step: nil, uri: uri)
    }
}

// MARK: - Events (operators watching)

/// `EVENT`: one navigation event on the watch stream.
public struct EventMessage: Sendable, Hashable, Codable {
    /// `will`, `did` or `drop`.
    public var event: String
    public var session: String
    /// The flow and coordinator, `null` when unknown (§9).
    @Nullable public var flow: String?
    @Nullable public var coordinator: Int?
    public var step: Step
    /// Only for a drop.
    public var reason: String?
    public var text: String

    public init(
        event: String, session: String, flow: String?, coordinator: Int?, step: Step, reason: String? = nil,
        text: String
    ) {
        self.event = event
        self.session = session
        self.flow = flow
        self.coordinator = coordinator
        self.step = step
        self.reason = reason
        self.text = text
    }
}

// The fast path's reader and writer (FastJSONWriter.swift says why they are by hand).
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
