internal import CZeroMQ

/// Waits until any of a set of sockets is ready (`zmq_poll`), on the thread that owns them.
///
/// ```swift
/// let poller = ZMQPoller()
/// poller.register(router, for: .pollIn)
/// poller.register(wakeUp, for: .pollIn)
/// let ready = try poller.poll(timeout: .seconds(1))   // ready[i] belongs to the i-th registration
/// ```
///
/// Readiness is level-triggered (read from `ZMQ_EVENTS` on every poll), so a socket left with messages is reported
/// again by the next poll. A closed socket in the set makes ``poll(timeout:)`` throw ``ZMQError/Code/notSocket``.
/// Plain file descriptors (``register(fileDescriptor:for:)``) are polled as `poll(2)` sees them, with no libzmq call.
///
/// - Important: Not `Sendable`, like the sockets it polls.
package final class ZMQPoller {
    /// What each item polls: a socket, or `nil` for a plain file descriptor.
    private var sockets: [ZMQSocket?] = []
    private var items: [zmq_pollitem_t] = []

    /// An empty poller.
    package init() {}

    /// The number of registered sockets.
    package var count: Int { sockets.count }

    /// Adds `socket`, waiting for `events`; registering a socket again replaces its events.
    ///
    /// - Returns: the socket's index in the array ``poll(timeout:)`` returns.
    @discardableResult
    package func register(_ socket: ZMQSocket, for events: ZMQEvents) -> Int {
        if let index = sockets.firstIndex(where: { $0 === socket }) {
            items[index].events = events.rawValue
            return index
        }
        sockets.append(socket)
        items.append(zmq_pollitem_t(socket: socket.handle, fd: 0, events: events.rawValue, revents: 0))
        return sockets.count - 1
    }

    /// Adds a plain file descriptor, waiting for `events`; registering it again replaces its events.
    ///
    /// - Returns: its index in the array ``poll(timeout:)`` returns.
    @discardableResult
    package func register(fileDescriptor: Int32, for events: ZMQEvents) -> Int {
        if let index = items.indices.first(where: { sockets[$0] == nil && items[$0].fd == fileDescriptor }) {
            items[index].events = events.rawValue
            return index
        }
        sockets.append(nil)
        items.append(zmq_pollitem_t(socket: nil, fd: fileDescriptor, events: events.rawValue, revents: 0))
        return sockets.count - 1
    }

    /// Removes `socket`; later items move down one index.
    package func unregister(_ socket: ZMQSocket) {
        guard let index = sockets.firstIndex(where: { $0 === socket }) else { return }
        sockets.remove(at: index)
        items.remove(at: index)
    }

    /// Removes a plain file descriptor; later items move down one index.
    package func unregister(fileDescriptor: Int32) {
        guard let index = items.indices.first(where: { sockets[$0] == nil && items[$0].fd == fileDescriptor }) else {
            return
        }
        sockets.remove(at: index)
        items.remove(at: index)
    }

    /// Removes every socket.
    package func removeAll() {
        sockets.removeAll(keepingCapacity: true)
        items.removeAll(keepingCapacity: true)
    }

    /// Waits until a registered socket is ready or `timeout` runs out.
    ///
    /// - Parameter timeout: `nil` waits without limit; `.zero` only checks.
    /// - Returns: the ready events of each socket, in registration order (empty sets when the timeout ran out).
    package func poll(timeout: Duration?) throws(ZMQError) -> [ZMQEvents] {
        try wait(timeout: timeout)
        return items.map { ZMQEvents(rawValue: $0.revents) }
    }

    /// Waits as ``poll(timeout:)`` does without building an array; read each socket's events with ``events(at:)``.
    package func wait(timeout: Duration?) throws(ZMQError) {
        let clock = ContinuousClock()
        let deadline = timeout.map { clock.now.advanced(by: $0) }
        for index in items.indices {
            items[index].revents = 0
            guard let socket = sockets[index] else { continue }
            guard let handle = socket.handle else {
                throw ZMQError(.notSocket, call: "zmq_poll (socket \(index) is closed)")
            }
            items[index].socket = handle
        }
        while true {
            let waitMilliseconds = deadline.map { Int(milliseconds(clock.now.duration(to: $0))) } ?? -1
            let result = items.withUnsafeMutableBufferPointer { buffer in
                zmq_poll(buffer.baseAddress, Int32(buffer.count), waitMilliseconds)
            }
            if result >= 0 { return }
            guard zmq_errno() == EINTR else { throw ZMQError.last("zmq_poll") }
        }
    }

    /// The events the socket at `index` (its registration order) was ready for at the last wait.
    package func events(at index: Int) -> ZMQEvents {
        ZMQEvents(rawValue: items[index].revents)
    }
}

@available(*, unavailable, message: "it holds libzmq sockets, which are not thread-safe")
extension ZMQPoller: Sendable {}
