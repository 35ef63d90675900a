import DequeModule
import Synchronization

/// An unbounded FIFO between tasks with one consumer: producers ``push(_:)`` without waiting; the consumer awaits
/// ``next()`` and may take everything else already there with ``drain()`` (to handle it as one batch).
///
/// Not an `AsyncStream`: the consumer also takes what is waiting without awaiting (``drain()``), and a cancelled wait
/// does not end the queue.
///
/// `Sendable`: every access goes through one mutex.
final class EventQueue<Element: Sendable>: Sendable {
    private struct State {
        var buffer: Deque<Element> = []
        var waiter: CheckedContinuation<Element?, Never>?
        var finished = false
    }

    private enum Outcome {
        case element(Element)
        case end
        case wait
    }

    private let state = Mutex(State())

    /// Appends `element`, or hands it to the waiting consumer. Does nothing once finished.
    func push(_ element: Element) {
        let waiter = state.withLock { state -> CheckedContinuation<Element?, Never>? in
            guard !state.finished else { return nil }
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.buffer.append(element)
            return nil
        }
        waiter?.resume(returning: element)
    }

    /// The next element, waiting for one; `nil` once finished and empty, or when the waiting task is cancelled.
    func next() async -> Element? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Element?, Never>) in
                let outcome = state.withLock { state -> Outcome in
                    if !state.buffer.isEmpty { return .element(state.buffer.removeFirst()) }
                    if state.finished || Task.isCancelled { return .end }
                    state.waiter = continuation
                    return .wait
                }
                switch outcome {
                case .element(let element): continuation.resume(returning: element)
                case .end: continuation.resume(returning: nil)
                case .wait: break
                }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Element?, Never>? in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: nil)
        }
    }

    /// Takes every element waiting now, oldest first, without waiting.
    func drain() -> [Element] {
        state.withLock { state in
            defer { state.buffer.removeAll() }
            return Array(state.buffer)
        }
    }

    /// Ends the queue: the consumer gets what is buffered, then `nil`; later pushes are dropped.
    func finish() {
        let waiter = state.withLock { state -> CheckedContinuation<Element?, Never>? in
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }
}
