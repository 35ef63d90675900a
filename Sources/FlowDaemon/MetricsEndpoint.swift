#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
public import Logging
public import ServiceLifecycle
import Synchronization
import ZeroMQ

/// A metrics address that cannot be used: not `host:port`, or a socket that could not be set up.
public struct MetricsEndpointError: Error, CustomStringConvertible, Sendable {
    public let address: String
    public let reason: String
    public var description: String { "metrics endpoint \(address): \(reason)" }
}

/// A minimal HTTP/1.1 responder for Prometheus scrapes: `GET /metrics` answers `200` with the text `render` makes
/// (`Content-Type: text/plain; version=0.0.4`), any other well-formed request `404`, a malformed one `400`, a request
/// head larger than ``Limits/maxRequestBytes`` `431`. Every response closes its connection (`Connection: close`).
///
/// ## Threading and robustness
/// The listening socket is bound by ``init(address:limits:logger:render:)`` (so a bad address fails at start-up and
/// ``port`` is known at once). ``run()`` serves on one dedicated OS thread: non-blocking sockets in one `poll(2)`
/// loop, so a client that sends slowly or nothing at all holds only its own connection, never the next client's.
/// Each connection has a fixed deadline from its acceptance (``Limits/timeoutMs``), a bounded request size, and at
/// most ``Limits/maxConnections`` are open at once (the oldest is closed to make room for a new one).
///
/// ## Lifecycle
/// ``run()`` returns on graceful shutdown (a `ServiceGroup` stopping) or cancellation, after closing every socket.
public final class MetricsEndpoint: Service, Sendable {
    /// What one client may cost.
    public struct Limits: Sendable, Hashable {
        /// The largest request head (request line and headers) read; beyond, the answer is `431`.
        public var maxRequestBytes: Int = 8192
        /// How long a connection may stay open from its acceptance, in milliseconds, whatever it does.
        public var timeoutMs: Int = 5000
        /// Connections open at once; a new one closes the oldest beyond.
        public var maxConnections: Int = 32

        public init() {}
    }

    /// The host the endpoint is bound to, as given.
    public let host: String
    /// The TCP port it is bound to (the one the system chose when the address asked for port 0).
    public let port: Int

    private struct State {
        var started = false
        var closed = false
    }

    private let listener: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let limits: Limits
    private let logger: Logger
    private let render: @Sendable () -> [UInt8]
    private let state = Mutex(State())

    /// Binds `address` (`host:port`, `[ipv6]:port`; port `0` lets the system choose) and listens.
    ///
    /// - Parameter render: makes the body of a `GET /metrics` response; called on the endpoint's thread, once per
    ///   scrape.
    /// - Throws: ``MetricsEndpointError`` when the address is not `host:port` or cannot be bound.
    public init(
        address: String, limits: Limits = Limits(), logger: Logger, render: @escaping @Sendable () -> [UInt8]
    ) throws(MetricsEndpointError) {
        guard let (host, port) = Self.parseAddress(address) else {
            throw MetricsEndpointError(address: address, reason: "is not host:port")
        }
        let listener = try Self.bindAndListen(host: host, port: port, address: address)
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else {
            let reason = Self.errorText("pipe")
            close(listener)
            throw MetricsEndpointError(address: address, reason: reason)
        }
        for fd in pipeEnds { Self.makeNonBlocking(fd) }
        self.host = host
        self.port = Self.boundPort(of: listener) ?? port
        self.listener = listener
        self.wakeRead = pipeEnds[0]
        self.wakeWrite = pipeEnds[1]
        self.limits = limits
        self.logger = logger
        self.render = render
    }

    deinit {
        // Only when `run()` never ran: it closes everything itself when it stops.
        if !state.withLock({ $0.closed }) { closeSockets() }
    }

    /// Splits `host:port` or `[ipv6]:port`; `nil` when it is neither or the port is not 0...65535.
    public static func parseAddress(_ address: String) -> (host: String, port: Int)? {
        guard let colon = address.lastIndex(of: ":") else { return nil }
        var host = String(address[..<colon])
        guard let port = Int(address[address.index(after: colon)...]), (0...65535).contains(port) else { return nil }
        if host.hasPrefix("[") && host.hasSuffix("]") {
            host = String(host.dropFirst().dropLast())
        } else if host.contains(":") {
            return nil
        }
        guard !host.isEmpty, !host.contains(where: { $0 == " " || $0 == "[" || $0 == "]" }) else { return nil }
        return (host, port)
    }

    /// Serves until graceful shutdown or cancellation.
    ///
    /// - Throws: ``ZMQError`` when the endpoint's thread cannot be started.
    public func run() async throws {
        let first = state.withLock { state in
            defer { state.started = true }
            return !state.started && !state.closed
        }
        guard first else { return }
        logger.info("metrics endpoint serving", metadata: ["address": "\(host):\(port)"])
        try await withGracefulShutdownHandler {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    do {
                        try ZMQThread.start(name: "flowd-metrics") {
                            self.serve()
                            continuation.resume()
                        }
                    } catch {
                        self.finish()
                        continuation.resume(throwing: error)
                    }
                }
            } onCancel: {
                self.stop()
            }
        } onGracefulShutdown: {
            self.stop()
        }
        logger.info("metrics endpoint stopped", metadata: ["address": "\(host):\(port)"])
    }

    /// Asks the endpoint's thread to stop.
    private func stop() {
        state.withLock { state in
            guard !state.closed else { return }
            var byte: UInt8 = 1
            _ = write(wakeWrite, &byte, 1)
        }
    }

    private func finish() {
        state.withLock { state in
            guard !state.closed else { return }
            state.closed = true
            closeSockets()
        }
    }

    private func closeSockets() {
        close(listener)
        close(wakeRead)
        close(wakeWrite)
    }

    // MARK: - The endpoint's thread

    /// One client connection.
    private struct Connection {
        enum Phase {
            /// Reading the request head.
            case reading
            /// Writing the response.
            case writing
            /// Response written and the write side shut: reading what is left until the client closes, so that
            /// closing with unread data does not reset the connection before the client read the response.
            case draining
        }

        let fd: Int32
        let deadline: UInt64
        var phase = Phase.reading
        var request: [UInt8] = []
        var response: [UInt8] = []
        var sent = 0
    }

    private func serve() {
        let clock = ContinuousClock()
        let start = clock.now
        func now() -> UInt64 {
            let elapsed = start.duration(to: clock.now)
            return UInt64(elapsed.components.seconds) * 1000
                + UInt64(elapsed.components.attoseconds / 1_000_000_000_000_000)
        }
        var connections: [Connection] = []
        var scratch = [UInt8](repeating: 0, count: 4096)
        defer {
            for connection in connections { close(connection.fd) }
            finish()
        }
        while true {
            let time = now()
            connections.removeAll { connection in
                guard time >= connection.deadline else { return false }
                close(connection.fd)
                return true
            }
            var fds = [
                pollfd(fd: wakeRead, events: Self.pollIn, revents: 0),
                pollfd(fd: listener, events: Self.pollIn, revents: 0),
            ]
            for connection in connections {
                fds.append(
                    pollfd(
                        fd: connection.fd, events: connection.phase == .writing ? Self.pollOut : Self.pollIn, revents: 0
                    )
                )
            }
            let timeout = connections.map(\.deadline).min().map { Int32(clamping: $0 - min($0, time)) } ?? -1
            let ready = poll(&fds, nfds_t(fds.count), timeout)
            if ready < 0 {
                if errno == EINTR { continue }
                logger.error("metrics endpoint poll failed", metadata: ["error": "\(Self.errorText("poll"))"])
                return
            }
            if fds[0].revents != 0 { return }
            for index in connections.indices.reversed() where fds[index + 2].revents != 0 {
                if !advance(&connections[index], scratch: &scratch) {
                    close(connections[index].fd)
                    connections.remove(at: index)
                }
            }
            if fds[1].revents != 0 {
                for _ in 0..<max(1, limits.maxConnections) {
                    let fd = accept(listener, nil, nil)
                    guard fd >= 0 else { break }
                    Self.makeNonBlocking(fd)
                    #if canImport(Darwin)
                    var on: Int32 = 1
                    setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
                    #endif
                    if connections.count >= max(1, limits.maxConnections) {
                        close(connections.removeFirst().fd)
                    }
                    connections.append(Connection(fd: fd, deadline: now() + UInt64(max(1, limits.timeoutMs))))
                }
            }
        }
    }

    /// Moves a connection on as far as its socket allows; `false` when it is done (to close).
    private func advance(_ connection: inout Connection, scratch: inout [UInt8]) -> Bool {
        switch connection.phase {
        case .reading:
            while true {
                let room = limits.maxRequestBytes + 1 - connection.request.count
                let count = scratch.withUnsafeMutableBytes {
                    recv(connection.fd, $0.baseAddress, min($0.count, room), 0)
                }
                if count == 0 { return false }
                if count < 0 {
                    if errno == EINTR { continue }
                    return errno == EAGAIN || errno == EWOULDBLOCK
                }
                let searchFrom = max(0, connection.request.count - 3)
                connection.request += scratch[0..<count]
                if Self.headEnds(in: connection.request, from: searchFrom) {
                    connection.response = respond(to: connection.request)
                    break
                }
                if connection.request.count > limits.maxRequestBytes {
                    connection.response = Self.response(
                        431, "Request Header Fields Too Large", body: "request too large\n")
                    break
                }
            }
            connection.request = []
            connection.phase = .writing
            return advance(&connection, scratch: &scratch)
        case .writing:
            while connection.sent < connection.response.count {
                let count = connection.response.withUnsafeBytes { bytes in
                    send(
                        connection.fd, bytes.baseAddress! + connection.sent, bytes.count - connection.sent,
                        Self.sendFlags)
                }
                if count < 0 {
                    if errno == EINTR { continue }
                    return errno == EAGAIN || errno == EWOULDBLOCK
                }
                connection.sent += count
            }
            shutdown(connection.fd, Int32(SHUT_WR))
            connection.phase = .draining
            return advance(&connection, scratch: &scratch)
        case .draining:
            while true {
                let count = scratch.withUnsafeMutableBytes { recv(connection.fd, $0.baseAddress, $0.count, 0) }
                if count == 0 { return false }
                if count < 0 {
                    if errno == EINTR { continue }
                    return errno == EAGAIN || errno == EWOULDBLOCK
                }
            }
        }
    }

    /// The response to a complete request head.
    private func respond(to head: [UInt8]) -> [UInt8] {
        let line = head.prefix { $0 != UInt8(ascii: "\n") }
        let text = String(decoding: line.last == UInt8(ascii: "\r") ? line.dropLast() : line[...], as: UTF8.self)
        let parts = text.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[0].allSatisfy({ $0.isASCII && $0.isUppercase }),
            parts[1].hasPrefix("/"), parts[2].hasPrefix("HTTP/1.")
        else {
            return Self.response(400, "Bad Request", body: "bad request\n")
        }
        let path = parts[1].prefix { $0 != "?" }
        guard path == "/metrics", parts[0] == "GET" || parts[0] == "HEAD" else {
            return Self.response(404, "Not Found", body: "not found\n")
        }
        let body = render()
        var response = Self.head(200, "OK", type: "text/plain; version=0.0.4; charset=utf-8", length: body.count)
        if parts[0] == "GET" { response += body }
        return response
    }

    private static func response(_ status: Int, _ reason: String, body: String) -> [UInt8] {
        head(status, reason, type: "text/plain; charset=utf-8", length: body.utf8.count) + Array(body.utf8)
    }

    private static func head(_ status: Int, _ reason: String, type: String, length: Int) -> [UInt8] {
        let text =
            "HTTP/1.1 \(status) \(reason)\r\nContent-Type: \(type)\r\nContent-Length: \(length)\r\n"
            + "Connection: close\r\n\r\n"
        return Array(text.utf8)
    }

    /// Whether the request head is complete: an empty line (`\r\n\r\n`, or `\n\n` from lax clients).
    private static func headEnds(in bytes: [UInt8], from start: Int) -> Bool {
        let newline = UInt8(ascii: "\n")
        var index = max(start, 1)
        while index < bytes.count {
            if bytes[index] == newline {
                if bytes[index - 1] == newline { return true }
                if index >= 3, bytes[index - 1] == UInt8(ascii: "\r"), bytes[index - 2] == newline { return true }
            }
            index += 1
        }
        return false
    }

    // MARK: - Sockets

    private static let pollIn = Int16(truncatingIfNeeded: POLLIN)
    private static let pollOut = Int16(truncatingIfNeeded: POLLOUT)
    #if canImport(Darwin)
    private static let sendFlags: Int32 = 0
    private static let streamType = SOCK_STREAM
    #else
    private static let sendFlags = Int32(MSG_NOSIGNAL)
    private static let streamType = Int32(SOCK_STREAM.rawValue)
    #endif

    private static func bindAndListen(host: String, port: Int, address: String) throws(MetricsEndpointError) -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = streamType
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw MetricsEndpointError(
                address: address, reason: "cannot resolve: \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var failure = "no address"
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let info = entry?.pointee {
            entry = info.ai_next
            let fd = socket(info.ai_family, info.ai_socktype, info.ai_protocol)
            guard fd >= 0 else {
                failure = errorText("socket")
                continue
            }
            var on: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
            guard bind(fd, info.ai_addr, info.ai_addrlen) == 0, listen(fd, 64) == 0 else {
                failure = errorText("bind")
                close(fd)
                continue
            }
            makeNonBlocking(fd)
            return fd
        }
        throw MetricsEndpointError(address: address, reason: failure)
    }

    private static func boundPort(of fd: Int32) -> Int? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let status = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard status == 0 else { return nil }
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
            }
        case AF_INET6:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    Int(UInt16(bigEndian: $0.pointee.sin6_port))
                }
            }
        default:
            return nil
        }
    }

    private static func makeNonBlocking(_ fd: Int32) {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    }

    private static func errorText(_ call: String) -> String {
        "\(call): \(String(cString: strerror(errno)))"
    }
}
