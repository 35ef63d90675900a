internal import CZeroMQ
import Synchronization

/// A libzmq context: the container of a process's sockets, its I/O threads and its `inproc://` namespace.
///
/// Use one context per process: `inproc://` endpoints and the ZAP handler (`inproc://zeromq.zap.01`) are only seen by
/// sockets of the same context.
///
/// Lifetime: every ``ZMQSocket`` keeps its context alive, so the context is terminated (`zmq_ctx_term`) when the last
/// reference to it goes away, which is after every socket has been closed. Termination then waits at most the
/// sockets' `ZMQ_LINGER`, which ``ZMQSocketOptions`` always bounds. ``terminate()`` does it earlier and refuses
/// (instead of blocking forever, as `zmq_ctx_term` would) while sockets are still open.
///
/// - Note: `@unchecked Sendable` because libzmq contexts are thread-safe (`zmq_ctx_new(3)`: "A ØMQ context is thread
///   safe and may be shared among as many application threads as necessary"); the Swift-side bookkeeping (open
///   socket count, terminated flag) is protected by a `Mutex`.
package final class ZMQContext: @unchecked Sendable {
    private struct State {
        var openSockets = 0
        var terminated = false
    }

    /// The `void *` from `zmq_ctx_new`; valid until termination.
    let handle: UnsafeMutableRawPointer
    private let state = Mutex(State())

    /// Makes a context.
    ///
    /// - Parameter ioThreads: libzmq's background I/O threads (`ZMQ_IO_THREADS`); 1 is enough for tens of thousands of
    ///   messages per second.
    /// - Throws: ``ZMQError`` when libzmq cannot create the context or rejects the setting.
    package init(ioThreads: Int32 = 1) throws(ZMQError) {
        guard let handle = zmq_ctx_new() else { throw ZMQError.last("zmq_ctx_new") }
        if ioThreads != 1, zmq_ctx_set(handle, ZMQ_IO_THREADS, ioThreads) != 0 {
            let error = ZMQError.last("zmq_ctx_set(ZMQ_IO_THREADS, \(ioThreads))")
            zmq_ctx_term(handle)
            throw error
        }
        self.handle = handle
    }

    deinit {
        let alreadyTerminated = state.withLock { state in
            defer { state.terminated = true }
            return state.terminated
        }
        if !alreadyTerminated {
            // Every socket retains its context, so none is open here: this waits at most the sockets' linger.
            while zmq_ctx_term(handle) != 0, zmq_errno() == EINTR {}
        }
    }

    /// Whether ``terminate()`` has run.
    package var isTerminated: Bool { state.withLock { $0.terminated } }

    /// The number of sockets of this context that are still open.
    package var openSocketCount: Int { state.withLock { $0.openSockets } }

    /// Terminates the context now (`zmq_ctx_term`); a second call does nothing.
    ///
    /// Waits at most the closed sockets' linger for their queued messages.
    ///
    /// - Throws: ``ZMQError/Code/busy`` while sockets of this context are open: close them first (`zmq_ctx_term`
    ///   would block until they are).
    package func terminate() throws(ZMQError) {
        try state.withLock { state throws(ZMQError) in
            if state.terminated { return }
            guard state.openSockets == 0 else {
                throw ZMQError(.busy, call: "zmq_ctx_term (\(state.openSockets) sockets still open)")
            }
            state.terminated = true
        }
        // Nothing can create a socket any more; zmq_ctx_term only waits for the lingering messages.
        while zmq_ctx_term(handle) != 0, zmq_errno() == EINTR {}
    }

    /// Makes every blocking operation on this context's sockets fail with ``ZMQError/Code/terminated``
    /// (`zmq_ctx_shutdown`), without waiting. The context is still terminated later, as usual.
    package func shutdown() {
        state.withLock { state in
            if !state.terminated { zmq_ctx_shutdown(handle) }
        }
    }

    /// Reserves a socket slot: fails once the context is terminated, so no socket is made on a freed context.
    func socketOpened(_ call: @autoclosure () -> String) throws(ZMQError) {
        try state.withLock { state throws(ZMQError) in
            guard !state.terminated else { throw ZMQError(.terminated, call: call()) }
            state.openSockets += 1
        }
    }

    /// Releases a slot taken by ``socketOpened(_:)``.
    func socketClosed() {
        state.withLock { $0.openSockets -= 1 }
    }
}
