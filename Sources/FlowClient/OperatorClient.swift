public import FlowCore
public import FlowWire
import Logging
internal import LibC

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
        try await connection.run(inline: { _ in })
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

    /// Every session whose ID starts with `prefix`, sorted by ID: `SESSIONS` page after page.
    public func sessions(prefix: String? = nil) async throws -> [SessionSummary] {
        var all: [SessionSummary] = []
        var after: String?
        repeat {
            let page = try await sessions(after: after, limit: SessionsRequest.maxLimit, prefix: prefix)
            all += page.sessions
            after = page.next
        } while after != nil
        return all
    }

    /// One page of the sessions (`SESSIONS`, docs/PROTOCOL.md §7.3): up to `limit` (the daemon's default when `nil`)
    /// sessions after the ID `after`, whose IDs start with `prefix`; its `next` is the `after` of the next page.
    public func sessions(after: String?, limit: Int? = nil, prefix: String? = nil) async throws -> SessionList {
        try await connection.request(SessionList.self) { req in
            .sessions(SessionsRequest(req: req, after: after, limit: limit, prefix: prefix))
        }
    }

    /// A session's flow tree (`TREE`).
    public func tree(session: String = "default") async throws -> TreeReport {
        try await connection.request(TreeReport.self) { req in .tree(SessionRequest(req: req, session: session)) }
    }

    /// Offers `step` to every flow of a session's tree, parent first (`DEEPLINK`, RxFlow's `navigate(to:)`).
    ///
    /// - Returns: how many flows navigated.
    @discardableResult
    public func deepLink(session: String = "default", step: Step) async throws -> Int {
        try await connection.request(DeepLinkResult.self) { req in
            .deepLink(DeepLinkRequest(req: req, session: session, step: step))
        }.navigations
    }

    /// Opens a URI deep link in a session (`DEEPLINK` with a `uri`): the daemon applies its chain of steps, each once
    /// the flows it needs are ready, and answers when the chain is applied (docs/PROTOCOL.md §7).
    ///
    /// - Returns: the steps applied and skipped, and how many flows navigated.
    /// - Throws: ``FlowClientError`` with `unknownDeepLink` for a URI the application does not map, or
    ///   `deepLinkIncomplete` when a step's flows were not ready in time (its message names the step and why).
    @discardableResult
    public func open(session: String = "default", uri: String) async throws -> DeepLinkResult {
        try await connection.request(DeepLinkResult.self) { req in
            .deepLink(DeepLinkRequest(req: req, session: session, uri: uri))
        }
    }

    /// Creates a session (`CREATE_SESSION`).
    ///
    /// - Returns: `true` when it was created, `false` when it existed already.
    @discardableResult
    public func createSession(_ session: String) async throws -> Bool {
        try await connection.request(CreateSessionResult.self) { req in
            .createSession(SessionRequest(req: req, session: session))
        }.created
    }

    /// Ends a session (`END_SESSION`): its presenter is told, its steppers detached, its state dropped for good.
    ///
    /// - Returns: what the session was when it ended.
    /// - Throws: ``DaemonError`` `unknownSession` when there is no such session (never was, or ended already).
    @discardableResult
    public func endSession(_ session: String) async throws -> EndSessionResult {
        try await connection.request(EndSessionResult.self) { req in
            .endSession(SessionRequest(req: req, session: session))
        }
    }

    /// The daemon's health (`HEALTH`).
    public func health() async throws -> HealthReport {
        try await connection.request(HealthReport.self) { req in .health(PlainRequest(req: req)) }
    }

    /// What the running application declares it speaks (`DESCRIBE`): steps, stepper kinds, screen types; those of
    /// the version `session` runs when given (a daemon that runs a flow file), of the one new sessions get otherwise.
    public func describe(session: String? = nil) async throws -> ApplicationVocabulary {
        try await connection.request(ApplicationVocabulary.self) { req in
            .describe(DescribeRequest(req: req, session: session))
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
