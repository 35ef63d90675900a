import Synchronization

/// What other threads hand to a ``ZMQReactor``'s thread: items queued under a mutex, a wake-up per batch, and a
/// close that refuses later items and wakes the thread one last time.
///
/// Other threads ``post(_:)``; the reactor's thread ``take()``s after each wait. A wake-up is sent only when none is
/// pending since the last take, so a burst of posts costs one wake-up.
///
/// - Note: `Sendable`: all state is behind one `Mutex`, and ``ZMQWakeSignal`` is thread-safe.
package final class ZMQMailbox<Item: Sendable>: Sendable {
    private struct State {
        var items: [Item] = []
        var wakePending = false
        var closed = false
        var wakeUp: ZMQWakeSignal?
    }

    private let state: Mutex<State>

    /// A mailbox that wakes its reactor through `wakeUp`; with `nil`, items wait until ``connect(wakeUp:)``.
    package init(wakeUp: ZMQWakeSignal? = nil) {
        state = Mutex(State(wakeUp: wakeUp))
    }

    /// Sets the wake-up of a mailbox made before its reactor, and wakes it if items are waiting.
    package func connect(wakeUp: ZMQWakeSignal) {
        let wakeUp = state.withLock { state -> ZMQWakeSignal? in
            state.wakeUp = wakeUp
            return !state.items.isEmpty || state.closed ? claimWakeUp(&state) : nil
        }
        wakeUp?.signal()
    }

    /// Queues `item` and wakes the reactor.
    ///
    /// - Returns: `false` (and drops `item`) once the mailbox is closed.
    @discardableResult
    package func post(_ item: Item) -> Bool {
        let (accepted, wakeUp) = state.withLock { state -> (Bool, ZMQWakeSignal?) in
            guard !state.closed else { return (false, nil) }
            state.items.append(item)
            return (true, claimWakeUp(&state))
        }
        wakeUp?.signal()
        return accepted
    }

    /// Queues `item` without waking the reactor: for the reactor's own thread, which takes it before it waits again
    /// (it checks ``hasItems`` before each wait).
    ///
    /// - Returns: `false` (and drops `item`) once the mailbox is closed.
    @discardableResult
    package func postWithoutWaking(_ item: Item) -> Bool {
        state.withLock { state in
            guard !state.closed else { return false }
            state.items.append(item)
            return true
        }
    }

    /// Whether items wait to be taken.
    package var hasItems: Bool { state.withLock { !$0.items.isEmpty } }

    /// Refuses later items and wakes the reactor, which sees `closed` at its next ``take()``.
    package func close() {
        let wakeUp = state.withLock { state -> ZMQWakeSignal? in
            guard !state.closed else { return nil }
            state.closed = true
            return claimWakeUp(&state)
        }
        wakeUp?.signal()
    }

    /// Whether ``close()`` was called.
    package var isClosed: Bool { state.withLock { $0.closed } }

    /// On the reactor's thread: the items queued since the last take, oldest first, and whether the mailbox is closed.
    package func take() -> (items: [Item], closed: Bool) {
        state.withLock { state in
            let items = state.items
            state.items.removeAll(keepingCapacity: true)
            state.wakePending = false
            return (items, state.closed)
        }
    }

    /// The wake-up to send once the lock is released, if none is pending. The reactor drains its wake-up signal
    /// before it takes the items (clearing `wakePending`), so every item posted after that comes with a wake-up of
    /// its own; sent outside the lock, so that the woken reactor's `take` does not find the poster still holding it
    /// (a wake-up that comes after the take is a spurious turn, never a lost item).
    private func claimWakeUp(_ state: inout State) -> ZMQWakeSignal? {
        guard !state.wakePending, let wakeUp = state.wakeUp else { return nil }
        state.wakePending = true
        return wakeUp
    }
}
