import Foundation

/// Where code on another thread (the daemon's I/O thread inside a flow, the journal's syncer) waits until the test
/// lets it go.
///
/// `Sendable`: its state is two semaphores.
final class ThreadGate: Sendable {
    private let held = DispatchSemaphore(value: 0)
    private let opened = DispatchSemaphore(value: 0)

    /// Called on the held thread: says it is here, then waits for ``open()``.
    func pass() {
        held.signal()
        opened.wait()
    }

    /// Waits up to 30 s for a thread to reach ``pass()``; `false` if none did.
    func waitUntilHeld() -> Bool { held.wait(timeout: .now() + 30) == .success }

    /// Lets the held thread go; called with none held, it lets the next one through at once.
    func open() { opened.signal() }
}
