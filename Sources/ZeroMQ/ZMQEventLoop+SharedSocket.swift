import DequeModule
internal import Logging
import Synchronization

/// A socket made with a receiver (``ZMQEventLoop/makeSocket(_:options:receiver:)``), which every thread sends on: a
/// message posted while none waits before it leaves at once from the posting thread, with no wake-up of the loop's.
///
/// The loop's thread and the senders take turns under one mutex, and the loop waits on the socket's descriptor
/// (`ZMQ_FD`, ``ZMQReactor/watchNotifications(of:)``) rather than in `zmq_poll`, so it never touches the socket while
/// it sleeps. The descriptor only says that libzmq signalled the socket, and any call on the socket may take that
/// signal (a send processing the command that announced a message). So a sender on another thread reads `ZMQ_EVENTS`
/// after its send and wakes the loop when the socket is ready; the loop's own calls leave that read to the loop,
/// before it next waits (``needsService``).
///
/// - Note: `@unchecked Sendable`: the socket is used only with `state`'s mutex held (the full memory barrier libzmq
///   asks for when a socket changes threads); everything else is in the mutex.
final class SharedSocket: @unchecked Sendable {
    private struct State {
        /// Sends libzmq could not take yet, oldest first.
        var outbox = Deque<PendingSend>()
        /// A call may have taken the descriptor's signal: the loop reads `ZMQ_EVENTS` before it waits on it.
        var needsService = true
        /// Why later sends fail, once the socket is closed.
        var closed: ZMQError.Code?
    }

    private let socket: ZMQSocket
    private let state = Mutex(State())
    private let wakeUp: ZMQWakeSignal

    init(_ socket: ZMQSocket, wakeUp: ZMQWakeSignal) {
        self.socket = socket
        self.wakeUp = wakeUp
    }

    /// Sends `pending` now when nothing waits before it and libzmq takes it, or queues it for the loop; completes its
    /// ticket on this thread when it is sent or fails now.
    ///
    /// - Parameter onLoopThread: whether this is the loop's thread (which reads `ZMQ_EVENTS` before it waits).
    func post(_ pending: PendingSend, onLoopThread: Bool) {
        let (outcome, wake) = state.withLock { state -> (Result<Void, ZMQError>?, Bool) in
            if let code = state.closed { return (.failure(ZMQError(code, call: pending.ticket.call)), false) }
            // Queued behind others: the loop sends it once the socket is writable, which it already waits for.
            guard state.outbox.isEmpty else {
                state.outbox.append(pending)
                return (nil, false)
            }
            guard pending.ticket.claim() else { return (nil, false) }  // cancelled meanwhile
            var outcome: Result<Void, ZMQError>?
            do throws(ZMQError) {
                if try socket.trySend(pending.message) {
                    outcome = .success(())
                } else if socket.type == .router {
                    outcome = .failure(ZMQError(.wouldBlock, call: pending.ticket.call))
                } else if !pending.ticket.unclaim() {
                    state.outbox.append(pending)
                }
            } catch {
                outcome = .failure(ZMQError(error.code, call: pending.ticket.call))
            }
            if onLoopThread {
                state.needsService = true
                return (outcome, false)
            }
            let events = (try? socket.option(.events)) ?? .pollIn
            guard events.contains(.pollIn) || (events.contains(.pollOut) && !state.outbox.isEmpty) else {
                return (outcome, false)
            }
            state.needsService = true
            return (outcome, true)
        }
        if wake { wakeUp.signal() }
        if let outcome { pending.ticket.complete(outcome) }
    }

    /// Whether the loop must read `ZMQ_EVENTS` before it waits on the descriptor.
    var needsService: Bool { state.withLock { $0.needsService } }

    /// On the loop's thread, when the descriptor was signalled or ``needsService``: sends what libzmq takes now and
    /// reads up to `batch` messages, which the caller hands to the receiver (outside the lock, so that it may send).
    func service(batch: Int, logger: Logger) -> [ZMQMessage] {
        var completed: [(SendTicket, Result<Void, ZMQError>)] = []
        let received = state.withLock { state -> [ZMQMessage] in
            state.needsService = false
            guard state.closed == nil, let events = try? socket.option(.events) else { return [] }
            if events.contains(.pollOut), !state.outbox.isEmpty {
                completed = flush(&state)
            }
            var received: [ZMQMessage] = []
            guard events.contains(.pollIn) else { return received }
            while received.count < batch {
                do throws(ZMQError) {
                    guard let message = try socket.tryReceive() else { return received }
                    received.append(message)
                } catch {
                    logger.warning("receive failed", metadata: ["zmq.error": "\(error)"])
                    return received
                }
            }
            state.needsService = true  // more may wait
            return received
        }
        for (ticket, outcome) in completed { ticket.complete(outcome) }
        return received
    }

    /// Sends queued messages, oldest first, until one would block; returns the tickets to complete.
    private func flush(_ state: inout State) -> [(SendTicket, Result<Void, ZMQError>)] {
        var completed: [(SendTicket, Result<Void, ZMQError>)] = []
        while let pending = state.outbox.first {
            guard pending.ticket.claim() else {
                _ = state.outbox.popFirst()  // Cancelled or timed out meanwhile.
                continue
            }
            state.needsService = true  // a send may take the descriptor's signal
            do throws(ZMQError) {
                guard try socket.trySend(pending.message) else {
                    if pending.ticket.unclaim() { _ = state.outbox.popFirst() }
                    break
                }
                _ = state.outbox.popFirst()
                completed.append((pending.ticket, .success(())))
            } catch {
                _ = state.outbox.popFirst()
                completed.append((pending.ticket, .failure(ZMQError(error.code, call: pending.ticket.call))))
            }
        }
        return completed
    }

    /// Runs `body` with the socket, on the loop's thread (a command), and reads `ZMQ_EVENTS` before the next wait.
    func withSocket<Value>(_ body: (ZMQSocket) throws(ZMQError) -> Value) throws(ZMQError) -> Value {
        try state.withLock { state throws(ZMQError) -> Value in
            state.needsService = true
            return try body(socket)
        }
    }

    /// The earliest deadline of the queued sends.
    var nearestDeadline: ContinuousClock.Instant? {
        state.withLock { state in state.outbox.compactMap(\.deadline).min() }
    }

    /// Drops the sends completed meanwhile (cancelled), and fails those whose deadline passed.
    func expireSends(now: ContinuousClock.Instant) {
        var expired: [SendTicket] = []
        state.withLock { state in
            state.outbox.removeAll { pending in
                if pending.ticket.isCompleted { return true }
                guard let deadline = pending.deadline, deadline <= now else { return false }
                expired.append(pending.ticket)
                return true
            }
        }
        for ticket in expired { ticket.complete(.failure(ZMQError(.wouldBlock, call: ticket.call + " (timed out)"))) }
    }

    /// The sends not taken by libzmq yet.
    var pendingCount: Int {
        state.withLock { state in state.outbox.reduce(0) { $0 + ($1.ticket.isCompleted ? 0 : 1) } }
    }

    /// Closes the socket (with `closeSocket` on the loop's thread) and fails every queued send, and every later one,
    /// with `code`.
    func close(failingSendsWith code: ZMQError.Code, _ closeSocket: (ZMQSocket) -> Void) {
        let failed = state.withLock { state -> Deque<PendingSend> in
            state.closed = code
            closeSocket(socket)
            defer { state.outbox.removeAll() }
            return state.outbox
        }
        for pending in failed { pending.ticket.complete(.failure(ZMQError(code, call: pending.ticket.call))) }
    }
}
