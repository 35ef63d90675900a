import Synchronization

/// Wakes a thread sleeping in `zmq_poll` from any other thread: an `inproc://` PAIR pair whose receiving end the
/// polling thread registers for ``ZMQEvents/pollIn``.
///
/// ```swift
/// let (wakeReceiver, signal) = try ZMQWakeUp.make(context: context, name: "flowd-io")
/// poller.register(wakeReceiver, for: .pollIn)              // on the polling thread
/// signal.signal()                                          // from any thread, after queueing work
/// if ready[wakeIndex].contains(.pollIn) { ZMQWakeUp.drain(wakeReceiver) }   // then take the queued work
/// ```
///
/// Drain before taking the queued work, so that work queued after the drain always comes with a new signal.
/// ``ZMQReactor`` and ``ZMQMailbox`` do this for a thread's loop; use the pair directly only below them.
package enum ZMQWakeUp: Sendable {
    /// Makes a connected pair in `context`.
    ///
    /// - Parameter name: makes the `inproc://` endpoint unique and readable (`inproc://<name>.wake.<n>`).
    /// - Returns: the receiving socket (owned by the polling thread) and the signal (for every other thread).
    package static func make(
        context: ZMQContext,
        name: String
    ) throws(ZMQError) -> (receiver: ZMQSocket, signal: ZMQWakeSignal) {
        let endpoint = "inproc://\(name).wake.\(nextWakeUpID.add(1, ordering: .relaxed).newValue)"
        let options = ZMQSocketOptions(linger: .zero, maxMessageSize: nil, heartbeat: nil)
        let receiver = try ZMQSocket(.pair, context: context, options: options)
        try receiver.bind(endpoint)
        let sender = try ZMQSocket(.pair, context: context, options: options)
        try sender.connect(endpoint)
        return (receiver, ZMQWakeSignal(sender))
    }

    /// Reads every pending wake-up from `receiver` without blocking.
    package static func drain(_ receiver: ZMQSocket) {
        while (try? receiver.tryReceive()) != nil {}
    }
}

/// The sending end of a ``ZMQWakeUp`` pair, usable from any thread.
///
/// - Note: `Sendable` although it holds a libzmq socket: the socket is only used with a `Mutex` held, which is the
///   full memory barrier libzmq requires when a socket changes threads, so it is never used by two threads at once.
package final class ZMQWakeSignal: Sendable {
    private let sender: Mutex<ZMQSocket?>

    init(_ sender: sending ZMQSocket) {
        self.sender = Mutex(sender)
    }

    /// Wakes the polling thread. Never blocks; signals sent while one is still pending may be merged.
    package func signal() {
        sender.withLock { sender in
            // An empty frame. A full queue (EAGAIN) means wake-ups are pending already, which is enough.
            _ = try? sender?.trySend(ZMQMessage([[]]))
        }
    }

    /// Closes the sending socket; later signals do nothing. Call it before terminating the context.
    package func close() {
        sender.withLock { sender in
            sender?.close()
            sender = nil
        }
    }
}

private let nextWakeUpID = Atomic<UInt64>(0)
