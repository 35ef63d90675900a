import Dispatch
import Foundation
import Synchronization

/// Heartbeats a fake daemon sends one client, from a thread of its own: a test's task runs on Swift's cooperative
/// pool (two threads on a two-core machine, shared with every other test), which a busy machine may not schedule for
/// longer than the client's liveness window. Once ``stop()`` returns, no beat is sent any more.
///
/// `Sendable`: `stopped` is behind a mutex; the thread only waits on the semaphore and calls `beat`.
final class KeepAlive: Sendable {
    private let stopped = Mutex(false)
    private let wake = DispatchSemaphore(value: 0)

    /// Starts the thread: `beat` (which must not block) every `milliseconds`, the first one after `milliseconds`.
    init(every milliseconds: Int, name: String, beat: @escaping @Sendable () -> Void) {
        let thread = Thread { [self] in
            while wake.wait(timeout: .now() + .milliseconds(milliseconds)) == .timedOut {
                let running = stopped.withLock { stopped in
                    if !stopped { beat() }
                    return !stopped
                }
                if !running { return }
            }
        }
        thread.name = name
        thread.start()
    }

    /// Stops the beats; safe to call more than once.
    func stop() {
        let wasStopped = stopped.withLock { stopped in
            defer { stopped = true }
            return stopped
        }
        if !wasStopped { wake.signal() }
    }
}
