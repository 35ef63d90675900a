internal import CZeroMQ
import Synchronization

/// Wakes a thread sleeping in `zmq_poll` from any other thread: a descriptor (an eventfd on Linux, a pipe elsewhere)
/// that the polling thread registers as a plain file descriptor, not a libzmq socket, so a poll costs no
/// `ZMQ_EVENTS` check (and its `poll` and `getpid` system calls) for it.
///
/// ```swift
/// let signal = try ZMQWakeSignal()
/// poller.register(fileDescriptor: signal.fileDescriptor, for: .pollIn)   // on the polling thread
/// signal.signal()                                                          // from any thread, after queueing work
/// if poller.events(at: wakeIndex).contains(.pollIn) { signal.drain() }    // then take the queued work
/// ```
///
/// Drain before taking the queued work, so that work queued after the drain always comes with a new signal.
/// ``ZMQReactor`` and ``ZMQMailbox`` do this for a thread's loop; use the signal directly only below them.
///
/// - Note: `Sendable`: the descriptors are used only with a `Mutex` held, so ``close()`` cannot free them while
///   another thread writes to them (nor let a reused descriptor number be written to).
package final class ZMQWakeSignal: Sendable {
    /// The descriptor the polling thread waits on for ``ZMQEvents/pollIn``; not valid once closed.
    package let fileDescriptor: Int32
    /// The read and write ends (the same eventfd on Linux); `nil` once closed.
    private let descriptors: Mutex<(read: Int32, write: Int32)?>

    /// Opens the descriptor.
    ///
    /// - Throws: ``ZMQError`` with the system's error when no descriptor can be opened (too many open files).
    package init() throws(ZMQError) {
        var fds: [Int32] = [-1, -1]
        guard czeromq_wake_open(&fds) == 0 else { throw ZMQError.last("eventfd/pipe for a wake-up signal") }
        fileDescriptor = fds[0]
        descriptors = Mutex((fds[0], fds[1]))
    }

    deinit { close() }

    /// Wakes the polling thread. Never blocks; signals sent while one is still pending are merged. Does nothing once
    /// closed.
    package func signal() {
        descriptors.withLock { descriptors in
            guard let descriptors else { return }
            czeromq_wake_signal(descriptors.write)
        }
    }

    /// On the polling thread: reads every pending wake-up without blocking.
    package func drain() {
        descriptors.withLock { descriptors in
            guard let descriptors else { return }
            czeromq_wake_drain(descriptors.read)
        }
    }

    /// Closes the descriptors; later signals do nothing. Call it on the polling thread once it no longer polls.
    package func close() {
        descriptors.withLock { descriptors in
            guard let open = descriptors else { return }
            descriptors = nil
            czeromq_wake_close(open.read, open.write)
        }
    }
}
