/// The poll loop of a thread that owns libzmq sockets: it waits until a watched socket is ready, another thread wakes
/// it, or a timeout runs out. Both ``ZMQEventLoop``'s thread and a component running its own loop (flowd's I/O
/// thread) are built on it, with a ``ZMQMailbox`` for what other threads hand over.
///
/// ```swift
/// let reactor = try ZMQReactor(context: context, name: "io")
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
/// Readiness is level-triggered, as with ``ZMQPoller``: a socket left with messages is reported again by the next wait.
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
    private let wakeReceiver: ZMQSocket
    private let poller = ZMQPoller()
    /// The watches in the poller's order; the wake-up receiver is index 0.
    private var watches: [(watch: Watch, socket: ZMQSocket)] = []
    private var nextWatchID: UInt64 = 0

    /// A reactor whose wake-up pair lives in `context`.
    ///
    /// - Parameter name: part of the wake-up pair's `inproc://` endpoint, for diagnostics.
    /// - Throws: ``ZMQError`` when libzmq cannot make the wake-up pair.
    package init(context: ZMQContext, name: String) throws(ZMQError) {
        (wakeReceiver, wakeSignal) = try ZMQWakeUp.make(context: context, name: name)
        poller.register(wakeReceiver, for: .pollIn)
    }

    /// Starts watching `socket` for `events`; returns the handle the other calls take.
    @discardableResult
    package func watch(_ socket: ZMQSocket, for events: ZMQEvents) -> Watch {
        nextWatchID += 1
        let watch = Watch(id: nextWatchID)
        watches.append((watch, socket))
        poller.register(socket, for: events)
        return watch
    }

    /// Changes what `watch` waits for; an empty set keeps it registered but never ready.
    package func setEvents(_ events: ZMQEvents, of watch: Watch) {
        guard let socket = watches.first(where: { $0.watch == watch })?.socket else { return }
        poller.register(socket, for: events)
    }

    /// Stops watching; the socket itself stays open.
    package func unwatch(_ watch: Watch) {
        guard let index = watches.firstIndex(where: { $0.watch == watch }) else { return }
        poller.unregister(watches[index].socket)
        watches.remove(at: index)
    }

    /// Waits until a watched socket is ready, ``wakeSignal`` fires or `timeout` runs out, then drains the wake-ups;
    /// read each socket's readiness with ``events(of:)``.
    ///
    /// - Parameter timeout: `nil` waits without limit; `.zero` only checks.
    /// - Throws: ``ZMQError`` when `zmq_poll` fails, for example when a watched socket was closed.
    package func wait(timeout: Duration?) throws(ZMQError) {
        try poller.wait(timeout: timeout)
        if poller.events(at: 0).contains(.pollIn) { ZMQWakeUp.drain(wakeReceiver) }
    }

    /// What `watch`'s socket was ready for at the last ``wait(timeout:)`` (empty for an unknown watch).
    package func events(of watch: Watch) -> ZMQEvents {
        guard let index = watches.firstIndex(where: { $0.watch == watch }) else { return [] }
        return poller.events(at: index + 1)
    }

    /// Closes the wake-up pair; the watched sockets belong to their owners.
    package func close() {
        wakeSignal.close()
        poller.removeAll()
        watches.removeAll()
        wakeReceiver.close()
    }
}

@available(*, unavailable, message: "it holds libzmq sockets, which are not thread-safe")
extension ZMQReactor: Sendable {}
