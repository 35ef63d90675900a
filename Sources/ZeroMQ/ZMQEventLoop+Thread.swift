import DequeModule
internal import Logging
import Synchronization

/// The state only the loop's thread touches: its sockets, their send queues and the reactor.
///
/// Created on the loop thread and never shared; every method runs there.
final class LoopThread {
    /// A socket and what the thread keeps for it.
    private final class Entry {
        let socket: ZMQSocket
        let handle: ZMQSocketHandle
        let watch: ZMQReactor.Watch
        /// Sends waiting for the socket to become writable, oldest first.
        var outbox = Deque<PendingSend>()
        /// Whether reading stopped because the inbox is full.
        var paused = false
        /// Takes what the socket receives on this thread, instead of its inbox.
        let receiver: (@Sendable (ZMQMessage) -> Void)?

        init(
            socket: ZMQSocket, handle: ZMQSocketHandle, watch: ZMQReactor.Watch,
            receiver: (@Sendable (ZMQMessage) -> Void)?
        ) {
            self.socket = socket
            self.handle = handle
            self.watch = watch
            self.receiver = receiver
        }
    }

    private let core: LoopCore
    private let reactor: ZMQReactor
    private var entries: [UInt64: Entry] = [:]
    /// Socket ids in creation order, so polling and reading go round in a stable order.
    private var order: [UInt64] = []
    private var logger: Logger { core.logger }

    init(core: LoopCore, reactor: ZMQReactor) {
        self.core = core
        self.reactor = reactor
    }

    // MARK: - Running

    /// Polls and runs commands until shutdown, then tears down.
    func run() {
        core.loopThreadID.store(ZMQThread.currentID, ordering: .relaxed)
        var polled: [Entry] = []
        while true {
            let (commands, stopping) = core.mailbox.take()
            for command in commands { command(self) }
            if stopping { break }

            polled.removeAll(keepingCapacity: true)
            var nearestDeadline: ContinuousClock.Instant?
            for id in order {
                guard let entry = entries[id] else { continue }
                if entry.socket.isClosed {
                    // Closed behind the loop's back (in a `withSocket` body): forget it rather than fail every poll.
                    closeSocket(id)
                    continue
                }
                var events: ZMQEvents = []
                if !entry.paused { events.insert(.pollIn) }
                if !entry.outbox.isEmpty {
                    events.insert(.pollOut)
                    entry.outbox.forEach { pending in
                        guard let deadline = pending.deadline else { return }
                        nearestDeadline = nearestDeadline.map { min($0, deadline) } ?? deadline
                    }
                }
                reactor.setEvents(events, of: entry.watch)
                if !events.isEmpty { polled.append(entry) }
            }

            // The commands just run may have posted more, without a wake-up (they are this thread's): take them now.
            if core.mailbox.hasItems { nearestDeadline = ContinuousClock.now }
            do {
                try reactor.wait(timeout: nearestDeadline.map { max(.zero, ContinuousClock.now.duration(to: $0)) })
            } catch {
                if error.code != .terminated {
                    logger.error("zmq_poll failed, shutting the event loop down", metadata: ["zmq.error": "\(error)"])
                }
                core.requestShutdown()
                continue  // The next turn takes the remaining commands and stops.
            }
            for entry in polled where entries[entry.handle.id] === entry {
                let events = reactor.events(of: entry.watch)
                if events.contains(.pollIn) { receive(from: entry) }
                if events.contains(.pollOut) { flush(entry) }
            }
            if nearestDeadline != nil { expireSends() }
        }
        tearDown()
    }

    /// Reads up to a batch of messages from `entry` into its inbox (or hands them to its receiver).
    private func receive(from entry: Entry) {
        for _ in 0..<max(1, core.configuration.receiveBatch) {
            let message: ZMQMessage?
            do {
                message = try entry.socket.tryReceive()
            } catch {
                logger.warning("receive failed", metadata: ["zmq.socket": "\(entry.handle)", "zmq.error": "\(error)"])
                return
            }
            guard let message else { return }
            if let receiver = entry.receiver {
                receiver(message)
            } else if !entry.handle.messages.push(message) {
                entry.paused = true
                return
            }
        }
    }

    // MARK: - Commands

    func makeSocket(
        _ type: ZMQSocketType, options: ZMQSocketOptions, receiver: (@Sendable (ZMQMessage) -> Void)? = nil
    ) throws(ZMQError) -> ZMQSocketHandle {
        let socket = try ZMQSocket(type, context: core.context, options: options)
        let id = nextSocketID.add(1, ordering: .relaxed).newValue
        let core = core
        let inbox = ZMQInbox(capacity: core.configuration.inboxCapacity) {
            _ = core.enqueue { loop in loop.resumeReading(id) }
        }
        let handle = ZMQSocketHandle(id: id, type: type, messages: inbox)
        if receiver != nil { inbox.finish() }
        entries[id] = Entry(
            socket: socket, handle: handle, watch: reactor.watch(socket, for: []), receiver: receiver)
        order.append(id)
        logger.trace("socket made", metadata: ["zmq.socket": "\(handle)"])
        return handle
    }

    func socket(_ id: UInt64) throws(ZMQError) -> ZMQSocket {
        guard let entry = entries[id] else {
            throw ZMQError(.notSocket, call: "socket #\(id) (closed, or not made by this loop)")
        }
        return entry.socket
    }

    func closeSocket(_ id: UInt64) {
        guard let entry = entries.removeValue(forKey: id) else { return }
        order.removeAll { $0 == id }
        reactor.unwatch(entry.watch)
        close(entry, failingSendsWith: .notSocket)
    }

    func startMonitor(_ id: UInt64, events: ZMQMonitorEvent.Kind) throws(ZMQError) -> ZMQSocketHandle {
        let monitored = try socket(id)
        let endpoint = "inproc://flowd.zmq-monitor.\(id).\(nextSocketID.add(1, ordering: .relaxed).newValue)"
        try monitored.startMonitor(at: endpoint, events: events)
        let monitorOptions = ZMQSocketOptions(linger: .zero, maxMessageSize: nil, heartbeat: nil)
        let monitor = try makeSocket(.pair, options: monitorOptions)
        do throws(ZMQError) {
            try socket(monitor.id).connect(endpoint)
        } catch {
            closeSocket(monitor.id)
            try? monitored.stopMonitor()
            throw error
        }
        return monitor
    }

    func resumeReading(_ id: UInt64) {
        entries[id]?.paused = false
    }

    // MARK: - Sending

    func enqueueSend(_ pending: PendingSend, on id: UInt64) {
        guard let entry = entries[id] else {
            pending.waiter.complete(.failure(ZMQError(.notSocket, call: pending.waiter.call + " (socket closed)")))
            return
        }
        entry.outbox.append(pending)
        // A send queued behind others waits its turn; otherwise it is tried at once.
        if entry.outbox.count == 1 { flush(entry) }
    }

    func pendingSendCount(on id: UInt64) throws(ZMQError) -> Int {
        guard let entry = entries[id] else {
            throw ZMQError(.notSocket, call: "socket #\(id) (closed, or not made by this loop)")
        }
        var count = 0
        entry.outbox.forEach { if !$0.waiter.isCompleted { count += 1 } }
        return count
    }

    func purgeCancelledSends(on id: UInt64) {
        entries[id]?.outbox.removeAll { $0.waiter.isCompleted }
    }

    /// Sends queued messages, oldest first, until one would block.
    private func flush(_ entry: Entry) {
        while let pending = entry.outbox.first {
            guard pending.waiter.claim() else {
                _ = entry.outbox.popFirst()  // Cancelled or timed out meanwhile.
                continue
            }
            do throws(ZMQError) {
                try entry.socket.send(pending.message, nonBlocking: true)
                _ = entry.outbox.popFirst()
                pending.waiter.complete(.success(()))
            } catch where error.code == .wouldBlock && entry.socket.type != .router {
                if pending.waiter.unclaim() { _ = entry.outbox.popFirst() }
                return
            } catch {
                _ = entry.outbox.popFirst()
                pending.waiter.complete(.failure(ZMQError(error.code, call: pending.waiter.call)))
            }
        }
    }

    /// Fails the sends whose deadline has passed.
    private func expireSends() {
        let now = ContinuousClock.now
        for entry in entries.values where !entry.outbox.isEmpty {
            entry.outbox.removeAll { pending in
                if pending.waiter.isCompleted { return true }
                guard let deadline = pending.deadline, deadline <= now else { return false }
                pending.waiter.complete(.failure(ZMQError(.wouldBlock, call: pending.waiter.call + " (timed out)")))
                return true
            }
        }
    }

    // MARK: - Shutdown

    private func close(_ entry: Entry, failingSendsWith code: ZMQError.Code) {
        let pendingSends = entry.outbox
        entry.outbox.removeAll()
        for pending in pendingSends {
            pending.waiter.complete(.failure(ZMQError(code, call: pending.waiter.call)))
        }
        entry.handle.messages.finish()
        // Never let a socket block context termination: bound a linger set to "forever".
        if let linger = try? entry.socket.option(.linger), linger < 0 {
            try? entry.socket.setOption(.linger, to: core.configuration.socketOptions.lingerMilliseconds)
        }
        entry.socket.close()
        logger.trace("socket closed", metadata: ["zmq.socket": "\(entry.handle)"])
    }

    private func tearDown() {
        for id in order {
            if let entry = entries[id] { close(entry, failingSendsWith: .terminated) }
        }
        entries.removeAll()
        order.removeAll()
        reactor.close()
        if core.ownsContext {
            do throws(ZMQError) {
                try core.context.terminate()
            } catch {
                // Sockets made on loop.context elsewhere are open; the context ends when the last one closes.
                logger.debug("zmq context left to its remaining sockets", metadata: ["zmq.error": "\(error)"])
            }
        }
        logger.debug("zmq event loop stopped")
        core.markTerminated()
    }
}

/// Ids for the sockets of every loop, so a handle never names another loop's socket.
private let nextSocketID = Atomic<UInt64>(0)

// MARK: - Sends

/// A message waiting to be queued by libzmq, with the caller waiting for the outcome.
struct PendingSend: Sendable {
    let message: ZMQMessage
    let waiter: SendWaiter
    let deadline: ContinuousClock.Instant?
}

/// Who takes a send's outcome: an awaiting caller, who may cancel (its ``SendTicket``), or a posted send's
/// completion, which cannot, so it needs no ticket: only the loop's thread completes it, once, as it takes the send
/// out of the queue.
enum SendWaiter: Sendable {
    case ticket(SendTicket)
    case completion(SendTicket.Completion, socket: ZMQSocketHandle)

    /// See ``SendTicket/call``.
    var call: String {
        switch self {
        case .ticket(let ticket): ticket.call
        case .completion(_, let socket): "send on \(socket)"
        }
    }

    var isCompleted: Bool {
        guard case .ticket(let ticket) = self else { return false }
        return ticket.isCompleted
    }

    /// See ``SendTicket/claim()``.
    func claim() -> Bool {
        guard case .ticket(let ticket) = self else { return true }
        return ticket.claim()
    }

    /// See ``SendTicket/unclaim()``.
    func unclaim() -> Bool {
        guard case .ticket(let ticket) = self else { return false }
        return ticket.unclaim()
    }

    /// Hands `result` on; the caller takes the send out of the queue (a completion is called every time).
    func complete(_ result: Result<Void, ZMQError>) {
        switch self {
        case .ticket(let ticket): ticket.complete(result)
        case .completion(let completion, _): completion(result)
        }
    }
}

/// The caller's side of one send: completed exactly once, by the loop (sent, failed, timed out, shut down) or by the
/// caller's cancellation, whichever comes first. While the loop is handing the message to libzmq ("claimed"), a
/// cancellation only takes effect if the message turns out not to be sendable now. The outcome goes to the continuation
/// of ``ZMQEventLoop/send(_:on:timeout:)`` (a post's, which cannot be cancelled, needs no ticket: ``SendWaiter``).
final class SendTicket: Sendable {
    typealias Completion = @Sendable (Result<Void, ZMQError>) -> Void

    private struct State {
        var completion: Completion?
        var completed = false
        var claimed = false
        var cancelRequested = false
    }

    private let socket: ZMQSocketHandle
    private let state: Mutex<State>

    /// What the send was, for errors: made only when one is reported.
    var call: String { "send on \(socket)" }

    init(on socket: ZMQSocketHandle) {
        self.socket = socket
        self.state = Mutex(State())
    }

    var isCompleted: Bool { state.withLock { $0.completed } }

    /// Stores the caller's continuation.
    ///
    /// - Returns: `false` when the send was cancelled already (the continuation has been resumed).
    func arm(_ continuation: CheckedContinuation<Result<Void, ZMQError>, Never>) -> Bool {
        let cancelled = state.withLock { state in
            if state.cancelRequested {
                state.completed = true
                return true
            }
            state.completion = { continuation.resume(returning: $0) }
            return false
        }
        if cancelled { continuation.resume(returning: .failure(ZMQError(.cancelled, call: call))) }
        return !cancelled
    }

    /// The loop is about to hand the message to libzmq.
    ///
    /// - Returns: `false` when the send is completed already (cancelled or timed out): skip it.
    func claim() -> Bool {
        state.withLock { state in
            guard !state.completed else { return false }
            state.claimed = true
            return true
        }
    }

    /// libzmq could not take the message now; it stays queued unless it was cancelled meanwhile.
    ///
    /// - Returns: `true` when it was cancelled (and is now completed): remove it.
    func unclaim() -> Bool {
        let cancelled = state.withLock { state in
            state.claimed = false
            return state.cancelRequested
        }
        if cancelled { complete(.failure(ZMQError(.cancelled, call: call))) }
        return cancelled
    }

    /// The caller's task was cancelled.
    ///
    /// - Returns: whether the send is completed now (the loop may drop it from its queue).
    func cancel() -> Bool {
        let completion = state.withLock { state -> Completion? in
            state.cancelRequested = true
            guard !state.claimed, !state.completed else { return nil }
            state.completed = true
            defer { state.completion = nil }
            return state.completion
        }
        completion?(.failure(ZMQError(.cancelled, call: call)))
        return completion != nil
    }

    /// Hands `result` to the caller, unless the send was completed already.
    func complete(_ result: Result<Void, ZMQError>) {
        let completion = state.withLock { state -> Completion? in
            guard !state.completed else { return nil }
            state.completed = true
            state.claimed = false
            defer { state.completion = nil }
            return state.completion
        }
        completion?(result)
    }
}
