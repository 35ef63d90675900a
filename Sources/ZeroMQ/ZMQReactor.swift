/// The poll loop of a thread that owns libzmq sockets: it waits until a watched socket is ready, another thread wakes
/// it, or a timeout runs out. Both ``ZMQEventLoop``'s thread and a component running its own loop (flowd's I/O
/// thread) are built on it, with a ``ZMQMailbox`` for what other threads hand over.
///
/// ```swift
/// let reactor = try ZMQReactor()
/// let mailbox = ZMQMailbox<Work>(wakeUp: reactor.wakeSignal)   // shared with other threads
/// let control = reactor.watch(router, for: .pollIn)
/// while true {
///     let (work, closed) = mailbox.take()
///     if closed { break }
///     handle(work)
///     try reactor.wait(timeout: .milliseconds(100))
///     if reactor.events(of: control).contains(.pollIn) { readAll(router) }
/// }
/// reactor.close()
/// ```
///
/// Readiness is level-triggered, as with ``ZMQPoller``: a socket left with messages is reported again by the next wait
/// (except for a socket watched by ``watchNotifications(of:)``, see there).
///
/// - Important: Not `Sendable`: like the sockets it watches, it belongs to one thread at a time. Only
///   ``wakeSignal`` may be used from other threads.
package final class ZMQReactor {
    /// A watched socket, as ``watch(_:for:)`` returned it.
    package struct Watch: Hashable, Sendable {
        fileprivate let id: UInt64
    }

    /// Wakes the reactor's thread from any thread; closed with the reactor.
    package let wakeSignal: ZMQWakeSignal
    private let poller = ZMQPoller()
    /// The watches in the poller's order (the wake-up signal is index 0): a socket, or the descriptor libzmq signals
    /// a socket's activity on.
    private var watches: [(watch: Watch, socket: ZMQSocket?, notifications: Int32?)] = []
    private var nextWatchID: UInt64 = 0

    /// A reactor with its own wake-up signal.
    ///
    /// - Throws: ``ZMQError`` when the wake-up signal's descriptor cannot be opened.
    package init() throws(ZMQError) {
        wakeSignal = try ZMQWakeSignal()
        poller.register(fileDescriptor: wakeSignal.fileDescriptor, for: .pollIn)
    }

    /// Starts watching `socket` for `events`; returns the handle the other calls take.
    @discardableResult
    package func watch(_ socket: ZMQSocket, for events: ZMQEvents) -> Watch {
        nextWatchID += 1
        let watch = Watch(id: nextWatchID)
        watches.append((watch, socket, nil))
        poller.register(socket, for: events)
        return watch
    }

    /// Starts watching the descriptor libzmq signals `socket`'s activity on (`ZMQ_FD`) instead of the socket itself,
    /// so that a wait costs no `ZMQ_EVENTS` check (a `poll` and a `getpid` system call) for it: for a socket that is
    /// rarely ready, such as an XPUB's subscriptions.
    ///
    /// The watch reports ``ZMQEvents/pollIn`` when libzmq has signalled the socket since it last processed its
    /// commands, not whether a message waits. So whoever owns `socket` reads it until it would block each time this
    /// watch is ready, and after every send on it (a send may process the command that announced a message).
    ///
    /// - Throws: ``ZMQError`` when the socket is closed.
    package func watchNotifications(of socket: ZMQSocket) throws(ZMQError) -> Watch {
        let descriptor = try socket.option(.fileDescriptor)
        nextWatchID += 1
        let watch = Watch(id: nextWatchID)
        watches.append((watch, nil, descriptor))
        poller.register(fileDescriptor: descriptor, for: .pollIn)
        return watch
    }

    /// Changes what `watch` waits for; an empty set keeps it registered but never ready.
    package func setEvents(_ events: ZMQEvents, of watch: Watch) {
        guard let entry = watches.first(where: { $0.watch == watch }) else { return }
        if let socket = entry.socket { poller.register(socket, for: events) }
        if let descriptor = entry.notifications { poller.register(fileDescriptor: descriptor, for: events) }
    }

    /// Stops watching; the socket itself stays open.
    package func unwatch(_ watch: Watch) {
        guard let index = watches.firstIndex(where: { $0.watch == watch }) else { return }
        if let socket = watches[index].socket { poller.unregister(socket) }
        if let descriptor = watches[index].notifications { poller.unregister(fileDescriptor: descriptor) }
        watches.remove(at: index)
    }

    /// Waits until a watched socket is ready, ``wakeSignal`` fires or `timeout` runs out, then drains the wake-ups;
    /// read each socket's readiness with ``events(of:)``.
    ///
    /// - Parameter timeout: `nil` waits without limit; `.zero` only checks.
    /// - Throws: ``ZMQError`` when `zmq_poll` fails, for example when a watched socket was closed.
    package func wait(timeout: Duration?) throws(ZMQError) {
        try poller.wait(timeout: timeout)
        if poller.events(at: 0).contains(.pollIn) { wakeSignal.drain() }
    }

    /// What `watch`'s socket was ready for at the last ``wait(timeout:)`` (empty for an unknown watch).
    package func events(of watch: Watch) -> ZMQEvents {
        guard let index = watches.firstIndex(where: { $0.watch == watch }) else { return [] }
        return poller.events(at: index + 1)
    }

    /// Closes the wake-up signal; the watched sockets belong to their owners.
    package func close() {
        poller.removeAll()
        watches.removeAll()
        wakeSignal.close()
    }
}

@available(*, unavailable, message: "it holds libzmq sockets, which are not thread-safe")
extension ZMQReactor: Sendable {}
