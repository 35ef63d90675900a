internal import LibC
internal import Logging
import ZeroMQ

/// Keeps the connections from taking flowd's last file descriptors: at `RLIMIT_NOFILE`, libzmq 4.3's IPC listener
/// aborts the process on the next `ipc://` connection (it takes `EMFILE` from `accept` as fatal; docs/LIMITS.md).
///
/// It counts the connections the control and events sockets accepted and lost, from their monitors' events, started
/// before the sockets are bound so that none goes uncounted (nor a burst takes the monitors' own descriptors). When
/// flowd's own descriptors and the connections come within ``reserve`` of the limit, the `ipc://` socket files are
/// moved aside (``SocketFileWatch/withdraw()``): a new client finds no file and keeps dialling, while the listener and
/// every connection stay; once connections closed so that twice the reserve is free, the files are put back. The
/// reserve covers what flowd opens meanwhile (a compaction's files), the connections libzmq accepts before the I/O
/// loop reads the count, and those already queued in a listener's backlog when the file goes: the `ipc://` listeners
/// queue a quarter of the reserve at most (``listenerBacklog(limit:)``), not libzmq's 100, which a burst of
/// connections filled past a small reserve. Clients faster than the loop can still take the whole reserve: then
/// ``AcceptGuard`` closes each connection that comes at the limit, instead of libzmq aborting flowd, and the
/// monitors' `accept failed` event wakes the loop to count and log them. With only `tcp://` endpoints there is no
/// file to move aside: the guard alone closes what comes at the limit.
struct ConnectionBudget {
    /// The soft `RLIMIT_NOFILE` in force.
    let limit: Int
    /// The descriptors flowd holds besides its connections, with the monitors' (``countOwnDescriptors()``).
    private(set) var own = 32
    let reserve: Int
    /// Connections accepted and not yet lost.
    private(set) var connections = 0
    /// Whether the socket files are moved aside now.
    private(set) var withdrawn = false
    /// ``AcceptGuard/closedAtLimit`` when last read; nil when the guard could not be installed.
    private var closedAtLimit: Int?
    private let monitors: [ZMQSocket]

    /// Starts monitoring `sockets` (their accepted and lost connections) in `context`, before they are bound; `nil`
    /// when the limit cannot be read or the sockets cannot be monitored (logged).
    init?(sockets: [(name: String, socket: ZMQSocket)], context: ZMQContext, logger: Logger) {
        guard let limit = DescriptorLimit.current() else { return nil }
        var monitors: [ZMQSocket] = []
        do {
            for (name, socket) in sockets {
                let endpoint = "inproc://flowd-connections-\(name)"
                try socket.startMonitor(at: endpoint, events: [.accepted, .disconnected, .acceptFailed])
                let monitor = try ZMQSocket(.pair, context: context, options: ZMQSocketOptions(heartbeat: nil))
                monitors.append(monitor)
                try monitor.connect(endpoint)
            }
        } catch {
            for monitor in monitors { monitor.close() }
            logger.warning("cannot count connections: nothing keeps them below the descriptor limit",
                metadata: ["error": "\(error)"])
            return nil
        }
        self.monitors = monitors
        self.limit = Int(clamping: limit.soft)
        reserve = Self.reserve(limit: self.limit)
        if AcceptGuard.install() {
            closedAtLimit = AcceptGuard.closedAtLimit
        } else {
            logger.warning("cannot keep a spare descriptor: at the descriptor limit libzmq aborts flowd")
        }
    }

    /// The descriptors kept free below `limit`.
    static func reserve(limit: Int) -> Int { max(16, limit / 8) }

    /// The `ZMQ_BACKLOG` of an `ipc://` listener under `limit`: the kernel queues one more than it, and the two
    /// listeners together queue at most a quarter of the reserve; libzmq's 100 from a limit of about 6 500 on.
    static func listenerBacklog(limit: Int) -> Int32 { Int32(min(100, max(1, reserve(limit: limit) / 8 - 1))) }

    /// The monitors' sockets, for the I/O loop to wait on.
    var sockets: [ZMQSocket] { monitors }

    /// Counts flowd's own descriptors once the sockets are bound: those open less the connections accepted already
    /// (one accepted meanwhile is counted twice, on the safe side).
    mutating func countOwnDescriptors() {
        readEvents()
        if let open = Self.openDescriptors() { own = max(0, open - connections) }
    }

    /// Reads the monitors' events, counts the connections closed at the limit, then withdraws or restores `files`
    /// when the count crossed a threshold.
    mutating func update(_ files: inout SocketFileWatches, core: inout DaemonCore, logger: Logger) {
        readEvents()
        if let before = closedAtLimit, case let now = AcceptGuard.closedAtLimit, now > before {
            closedAtLimit = now
            core.counters.connectionsClosedAtLimit += now - before
            logger.warning(
                "at the file descriptor limit: new connections are closed as they come",
                metadata: ["closed": "\(now - before)", "connections": "\(connections)", "limit": "\(limit)"])
        }
        guard !files.isEmpty else { return }  // only `tcp://` endpoints: the guard alone holds the limit
        let used = own + connections
        if !withdrawn, used >= limit - reserve {
            withdrawn = true
            files.withdraw()
            core.counters.socketFilesWithdrawn += 1
            logger.warning(
                "near the file descriptor limit: the ipc:// socket files are moved aside until connections close",
                metadata: ["connections": "\(connections)", "limit": "\(limit)"])
        } else if withdrawn, used < limit - 2 * reserve {
            withdrawn = false
            files.restore(logger: logger)
            logger.notice(
                "below the file descriptor limit again: the ipc:// socket files are back",
                metadata: ["connections": "\(connections)", "limit": "\(limit)"])
        }
    }

    func close() {
        for monitor in monitors { monitor.close() }
    }

    private mutating func readEvents() {
        for monitor in monitors {
            while let message = try? monitor.tryReceive(), let event = ZMQMonitorEvent(message) {
                if event.kind == .accepted { connections += 1 }
                if event.kind == .disconnected { connections = max(0, connections - 1) }
            }
        }
    }

    /// The number of descriptors open, from `/proc/self/fd`.
    private static func openDescriptors() -> Int? {
        guard let folder = opendir("/proc/self/fd") else { return nil }
        defer { closedir(folder) }
        var count = -1  // the folder's own descriptor
        while let entry = readdir(folder) {
            if entry.pointee.d_name.0 != 46 { count += 1 }  // not "." or ".."
        }
        return count
    }
}
