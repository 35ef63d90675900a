internal import LibC
internal import FlowWire
internal import Logging
import ZeroMQ

/// The daemon's ZeroMQ context and sockets, bound: the control ROUTER, the events XPUB, the ZAP handler's socket
/// (with CURVE) and the reactor that polls them. Owned by the I/O thread.
struct DaemonSockets {
    let context: ZMQContext
    let router: ZMQSocket
    /// An XPUB, not a PUB (subscribers cannot tell): it reports subscriptions, so the core builds no events while
    /// nobody watches.
    let publisher: ZMQSocket
    /// The ZAP handler's socket, with CURVE.
    let zap: ZMQSocket?
    /// The I/O thread's poll loop; other threads wake it through its signal.
    let reactor: ZMQReactor
    let bound: BoundEndpoints
    /// The `ipc://` socket files this daemon bound, as bound (libzmq's wildcard `ipc://*` resolved to a file in a
    /// folder libzmq made for it): libzmq leaves a named one behind, ``close()`` removes them.
    private let ipcFiles: [(path: String, wildcard: Bool)]
    /// The same files, as bound, with their sockets: the I/O loop binds a removed one again.
    let socketFiles: [(watch: SocketFileWatch, socket: ZMQSocket)]
    /// The connections counted against the descriptor limit, when there are socket files to move aside near it (only
    /// libzmq's IPC listener aborts at the limit; over tcp:// a new connection waits instead).
    let budget: ConnectionBudget?

    /// Creates the context and binds every socket; on failure closes what it made.
    init(configuration: DaemonServer.Configuration, logger: Logger) throws {
        let context = try ZMQContext()
        var opened: [ZMQSocket] = []
        var ipcFiles: [(path: String, wildcard: Bool)] = []
        var budget: ConnectionBudget?
        do {
            // With CURVE, the ZAP handler is bound first (libzmq asks it from the first handshake on), in this context.
            let security = configuration.security
            if security != nil {
                let socket = try ZMQSocket(.router, context: context, options: ZMQSocketOptions(heartbeat: nil))
                opened.append(socket)
                try socket.bind(ZAPHandler.endpoint)
                zap = socket
            } else {
                zap = nil
            }
            var routerOptions = configuration.socketOptions
            var publisherOptions = configuration.socketOptions
            if let security {
                let secretKey = security.keyPair.secretKey
                routerOptions.curve = .server(secretKey: secretKey, zapDomain: AccessPolicy.controlDomain)
                publisherOptions.curve = .server(secretKey: secretKey, zapDomain: AccessPolicy.eventsDomain)
            }
            let router = try ZMQSocket(.router, context: context, options: routerOptions)
            opened.append(router)
            let publisher = try ZMQSocket(.xpub, context: context, options: publisherOptions)
            opened.append(publisher)
            // A subscriber's full queue is seen, so that what it misses is counted (`Driver.publish`).
            try publisher.setOption(.xpubNoDrop, to: true)
            let endpoints = [configuration.controlEndpoint, configuration.eventsEndpoint]
            // Over `tcp://` too: at the limit, libzmq's TCP listener retries `accept` without end (a busy core).
            budget = ConnectionBudget(
                sockets: [("control", router), ("events", publisher)], context: context, logger: logger)
            // An ipc:// listener's queue is bounded by the descriptor reserve: libzmq accepts what is queued when
            // the files are moved aside near the limit (ConnectionBudget).
            if let limit = DescriptorLimit.current() {
                let backlog = ConnectionBudget.listenerBacklog(limit: Int(clamping: limit.soft))
                for (socket, endpoint) in zip([router, publisher], endpoints) where endpoint.hasPrefix("ipc://") {
                    try socket.setOption(.backlog, to: backlog)
                }
            }
            try router.bind(configuration.controlEndpoint)
            // The files as bound: libzmq's wildcard (`ipc://*`) names its file only in the bound endpoint.
            let control = try router.option(.lastEndpoint)
            ipcFiles += Self.file(bound: control, configured: configuration.controlEndpoint)
            try publisher.bind(configuration.eventsEndpoint)
            let events = try publisher.option(.lastEndpoint)
            ipcFiles += Self.file(bound: events, configured: configuration.eventsEndpoint)
            // Only this user may connect to the ipc:// socket files (docs/SECURITY.md).
            for (path, _) in ipcFiles where chmod(path, 0o600) != 0 {
                logger.warning(
                    "cannot restrict the socket file's mode", metadata: ["path": "\(path)", "errno": "\(errno)"])
            }
            bound = BoundEndpoints(control: control, events: events)
            reactor = try ZMQReactor()
            socketFiles = [
                SocketFileWatch(name: "control", endpoint: control).map { ($0, router) },
                SocketFileWatch(name: "events", endpoint: events).map { ($0, publisher) },
            ].compactMap { $0 }
            budget?.countOwnDescriptors()
            self.budget = budget
            self.router = router
            self.publisher = publisher
        } catch {
            budget?.close()
            for socket in opened.reversed() { socket.close() }
            context.shutdown()
            Self.remove(ipcFiles)
            throw error
        }
        self.context = context
        self.ipcFiles = ipcFiles
    }

    /// Closes the sockets and the context, then removes the `ipc://` socket files.
    func close() {
        budget?.close()
        reactor.close()
        publisher.close()
        router.close()
        zap?.close()
        context.shutdown()
        Self.remove(ipcFiles)
    }

    /// The socket file of the `bound` endpoint, if it has one, and whether libzmq named it (`configured` is the
    /// wildcard).
    private static func file(bound: String, configured: String) -> [(path: String, wildcard: Bool)] {
        PathParts.socketFile(ofEndpoint: bound).map { [($0, configured == "ipc://*")] } ?? []
    }

    /// Removes the socket files (and one moved aside near the descriptor limit), with a wildcard's folder: libzmq
    /// removes those itself as it closes, but not a file moved aside or bound again meanwhile.
    private static func remove(_ files: [(path: String, wildcard: Bool)]) {
        for (path, wildcard) in files {
            unlink(path)
            unlink(SocketFileWatch.withdrawnPath(of: path))
            if wildcard { rmdir(PathParts.folder(of: path)) }
        }
    }
}

/// Which topics of the events XPUB have subscribers, from the subscription messages it reports.
struct EventSubscriptions {
    private var topics: Set<[UInt8]> = []

    /// Whether any topic has a subscriber.
    var isWatched: Bool { !topics.isEmpty }

    /// Reads the subscription messages waiting on `publisher`: `\u{1}topic` when a topic gets its first subscriber,
    /// `\u{0}topic` when its last one leaves.
    mutating func read(from publisher: ZMQSocket) throws {
        while let message = try publisher.tryReceive() {
            guard let frame = message.frames.first, let kind = frame.first else { continue }
            if kind == 1 { topics.insert(Array(frame.dropFirst())) }
            if kind == 0 { topics.remove(Array(frame.dropFirst())) }
        }
    }
}
