public import FlowCore
public import FlowWire
import Logging

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// One session as `SESSIONS` lists it.
public struct SessionSummary: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The session ID.
    public var id: String
    /// How many flows (coordinators) its tree has.
    public var flows: Int
    /// The name of the presenter hosting it, if one does.
    public var presenter: String?
    /// Its last command sequence number.
    public var seq: UInt64
    /// How many steppers are attached in its tree.
    public var steppers: Int

    public init(id: String, flows: Int, presenter: String?, seq: UInt64, steppers: Int) {
        self.id = id
        self.flows = flows
        self.presenter = presenter
        self.seq = seq
        self.steppers = steppers
    }

    /// `default flows=9 presenter=tui seq=57 steppers=4`.
    public var description: String {
        "\(id) flows=\(flows) presenter=\(presenter ?? "-") seq=\(seq) steppers=\(steppers)"
    }
}

/// A session's flow tree as `TREE` returns it.
public struct TreeReport: Sendable, Hashable {
    /// The tree, when its JSON decodes as the `TREE` result's schema (``FlowWire/WireTree``).
    public var tree: WireTree?
    /// The daemon's readable rendering, one line per flow and stepper.
    public var text: String
    /// The tree's JSON as the daemon sent it.
    public var json: JSONValue

    public init(tree: WireTree?, text: String, json: JSONValue) {
        self.tree = tree
        self.text = text
        self.json = json
    }
}

/// The daemon's health as `HEALTH` returns it.
public struct HealthReport: Sendable, Hashable {
    /// `ok` when the daemon serves.
    public var status: String
    /// The daemon's run ID.
    public var daemon: String
    /// Seconds since the daemon started.
    public var uptimeSeconds: Double
    /// How many sessions it holds.
    public var sessions: Int
    /// Connected clients by role (`stepper`, `presenter`, `operator`).
    public var peers: [String: Int]
    /// The daemon's counters (messages, errors by code, …).
    public var counters: JSONValue
    /// The whole result as the daemon sent it.
    public var json: JSONValue

    public init(
        status: String, daemon: String, uptimeSeconds: Double, sessions: Int, peers: [String: Int],
        counters: JSONValue, json: JSONValue
    ) {
        self.status = status
        self.daemon = daemon
        self.uptimeSeconds = uptimeSeconds
        self.sessions = sessions
        self.peers = peers
        self.counters = counters
        self.json = json
    }
}

/// An operator's side of the protocol (what `flowctl` uses): requests about sessions and trees, deep links, and the
/// navigation event stream.
///
/// ```swift
/// let sessions = try await OperatorClient.withConnection { client in try await client.sessions() }
/// for try await event in OperatorClient().watch(session: "default") { print(event.text) }
/// ```
///
/// The requests need ``run()`` going (``withConnection(name:configuration:_:)`` runs it around a body); a request
/// made before the connection is up waits for it, as long as ``FlowClientConfiguration/requestTimeout`` allows.
/// ``watch(session:)`` needs no connection: it subscribes to the events endpoint on its own.
///
/// `Sendable`: requests may be made from any task.
public final class OperatorClient: Sendable {
    /// The client's name in `HELLO`.
    public let name: String
    /// The client's settings.
    public let configuration: FlowClientConfiguration
    private let connection: FlowConnection

    /// An operator client. The default name is unique to the process (`operator-<pid>`), as two live operators with
    /// the same name would replace each other.
    public init(name: String? = nil, configuration: FlowClientConfiguration = FlowClientConfiguration()) {
        let name = name ?? "operator-\(getpid())"
        self.name = name
        self.configuration = configuration
        connection = FlowConnection(role: .operator, name: name, configuration: configuration)
    }

    /// Connects and stays connected until cancelled (then says `BYE`).
    ///
    /// - Throws: ``FlowClientError`` when the client cannot work at all (an invalid name, a malformed endpoint),
    ///   ``DaemonError`` when the daemon refuses the `HELLO`.
    public func run() async throws {
        try await connection.run { _ in }
    }

    /// Runs a client around `body`: connects, runs `body`, then says `BYE` and closes.
    ///
    /// - Throws: what `body` throws, or the error that stopped the client.
    public static func withConnection<Result>(
        name: String? = nil,
        configuration: FlowClientConfiguration = FlowClientConfiguration(),
        _ body: (OperatorClient) async throws -> Result
    ) async throws -> Result {
        let client = OperatorClient(name: name, configuration: configuration)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await client.run() }
            let result: Result
            do {
                result = try await body(client)
            } catch {
                group.cancelAll()
                try await group.waitForAll()  // the client's own error explains a `stopped` best
                throw error
            }
            group.cancelAll()
            try await group.waitForAll()
            return result
        }
    }

    // MARK: - Requests

    /// Every session (`SESSIONS`).
    public func sessions() async throws -> [SessionSummary] {
        let result = try await connection.request { req in .sessions(PlainRequest(req: req)) }
        guard case .object(let fields) = result, let list = fields["sessions"] else {
            throw FlowClientError(.badReply, "the OK to SESSIONS has no 'sessions': \(result)")
        }
        do {
            return try list.decode([SessionSummary].self)
        } catch {
            throw FlowClientError(.badReply, "the sessions in the OK to SESSIONS do not decode: \(error)")
        }
    }

    /// A session's flow tree (`TREE`).
    public func tree(session: String = "default") async throws -> TreeReport {
        let result = try await connection.request { req in .tree(SessionRequest(req: req, session: session)) }
        guard case .object(let fields) = result, let json = fields["tree"] else {
            throw FlowClientError(.badReply, "the OK to TREE has no 'tree': \(result)")
        }
        let tree = try? json.decode(WireTree.self)
        let text = fields["text"]?.stringValue ?? ""
        return TreeReport(tree: tree, text: text, json: json)
    }

    /// Offers `step` to every flow of a session's tree, parent first (`DEEPLINK`, RxFlow's `navigate(to:)`).
    ///
    /// - Returns: how many flows navigated.
    @discardableResult
    public func deepLink(session: String = "default", step: Step) async throws -> Int {
        let result = try await connection.request { req in
            .deepLink(DeepLinkRequest(req: req, session: session, step: step))
        }
        guard case .object(let fields) = result, let navigations = fields["navigations"]?.intValue else {
            throw FlowClientError(.badReply, "the OK to DEEPLINK has no 'navigations': \(result)")
        }
        return navigations
    }

    /// Creates a session (`CREATE_SESSION`).
    ///
    /// - Returns: `true` when it was created, `false` when it existed already.
    @discardableResult
    public func createSession(_ session: String) async throws -> Bool {
        let result = try await connection.request { req in .createSession(SessionRequest(req: req, session: session)) }
        guard case .object(let fields) = result, case .bool(let created)? = fields["created"] else {
            throw FlowClientError(.badReply, "the OK to CREATE_SESSION has no 'created': \(result)")
        }
        return created
    }

    /// The daemon's health (`HEALTH`).
    public func health() async throws -> HealthReport {
        let result = try await connection.request { req in .health(PlainRequest(req: req)) }
        guard case .object(let fields) = result, let status = fields["status"]?.stringValue else {
            throw FlowClientError(.badReply, "the OK to HEALTH has no 'status': \(result)")
        }
        var peers: [String: Int] = [:]
        if case .object(let counts)? = fields["peers"] {
            for (role, count) in counts { peers[role] = count.intValue ?? 0 }
        }
        let uptime: Double
        switch fields["uptime_s"] {
        case .double(let value)?: uptime = value
        case .int(let value)?: uptime = Double(value)
        default: uptime = 0
        }
        return HealthReport(
            status: status, daemon: fields["daemon"]?.stringValue ?? "", uptimeSeconds: uptime,
            sessions: fields["sessions"]?.intValue ?? 0, peers: peers, counters: fields["counters"] ?? .null,
            json: result
        )
    }

    /// What the running application declares it speaks (`DESCRIBE`): steps, stepper kinds, screen types.
    public func describe() async throws -> ApplicationVocabulary {
        let result = try await connection.request { req in .describe(PlainRequest(req: req)) }
        do {
            return try result.decode(ApplicationVocabulary.self)
        } catch {
            throw FlowClientError(.badReply, "the OK to DESCRIBE does not decode: \(error)")
        }
    }

    // MARK: - Events

    /// The navigation events of one session (`nav/<session>`), or of every session, from the events endpoint.
    ///
    /// The subscription starts when iteration starts; events published before it are not seen, and the daemon may
    /// drop events under load (`docs/PROTOCOL.md` §9).
    public func watch(session: String? = nil) -> FlowEvents {
        FlowEvents(
            endpoint: configuration.endpoints.events, session: session, options: configuration.connectionSocketOptions,
            logger: configuration.logger
        )
    }
}
