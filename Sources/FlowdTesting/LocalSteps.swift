import DequeModule
import FlowCore
import Synchronization

/// Steps the daemon's own steppers emitted, waiting to be fed back to it. `Sendable`: behind a `Mutex` (a stepper
/// may emit from any thread).
final class LocalSteps: Sendable {
    private let items = Mutex<Deque<(session: String, attachment: AttachmentID, step: Step)>>([])

    func append(_ session: String, _ attachment: AttachmentID, _ step: Step) {
        items.withLock { $0.append((session, attachment, step)) }
    }

    func popFirst() -> (session: String, attachment: AttachmentID, step: Step)? {
        items.withLock { $0.popFirst() }
    }

    func removeAll() { items.withLock { $0.removeAll() } }
}
