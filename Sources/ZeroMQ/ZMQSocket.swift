internal import CZeroMQ

/// A libzmq socket, used from one thread at a time.
///
/// Made with the ``ZMQSocketOptions`` defaults applied (bounded linger, message size limit, heartbeats,
/// `ZMQ_ROUTER_MANDATORY` on ROUTERs, `ZMQ_IMMEDIATE` on DEALERs). Closed by ``close()`` or when the last reference
/// goes away. A socket keeps its ``ZMQContext`` alive. Operations on a closed socket throw
/// ``ZMQError/Code/notSocket``.
///
/// Async code should not call the blocking operations here: use a ``ZMQEventLoop``, whose thread owns its sockets.
///
/// - Important: Not `Sendable`: libzmq sockets are not thread-safe (`zmq_socket(3)`: "MUST NOT" be used from multiple
///   threads). Hand one to another thread only with a full memory barrier, as thread creation gives.
package final class ZMQSocket {
    /// The socket's type.
    package let type: ZMQSocketType
    /// The context the socket belongs to.
    package let context: ZMQContext
    /// The `void *` from `zmq_socket`; `nil` once closed.
    private(set) var handle: UnsafeMutableRawPointer?
    /// A reusable `zmq_msg_t` for receiving, at a stable address (small messages are stored inside it).
    private let message: UnsafeMutablePointer<zmq_msg_t>
    /// The buffers the last routed message was received into (``tryReceiveRouted(withProperty:)``), written over by
    /// the next one where the caller no longer holds them: a ROUTER's loop then allocates no frames per message.
    private var routedBuffers = RoutedBuffers()

    /// Makes a socket of `type` in `context` and applies `options`.
    ///
    /// - Throws: ``ZMQError`` when the context is terminated (``ZMQError/Code/terminated``), libzmq runs out of
    ///   sockets, or an option is rejected.
    package init(
        _ type: ZMQSocketType,
        context: ZMQContext,
        options: ZMQSocketOptions = ZMQSocketOptions()
    ) throws(ZMQError) {
        try context.socketOpened("zmq_socket(\(type))")
        guard let handle = zmq_socket(context.handle, type.rawValue) else {
            let error = ZMQError.last("zmq_socket(\(type))")
            context.socketClosed()
            throw error
        }
        self.type = type
        self.context = context
        self.handle = handle
        self.message = .allocate(capacity: 1)
        do throws(ZMQError) {
            try options.apply(to: self)
        } catch {
            close()
            throw error
        }
    }

    deinit {
        close()
        message.deallocate()
    }

    /// Whether ``close()`` has run.
    package var isClosed: Bool { handle == nil }

    /// Closes the socket (`zmq_close`); queued outgoing messages are kept for at most the linger. A second call does
    /// nothing.
    package func close() {
        guard let handle else { return }
        self.handle = nil
        zmq_close(handle)
        context.socketClosed()
    }

    // MARK: - Endpoints

    /// Binds to `endpoint` (`tcp://127.0.0.1:*` picks a free port: read it with ``ZMQSocketOption/lastEndpoint``).
    package func bind(_ endpoint: String) throws(ZMQError) { try call(zmq_bind, named: "zmq_bind", on: endpoint) }

    /// Connects to `endpoint`; the connection is made (and remade) in the background.
    package func connect(_ endpoint: String) throws(ZMQError) {
        try call(zmq_connect, named: "zmq_connect", on: endpoint)
    }

    /// Stops listening on `endpoint`, which must be the resolved form (as ``ZMQSocketOption/lastEndpoint`` gives).
    package func unbind(_ endpoint: String) throws(ZMQError) { try call(zmq_unbind, named: "zmq_unbind", on: endpoint) }

    /// Drops the connection to `endpoint`.
    package func disconnect(_ endpoint: String) throws(ZMQError) {
        try call(zmq_disconnect, named: "zmq_disconnect", on: endpoint)
    }

    /// Calls `function`, libzmq's `name`, with the socket and `endpoint`, again when a signal interrupts it.
    private func call(
        _ function: (UnsafeMutableRawPointer?, UnsafePointer<CChar>?) -> Int32, named name: String, on endpoint: String
    ) throws(ZMQError) {
        let handle = try open("\(name)(\(endpoint))")
        try retryingOnInterrupt("\(name)(\(endpoint))") { function(handle, endpoint) }
    }

    // MARK: - Options

    /// Sets a socket option.
    package func setOption<Value>(_ option: ZMQSocketOption<Value>, to value: Value) throws(ZMQError) {
        let handle = try open("zmq_setsockopt(\(option))")
        let bytes = try option.encode(value)
        try retryingOnInterrupt("zmq_setsockopt(\(option))") {
            bytes.withUnsafeBytes { zmq_setsockopt(handle, option.name, $0.baseAddress, $0.count) }
        }
    }

    /// Reads a socket option.
    package func option<Value>(_ option: ZMQSocketOption<Value>) throws(ZMQError) -> Value {
        let handle = try open("zmq_getsockopt(\(option))")
        var bytes = [UInt8](repeating: 0, count: option.capacity)
        var size = option.capacity
        try retryingOnInterrupt("zmq_getsockopt(\(option))") {
            bytes.withUnsafeMutableBytes { zmq_getsockopt(handle, option.name, $0.baseAddress, &size) }
        }
        return try option.decode(Array(bytes.prefix(size)))
    }

    // MARK: - Messages

    /// Sends every frame of `message` as one atomic multipart message.
    ///
    /// - Parameter nonBlocking: fail with ``ZMQError/Code/wouldBlock`` instead of waiting when the message cannot be
    ///   queued now (high-water mark reached, or no completed connection with `ZMQ_IMMEDIATE`).
    /// - Throws: ``ZMQError``; ``ZMQError/Code/invalidArgument`` for a message without frames,
    ///   ``ZMQError/Code/hostUnreachable`` from a ROUTER with ``ZMQSocketOption/routerMandatory`` for an unknown
    ///   routing id.
    package func send(_ message: ZMQMessage, nonBlocking: Bool = false) throws(ZMQError) {
        try send(first: nil, message.frames, nonBlocking: nonBlocking)
    }

    /// Sends `first`, when given, then `frames`, as one multipart message.
    private func send(first: [UInt8]?, _ frames: [[UInt8]], nonBlocking: Bool) throws(ZMQError) {
        let handle = try open("zmq_send")
        let count = frames.count + (first == nil ? 0 : 1)
        guard count > 0 else { throw ZMQError(.invalidArgument, call: "zmq_send(message without frames)") }
        if let first { try send(first, at: 0, of: count, on: handle, nonBlocking: nonBlocking) }
        let offset = first == nil ? 0 : 1
        for (index, frame) in frames.enumerated() {
            try send(frame, at: index + offset, of: count, on: handle, nonBlocking: nonBlocking)
        }
    }

    private func send(
        _ frame: [UInt8], at index: Int, of count: Int, on handle: UnsafeMutableRawPointer, nonBlocking: Bool
    ) throws(ZMQError) {
        try frame.withUnsafeBufferPointer { (bytes) throws(ZMQError) in
            try send(UnsafeRawBufferPointer(bytes), at: index, of: count, on: handle, nonBlocking: nonBlocking)
        }
    }

    private func send(
        _ frame: UnsafeRawBufferPointer, at index: Int, of count: Int, on handle: UnsafeMutableRawPointer,
        nonBlocking: Bool
    ) throws(ZMQError) {
        var flags: Int32 = nonBlocking ? ZMQ_DONTWAIT : 0
        if index < count - 1 { flags |= ZMQ_SNDMORE }
        try retryingOnInterrupt("zmq_send(frame \(index + 1) of \(count))") {
            zmq_send(handle, frame.baseAddress, frame.count, flags)
        }
    }

    /// Sends `message` if it can be queued now.
    ///
    /// - Returns: `false` when it would block (nothing was sent).
    package func trySend(_ message: ZMQMessage) throws(ZMQError) -> Bool {
        try trySend(first: nil, message.frames)
    }

    /// Sends `frames` after a ROUTER's `routingID` frame if the message can be queued now, without building a message
    /// of them all.
    ///
    /// - Returns: `false` when it would block (nothing was sent).
    package func trySend(routingID: [UInt8], _ frames: [[UInt8]]) throws(ZMQError) -> Bool {
        try trySend(first: routingID, frames)
    }

    /// Sends a ROUTER's `routingID` frame and three frames if the message can be queued now, as
    /// ``trySend(routingID:_:)`` does without an array of the frames (a control message on the daemon's hot path;
    /// its body, the third, is read where it was written).
    ///
    /// - Returns: `false` when it would block (nothing was sent).
    package func trySend(
        routingID: [UInt8], _ first: [UInt8], _ second: [UInt8], _ third: UnsafeRawBufferPointer
    ) throws(ZMQError) -> Bool {
        do throws(ZMQError) {
            let handle = try open("zmq_send")
            try send(routingID, at: 0, of: 4, on: handle, nonBlocking: true)
            try send(first, at: 1, of: 4, on: handle, nonBlocking: true)
            try send(second, at: 2, of: 4, on: handle, nonBlocking: true)
            try send(third, at: 3, of: 4, on: handle, nonBlocking: true)
            return true
        } catch where error.code == .wouldBlock {
            return false
        }
    }

    private func trySend(first: [UInt8]?, _ frames: [[UInt8]]) throws(ZMQError) -> Bool {
        do throws(ZMQError) {
            try send(first: first, frames, nonBlocking: true)
            return true
        } catch where error.code == .wouldBlock {
            return false
        }
    }

    /// Receives one whole multipart message.
    ///
    /// - Parameter nonBlocking: fail with ``ZMQError/Code/wouldBlock`` instead of waiting when no message is queued.
    ///   A blocking receive also fails that way when ``ZMQSocketOption/receiveTimeout`` runs out.
    package func receive(nonBlocking: Bool = false) throws(ZMQError) -> ZMQMessage {
        ZMQMessage(try receive(nonBlocking: nonBlocking, property: nil, routed: false).frames)
    }

    /// Receives a message if one is queued, with a metadata property of its connection (`zmq_msg_gets`): `User-Id`
    /// (what the ZAP handler returned for the peer), `Peer-Address`, `Socket-Type`, `Routing-Id`.
    ///
    /// - Returns: `nil` when no message is queued (it would block); the property is `nil` when the connection does
    ///   not have it.
    package func tryReceive(withProperty property: String) throws(ZMQError) -> (message: ZMQMessage, value: String?)? {
        do throws(ZMQError) {
            let received = try receive(nonBlocking: true, property: property, routed: false)
            return (ZMQMessage(received.frames), received.value)
        } catch where error.code == .wouldBlock {
            return nil
        }
    }

    /// Receives a message if one is queued, its first frame apart (a ROUTER's sender's routing id), and optionally a
    /// metadata property of its connection as ``tryReceive(withProperty:)`` does.
    ///
    /// - Returns: `nil` when no message is queued (it would block).
    package func tryReceiveRouted(
        withProperty property: String? = nil
    ) throws(ZMQError) -> (routingID: [UInt8], frames: [[UInt8]], value: String?)? {
        do throws(ZMQError) {
            let received = try receive(nonBlocking: true, property: property, routed: true)
            return (received.first ?? [], received.frames, received.value)
        } catch where error.code == .wouldBlock {
            return nil
        }
    }

    /// Receives one multipart message; with `routed`, its first frame is returned apart from the others, and the
    /// frames are received into ``routedBuffers``.
    private func receive(
        nonBlocking: Bool, property: String?, routed: Bool
    ) throws(ZMQError) -> (first: [UInt8]?, frames: [[UInt8]], value: String?) {
        let handle = try open("zmq_msg_recv")
        var frames: [[UInt8]] = []
        // Room for the frames of a flowd message (signature, type, body): no regrowth on the way.
        if !routed { frames.reserveCapacity(3) }
        var count = 0
        // Taken out while the frames come (one exclusive access, not one a frame), put back after.
        var buffers = RoutedBuffers()
        if routed { swap(&buffers, &routedBuffers) }
        defer { if routed { routedBuffers = buffers } }
        var value: String?
        var flags: Int32 = nonBlocking ? ZMQ_DONTWAIT : 0
        zmq_msg_init(message)
        defer { zmq_msg_close(message) }
        repeat {
            try retryingOnInterrupt("zmq_msg_recv") { zmq_msg_recv(message, handle, flags) }
            let bytes = UnsafeBufferPointer(
                start: zmq_msg_data(message)?.assumingMemoryBound(to: UInt8.self), count: zmq_msg_size(message))
            if routed { buffers.receive(bytes, at: count) } else { frames.append(Array(bytes)) }
            count += 1
            // Every frame of a message carries its connection's metadata (a ROUTER's routing id frame too).
            if let property, value == nil, let text = zmq_msg_gets(message, property) { value = String(cString: text) }
            // The remaining frames of a multipart message are delivered together with the first.
            flags = 0
        } while zmq_msg_more(message) != 0
        guard routed else { return (nil, frames, value) }
        buffers.end(at: count)
        return (buffers.routingID, buffers.frames, value)
    }

    /// Receives a message if one is queued.
    ///
    /// - Returns: `nil` when none is (it would block).
    package func tryReceive() throws(ZMQError) -> ZMQMessage? {
        do throws(ZMQError) {
            return try receive(nonBlocking: true)
        } catch where error.code == .wouldBlock {
            return nil
        }
    }

    // MARK: - Monitoring

    /// Publishes this socket's connection events (``ZMQMonitorEvent``) on a PAIR socket bound at `endpoint`
    /// (an `inproc://` address in this socket's context); connect a ``ZMQSocketType/pair`` socket there to read them.
    package func startMonitor(at endpoint: String, events: ZMQMonitorEvent.Kind = .all) throws(ZMQError) {
        let handle = try open("zmq_socket_monitor(\(endpoint))")
        try retryingOnInterrupt("zmq_socket_monitor(\(endpoint))") {
            zmq_socket_monitor(handle, endpoint, Int32(events.rawValue))
        }
    }

    /// Stops publishing connection events.
    package func stopMonitor() throws(ZMQError) {
        let handle = try open("zmq_socket_monitor(nil)")
        try retryingOnInterrupt("zmq_socket_monitor(nil)") { zmq_socket_monitor(handle, nil, 0) }
    }

    // MARK: - Private

    private func open(_ call: @autoclosure () -> String) throws(ZMQError) -> UnsafeMutableRawPointer {
        guard let handle else { throw ZMQError(.notSocket, call: call() + " on a closed socket") }
        return handle
    }
}

@available(*, unavailable, message: "libzmq sockets are not thread-safe; use ZMQEventLoop from async code")
extension ZMQSocket: Sendable {}
