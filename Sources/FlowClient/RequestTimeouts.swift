import DequeModule
import HeapModule
import Synchronization

/// The timeouts of a connection's waiting requests, all served by one task (``run(fire:)``, a child of the
/// connection's `run`), so that a request costs no task or timer of its own: its deadline is kept here from
/// ``schedule(_:timeout:due:)`` until its reply (``cancel(_:)``) or until it fires.
///
/// The task sleeps until the earliest deadline; a new deadline wakes it only when it is earlier than that (requests
/// with the same timeout come in the order of their deadlines, so normally it does not).
///
/// `Sendable`: every access goes through one mutex.
final class RequestTimeouts: Sendable {
    /// When a request's timeout fires, and whether it was put off once already (``ConnectionMachine/timeoutFired``).
    struct Deadline: Sendable {
        var due: ContinuousClock.Instant
        var timeout: Duration
        var extended: Bool
    }

    /// A deadline in the queue; one whose request was answered or put off is skipped when it comes up.
    private struct Entry: Comparable {
        var due: ContinuousClock.Instant
        var req: UInt64

        static func < (lhs: Entry, rhs: Entry) -> Bool { (lhs.due, lhs.req) < (rhs.due, rhs.req) }
    }

    /// The deadlines, earliest first: one that comes after every other (a connection's requests, with one timeout,
    /// come so) is appended to a FIFO in O(1), the others go to a heap.
    private struct DeadlineQueue {
        private var inOrder = Deque<Entry>()
        private var outOfOrder = Heap<Entry>()

        init() {}

        init(_ entries: [Entry]) {
            inOrder = Deque(entries.sorted())
        }

        var count: Int { inOrder.count + outOfOrder.count }

        var min: Entry? {
            guard let first = inOrder.first else { return outOfOrder.min }
            guard let other = outOfOrder.min, other < first else { return first }
            return other
        }

        mutating func insert(_ entry: Entry) {
            if let last = inOrder.last, entry < last {
                outOfOrder.insert(entry)
            } else {
                inOrder.append(entry)
            }
        }

        mutating func popMin() {
            if let first = inOrder.first, outOfOrder.min.map({ !($0 < first) }) ?? true {
                inOrder.removeFirst()
            } else {
                _ = outOfOrder.popMin()
            }
        }
    }

    /// What the serving task is doing, for ``schedule(_:timeout:due:)`` to know whether to wake it.
    private enum Mode {
        case stopped
        case busy
        case idle
        case sleeping(until: ContinuousClock.Instant)
    }

    private struct State {
        var deadlines: [UInt64: Deadline] = [:]
        var queue = DeadlineQueue()
        var mode = Mode.stopped
        var wake: CheckedContinuation<Void, Never>?
        var signalled = false
    }

    private let state = Mutex(State())

    /// Keeps `req`'s deadline.
    ///
    /// - Returns: `false` when no task serves the timeouts (the connection does not run): the caller times itself.
    func schedule(_ req: UInt64, timeout: Duration, due: ContinuousClock.Instant) -> Bool {
        schedule(req, timeout: timeout, due: due, whileStopped: false)
    }

    /// Keeps `req`'s deadline also while no task serves the timeouts: it fires once ``run(fire:)`` runs (for a request
    /// whose outcome goes to a callback, with no task to time it).
    func keep(_ req: UInt64, timeout: Duration, due: ContinuousClock.Instant) {
        _ = schedule(req, timeout: timeout, due: due, whileStopped: true)
    }

    private func schedule(
        _ req: UInt64, timeout: Duration, due: ContinuousClock.Instant, whileStopped: Bool
    ) -> Bool {
        let (served, wake) = state.withLock { state -> (Bool, CheckedContinuation<Void, Never>?) in
            let wakes: Bool
            switch state.mode {
            case .stopped:
                guard whileStopped else { return (false, nil) }
                wakes = false
            case .busy, .idle: wakes = true  // busy: it may have read the earliest deadline already
            case .sleeping(let until): wakes = due < until
            }
            state.deadlines[req] = Deadline(due: due, timeout: timeout, extended: false)
            state.queue.insert(Entry(due: due, req: req))
            return (true, wakes ? Self.signal(&state) : nil)
        }
        wake?.resume()
        return served
    }

    /// Forgets `req`'s deadline (it was answered, or its waiter gave up).
    func cancel(_ req: UInt64) {
        state.withLock { state in
            guard state.deadlines.removeValue(forKey: req) != nil else { return }
            // Answered deadlines stay in the queue until they come up; keep it within twice what is live.
            if state.queue.count > 2 * state.deadlines.count + 64 {
                state.queue = DeadlineQueue(state.deadlines.map { Entry(due: $0.value.due, req: $0.key) })
            }
        }
    }

    /// Fires every deadline when it comes, until the task is cancelled. `fire` is given the request, its deadline and
    /// the time, and returns when to fire again (the deadline put off), or `nil`.
    func run(
        fire: (UInt64, Deadline, ContinuousClock.Instant) -> ContinuousClock.Instant?
    ) async {
        let clock = ContinuousClock()
        state.withLock { $0.mode = .busy }
        defer {
            state.withLock { state in
                state.mode = .stopped
                state.deadlines.removeAll()
                state.queue = DeadlineQueue()
            }
        }
        while !Task.isCancelled {
            let now = clock.now
            let (due, next) = state.withLock { state -> ([(UInt64, Deadline)], ContinuousClock.Instant?) in
                state.mode = .busy
                state.signalled = false
                var due: [(UInt64, Deadline)] = []
                while let top = state.queue.min {
                    guard let deadline = state.deadlines[top.req], deadline.due == top.due else {
                        state.queue.popMin()
                        continue
                    }
                    guard top.due <= now else { break }
                    state.queue.popMin()
                    state.deadlines[top.req] = nil
                    due.append((top.req, deadline))
                }
                return (due, state.queue.min?.due)
            }
            if !due.isEmpty {
                for (req, deadline) in due {
                    guard let later = fire(req, deadline, clock.now) else { continue }
                    let putOff = Deadline(due: later, timeout: deadline.timeout, extended: true)
                    state.withLock { state in
                        state.deadlines[req] = putOff
                        state.queue.insert(Entry(due: later, req: req))
                    }
                }
                continue
            }
            if let next {
                await sleep(until: next, clock: clock)
            } else {
                await waitForSignal(mode: .idle)
            }
        }
    }

    /// Sleeps until `instant`, or until an earlier deadline is scheduled, or the task is cancelled.
    private func sleep(until instant: ContinuousClock.Instant, clock: ContinuousClock) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await Task.sleep(until: instant, clock: clock) }
            group.addTask { await self.waitForSignal(mode: .sleeping(until: instant)) }
            await group.next()
            group.cancelAll()
            // The signal's waiter ends with its cancellation; the sleep's does too.
        }
    }

    /// Waits until ``schedule(_:timeout:due:)`` signals (or the task is cancelled), in `mode`.
    private func waitForSignal(mode: Mode) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if state.signalled || Task.isCancelled {
                        state.signalled = false
                        return true
                    }
                    state.mode = mode
                    state.wake = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            state.withLock { state in
                defer { state.wake = nil }
                return state.wake
            }?.resume()
        }
    }

    /// The waiting continuation to resume, or a signal kept for the next wait.
    private static func signal(_ state: inout State) -> CheckedContinuation<Void, Never>? {
        guard let wake = state.wake else {
            state.signalled = true
            return nil
        }
        state.wake = nil
        return wake
    }
}
