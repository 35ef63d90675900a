package import Logging
import NIOCore
import NIOPosix
internal import ServiceLifecycle
import Synchronization

/// A metrics address that cannot be used: not `host:port`, or a socket that could not be set up.
package struct MetricsEndpointError: Error, CustomStringConvertible, Sendable {
    package let address: String
    package let reason: String
    package var description: String { "metrics endpoint \(address): \(reason)" }
}

/// An HTTP/1.1 responder for Prometheus scrapes on SwiftNIO: `GET /metrics` answers `200` with the text `render`
/// makes (`Content-Type: text/plain; version=0.0.4`), any other well-formed request `404`, a malformed one `400`, a
/// request head larger than ``Limits/maxRequestBytes`` `431`. Every response closes its connection
/// (`Connection: close`); ``MetricsRequest`` has the exact answers.
///
/// The listening socket is bound by ``init(address:limits:logger:render:)`` (so a bad address fails at start-up and
/// ``port`` is known at once). It serves on one event-loop thread of its own; each connection has a fixed deadline
/// from its acceptance (``Limits/timeoutMs``), a bounded request size, and at most ``Limits/maxConnections`` are open
/// at once (the oldest is closed to make room for a new one). ``run()`` returns on graceful shutdown (a
/// `ServiceGroup` stopping) or cancellation, after closing every socket.
package final class MetricsEndpoint: Service, Sendable {
    /// What one client may cost.
    package struct Limits: Sendable, Hashable {
        /// The largest request head (request line and headers) read; beyond, the answer is `431`.
        package var maxRequestBytes: Int = 8192
        /// How long a connection may stay open from its acceptance, in milliseconds, whatever it does.
        package var timeoutMs: Int = 5000
        /// Connections open at once; a new one closes the oldest beyond.
        package var maxConnections: Int = 32

        package init() {}
    }

    /// The host the endpoint is bound to, as given.
    package let host: String
    /// The TCP port it is bound to (the one the system chose when the address asked for port 0).
    package let port: Int

    private struct State {
        var started = false
        var closed = false
    }

    /// One thread: connections are accepted and their limits applied in order, and `render` runs there.
    private let group: MultiThreadedEventLoopGroup
    private let listener: any Channel
    private let connections: MetricsConnections
    private let logger: Logger
    private let state = Mutex(State())

    /// Binds `address` (`host:port`, `[ipv6]:port`; port `0` lets the system choose) and listens.
    ///
    /// - Parameter render: makes the body of a `GET /metrics` response; called on the endpoint's thread, once per
    ///   scrape.
    /// - Throws: ``MetricsEndpointError`` when the address is not `host:port` or cannot be bound.
    package init(
        address: String, limits: Limits = Limits(), logger: Logger, render: @escaping @Sendable () -> [UInt8]
    ) throws(MetricsEndpointError) {
        guard let (host, port) = Self.parseAddress(address) else {
            throw MetricsEndpointError(address: address, reason: "is not host:port")
        }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let connections = MetricsConnections(limit: max(1, limits.maxConnections))
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 64)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        MetricsConnectionHandler(limits: limits, connections: connections, render: render))
                }
            }
        do {
            listener = try bootstrap.bind(host: host, port: port).wait()
        } catch {
            group.shutdownGracefully { _ in }
            throw MetricsEndpointError(address: address, reason: "\(error)")
        }
        self.host = host
        self.port = listener.localAddress?.port ?? port
        self.group = group
        self.connections = connections
        self.logger = logger
    }

    deinit {
        // Only when `run()` never ran: it closes everything itself when it stops.
        if !state.withLock({ $0.closed }) {
            listener.close(promise: nil)
            group.shutdownGracefully { _ in }
        }
    }

    /// Splits `host:port` or `[ipv6]:port`; `nil` when it is neither or the port is not 0...65535.
    package static func parseAddress(_ address: String) -> (host: String, port: Int)? {
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
    package func run() async throws {
        let first = state.withLock { state in
            defer { state.started = true }
            return !state.started && !state.closed
        }
        guard first else { return }
        logger.info("metrics endpoint serving", metadata: ["address": "\(host):\(port)"])
        await withGracefulShutdownHandler {
            await withTaskCancellationHandler {
                try? await listener.closeFuture.get()
            } onCancel: {
                self.listener.close(promise: nil)
            }
        } onGracefulShutdown: {
            self.listener.close(promise: nil)
        }
        state.withLock { $0.closed = true }
        await connections.closeAll()
        try? await group.shutdownGracefully()
        logger.info("metrics endpoint stopped", metadata: ["address": "\(host):\(port)"])
    }
}

/// The open connections, oldest first: a new one beyond the limit closes the oldest.
final class MetricsConnections: Sendable {
    private struct Open {
        var next = 0
        var channels: [ObjectIdentifier: (order: Int, channel: any Channel)] = [:]
    }

    private let limit: Int
    private let open = Mutex(Open())

    init(limit: Int) { self.limit = limit }

    func add(_ channel: any Channel) {
        let oldest: (any Channel)? = open.withLock { open in
            open.next += 1
            open.channels[ObjectIdentifier(channel)] = (open.next, channel)
            guard open.channels.count > limit,
                let oldest = open.channels.min(by: { $0.value.order < $1.value.order })
            else { return nil }
            open.channels[oldest.key] = nil
            return oldest.value.channel
        }
        oldest?.close(promise: nil)
    }

    func remove(_ channel: any Channel) {
        _ = open.withLock { $0.channels.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    func closeAll() async {
        let channels = open.withLock { open in
            defer { open.channels.removeAll() }
            return open.channels.values.map(\.channel)
        }
        for channel in channels { try? await channel.close() }
    }
}

/// One client connection: reads the request head, writes the answer, shuts its write side and drains what the client
/// still sends until it closes (closing with unread data would reset the connection before the client read the
/// answer). The deadline closes it, answered or not.
private final class MetricsConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let limits: MetricsEndpoint.Limits
    private let connections: MetricsConnections
    private let render: @Sendable () -> [UInt8]
    private var request: [UInt8] = []
    private var answered = false
    private var deadline: Scheduled<Void>?

    init(limits: MetricsEndpoint.Limits, connections: MetricsConnections, render: @escaping @Sendable () -> [UInt8]) {
        self.limits = limits
        self.connections = connections
        self.render = render
    }

    func channelActive(context: ChannelHandlerContext) {
        connections.add(context.channel)
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(in: .milliseconds(Int64(max(1, limits.timeoutMs)))) {
            channel.close(promise: nil)
        }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        connections.remove(context.channel)
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !answered else { return }  // draining
        var bytes = unwrapInboundIn(data)
        let room = limits.maxRequestBytes + 1 - request.count
        let searchFrom = max(0, request.count - 3)
        request += bytes.readBytes(length: min(bytes.readableBytes, room)) ?? []
        let response: [UInt8]
        // One byte past the limit is read to tell a head of exactly the limit from a longer one: a head must end
        // within the limit.
        if MetricsRequest.headEnds(in: Array(request.prefix(limits.maxRequestBytes)), from: searchFrom) {
            response = MetricsRequest.respond(to: request, render: render)
        } else if request.count > limits.maxRequestBytes {
            response = MetricsRequest.tooLarge
        } else {
            return
        }
        answered = true
        request = []
        context.write(wrapOutboundOut(context.channel.allocator.buffer(bytes: response)), promise: nil)
        context.flush()
        context.close(mode: .output, promise: nil)  // after the write: NIO shuts the write side once it is out
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}

@available(*, unavailable, message: "confined to its channel's event loop")
extension MetricsConnectionHandler: Sendable {}
