internal import LibC
internal import FlowWire
internal import Logging
import ZeroMQ

/// The `ipc://` socket file one of the daemon's sockets bound, looked at once per heartbeat: a cleaner of `/tmp` or an
/// `rm` may remove it while flowd runs, and then no new client can connect (docs/LIMITS.md, "Socket files removed").
///
/// A removed file is bound again on the same socket. libzmq 4.3 allows it (its IPC listener unlinks the path and binds
/// a second listener); the first listener keeps its descriptor and the connections it accepted, which `zmq_unbind`
/// would close, so it is left alone. A file that is there but is not the one flowd bound (another process bound the
/// path) is logged and left: binding it back would take the path from that process, which may do the same.
struct SocketFileWatch {
    /// Which of the daemon's sockets, as counted (`control`, `events`).
    let name: String
    let endpoint: String
    let path: String
    /// The file flowd bound last: its device and inode.
    private var bound: FileIdentity?
    /// What was last logged as wrong, so that each problem is logged once, not at every heartbeat.
    private var reported: String?
    /// Whether the file is moved aside (``withdraw()``): then it is not bound again.
    private var withdrawn = false

    private struct FileIdentity: Equatable {
        let device: UInt64
        let inode: UInt64
    }

    /// Watches the file of `endpoint`, just bound (as bound: libzmq's wildcard `ipc://*` resolved to its file);
    /// `nil` for an endpoint that names no file (``PathParts/socketFile(ofEndpoint:)``).
    init?(name: String, endpoint: String) {
        guard let path = PathParts.socketFile(ofEndpoint: endpoint) else { return nil }
        self.name = name
        self.endpoint = endpoint
        self.path = path
        bound = Self.identity(of: path)
    }

    /// Binds `socket` to the endpoint again when its file is gone, and makes it this user's only (mode 0600, as at
    /// start). Returns whether it did; logs a warning when it did, an error (once) when it could not.
    mutating func check(rebinding socket: ZMQSocket, logger: Logger) -> Bool {
        guard !withdrawn else { return false }
        var info = stat()
        if stat(path, &info) == 0 {
            let found = FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
            if found == bound {
                reported = nil
            } else {
                report(
                    "replaced",
                    "the socket file is another than the one flowd bound (another process bound the path?): new "
                        + "clients reach that process; stop it, then remove the file, and flowd binds it again",
                    logger: logger)
            }
            return false
        }
        guard errno == ENOENT else {
            report("stat \(errno)", "cannot look at the socket file", errno: errno, logger: logger)
            return false
        }
        // A cleaner may take the folder too: made again as at start (this user's, mode 0700), and judged as then.
        let folder = PathParts.folder(of: path)
        if mkdir(folder, 0o700) != 0, errno != EEXIST {
            report("mkdir \(errno)", "cannot make the socket file's folder again", errno: errno, logger: logger)
            return false
        }
        if case .foreignOwner(let owner) = SocketFolderCheck(folder: folder) {
            report(
                "foreign \(owner)",
                "the socket file's folder now belongs to uid \(owner): flowd does not bind in it again", logger: logger)
            return false
        }
        do {
            try socket.bind(endpoint)
        } catch {
            report("bind \(error.code)", "cannot bind the removed socket file again: \(error)", logger: logger)
            return false
        }
        if chmod(path, 0o600) != 0 {
            logger.warning("cannot restrict the socket file's mode", metadata: ["path": "\(path)", "errno": "\(errno)"])
        }
        bound = Self.identity(of: path)
        reported = nil
        logger.warning(
            "the socket file was removed while flowd ran: bound again; new clients connect, connected ones stay",
            metadata: ["socket": "\(name)", "path": "\(path)"])
        return true
    }

    /// Where ``withdraw()`` moves the file of `path`.
    static func withdrawnPath(of path: String) -> String { path + ".withdrawn" }

    /// Moves the file aside, so that no new client finds it; the listener and its connections stay.
    mutating func withdraw() {
        withdrawn = true
        rename(path, Self.withdrawnPath(of: path))
    }

    /// Puts the file back, or binds it again when it is gone meanwhile; returns whether it bound again.
    mutating func restore(rebinding socket: ZMQSocket, logger: Logger) -> Bool {
        withdrawn = false
        if access(path, F_OK) != 0 { rename(Self.withdrawnPath(of: path), path) }
        return check(rebinding: socket, logger: logger)
    }

    /// Logs `message` at error unless the same problem (`key`) was the last one logged.
    private mutating func report(_ key: String, _ message: String, errno code: Int32? = nil, logger: Logger) {
        guard reported != key else { return }
        reported = key
        var metadata: Logger.Metadata = ["socket": "\(name)", "path": "\(path)"]
        if let code { metadata["errno"] = "\(code)" }
        logger.error("\(message)", metadata: metadata)
    }

    private static func identity(of path: String) -> FileIdentity? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }
}

/// The daemon's watched socket files with the sockets that bound them, looked at once per heartbeat interval of the
/// daemon's clock (from the I/O loop's tick).
struct SocketFileWatches {
    private var watches: [(watch: SocketFileWatch, socket: ZMQSocket)]
    private let intervalMs: UInt64
    private var nextCheck: UInt64

    init(_ watches: [(watch: SocketFileWatch, socket: ZMQSocket)], intervalMs: UInt64, now: UInt64) {
        self.watches = watches
        self.intervalMs = intervalMs
        nextCheck = now + intervalMs
    }

    /// Whether there is no file to watch (every endpoint is `tcp://`).
    var isEmpty: Bool { watches.isEmpty }

    /// Moves every file aside (``SocketFileWatch/withdraw()``).
    mutating func withdraw() {
        for index in watches.indices { watches[index].watch.withdraw() }
    }

    /// Puts every file back (``SocketFileWatch/restore(rebinding:logger:)``).
    mutating func restore(logger: Logger) {
        for index in watches.indices {
            let socket = watches[index].socket
            _ = watches[index].watch.restore(rebinding: socket, logger: logger)
        }
    }

    /// Checks each file when due, binding again those removed; counts each such bind in the core's counters
    /// (`socket_files_rebound`).
    mutating func checkIfDue(now: UInt64, core: inout DaemonCore, logger: Logger) {
        guard now >= nextCheck, !watches.isEmpty else { return }
        nextCheck = now + intervalMs
        for index in watches.indices {
            let socket = watches[index].socket
            if watches[index].watch.check(rebinding: socket, logger: logger) {
                core.counters.socketFilesRebound[watches[index].watch.name, default: 0] += 1
            }
        }
    }
}
