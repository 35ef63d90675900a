import FlowCore
import FlowDaemon
import Synchronization

/// The steps a core's in-daemon steppers emit, waiting to be fed back, and the subscriptions that collect them.
///
/// `Sendable`: behind a `Mutex`; the subscriptions are only touched from the fuzz's thread.
final class LocalStepQueue: Sendable {
    struct Emitted: Sendable, CustomStringConvertible {
        let session: String
        let attachment: AttachmentID
        let step: Step

        var description: String { "\(session) \(attachment) \(step)" }
    }

    private let items = Mutex<[Emitted]>([])
    /// By session and attachment (attachment numbers are per session).
    private let subscriptions = Mutex<[String: [AttachmentID: (StepRelay, StepRelay.Subscription)]]>([:])

    /// Carries out a local stepper output: listens to a stepper attached or resumed, stops for one detached.
    func perform(_ output: DaemonOutput) {
        switch output {
        case .attachLocal(let session, let attachment), .resumeLocal(let session, let attachment):
            let id = attachment.id
            let subscription = attachment.stepper.steps.subscribe { [self] step in
                items.withLock { $0.append(Emitted(session: session, attachment: id, step: step)) }
            }
            subscriptions.withLock { $0[session, default: [:]][id] = (attachment.stepper.steps, subscription) }
        case .detachLocal(let session, let id):
            if let entry = subscriptions.withLock({ $0[session]?.removeValue(forKey: id) }) { entry.0.cancel(entry.1) }
        default:
            break
        }
    }

    func drain() -> [Emitted] {
        items.withLock { items in
            defer { items = [] }
            return items
        }
    }

    func cancelAll() {
        for (relay, subscription) in subscriptions.withLock({ $0.values.flatMap(\.values) }) { relay.cancel(subscription) }
        subscriptions.withLock { $0 = [:] }
    }
}
