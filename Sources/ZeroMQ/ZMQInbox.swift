import DequeModule
import Synchronization

/// The messages one ``ZMQEventLoop`` socket received, as an `AsyncSequence` (``ZMQSocketHandle/messages``).
///
/// The loop thread reads the socket and buffers what it reads here. When ``capacity`` messages wait unread, the loop
/// stops reading that socket until half of them are consumed, so libzmq's own queues and high-water marks hold the
/// rest back (and a slow consumer cannot make the process grow without bound).
///
/// The sequence ends (returns `nil`) after the socket is closed or the loop shut down and the buffered messages have
/// been consumed. Several tasks iterating the same inbox share its messages, each message going to one of them.
/// Cancelling a waiting task ends its iteration.
package final class ZMQInbox: AsyncSequence, Sendable {
    package typealias Element = ZMQMessage
    package typealias Failure = Never

    private struct State {
        var buffer = Deque<ZMQMessage>()
        var waiters: Deque<(id: UInt64, continuation: CheckedContinuation<ZMQMessage?, Never>)> = []
        var nextWaiterID: UInt64 = 0
        var finished = false
        var paused = false
    }

    private enum Receipt {
        case message(ZMQMessage, resumeReading: Bool)
        case end
        case wait
    }

    /// How many unread messages are buffered before the loop stops reading the socket.
    package let capacity: Int
    private let state = Mutex(State())
    /// Asks the loop thread to read the socket again.
    private let resumeReading: @Sendable () -> Void

    init(capacity: Int, resumeReading: @escaping @Sendable () -> Void) {
        self.capacity = Swift.max(1, capacity)
        self.resumeReading = resumeReading
    }

    /// The number of buffered, unread messages.
    package var bufferedCount: Int { state.withLock { $0.buffer.count } }

    /// Iterates the inbox.
    package struct AsyncIterator: AsyncIteratorProtocol {
        let inbox: ZMQInbox

        /// The next message, or `nil` once the socket is closed and drained, or the task is cancelled.
        package mutating func next() async -> ZMQMessage? {
            await inbox.next()
        }
    }

    package func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(inbox: self)
    }

    /// The next message, waiting for one; `nil` once the socket is closed and drained, or the task is cancelled.
    package func next() async -> ZMQMessage? {
        let id = state.withLock { state in
            defer { state.nextWaiterID += 1 }
            return state.nextWaiterID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<ZMQMessage?, Never>) in
                let receipt = state.withLock { state -> Receipt in
                    if let message = state.buffer.popFirst() {
                        let resume = state.paused && state.buffer.count <= capacity / 2
                        if resume { state.paused = false }
                        return .message(message, resumeReading: resume)
                    }
                    // Checked under the lock: a cancellation handler that ran before this found no waiter to end.
                    if state.finished || Task.isCancelled { return .end }
                    state.waiters.append((id, continuation))
                    return .wait
                }
                switch receipt {
                case .message(let message, let resume):
                    if resume { resumeReading() }
                    continuation.resume(returning: message)
                case .end:
                    continuation.resume(returning: nil)
                case .wait:
                    break
                }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                state.waiters.firstIndex { $0.id == id }.map { state.waiters.remove(at: $0).continuation }
            }
            waiter?.resume(returning: nil)
        }
    }

    /// The next message if one is buffered, without waiting.
    package func tryNext() -> ZMQMessage? {
        let (message, resume) = state.withLock { state -> (ZMQMessage?, Bool) in
            guard let message = state.buffer.popFirst() else { return (nil, false) }
            let resume = state.paused && state.buffer.count <= capacity / 2
            if resume { state.paused = false }
            return (message, resume)
        }
        if resume { resumeReading() }
        return message
    }

    // MARK: - Loop thread side

    /// Hands a received message to a waiting consumer or buffers it.
    ///
    /// - Returns: `false` when the buffer is now full: the loop must stop reading the socket until
    ///   `resumeReading` is called.
    func push(_ message: ZMQMessage) -> Bool {
        let (waiter, hasRoom) = state.withLock { state -> (CheckedContinuation<ZMQMessage?, Never>?, Bool) in
            if state.finished { return (nil, true) }
            if !state.waiters.isEmpty { return (state.waiters.removeFirst().continuation, true) }
            state.buffer.append(message)
            if state.buffer.count >= capacity {
                state.paused = true
                return (nil, false)
            }
            return (nil, true)
        }
        waiter?.resume(returning: message)
        return hasRoom
    }

    /// Ends the sequence once the buffered messages are consumed.
    func finish() {
        let waiters = state.withLock { state in
            state.finished = true
            defer { state.waiters.removeAll() }
            return state.waiters.map(\.continuation)
        }
        for waiter in waiters { waiter.resume(returning: nil) }
    }
}

@available(*, unavailable)
extension ZMQInbox.AsyncIterator: Sendable {}
