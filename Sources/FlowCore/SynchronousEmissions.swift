import Synchronization

/// The steps that steppers emit while their coordinator runs a synchronous cascade on the emitting thread: RxFlow's
/// current-thread trampoline, which queues them into that cascade (`docs/SEMANTICS.md`, scheduling model).
///
/// A ``FlowCoordinatorStateMachine`` registers the relay of every stepper it attaches and binds itself as
/// ``running`` for the duration of each call. ``StepRelay/accept(_:)`` asks ``capture(_:on:)`` first: a step
/// emitted on a registered relay, on the thread (or task) running the call, is taken for the cascade instead of
/// going to the relay's listeners; any other step (another thread, no cascade running) goes to the listeners, which
/// is how a driver hears steps emitted later.
///
/// `Sendable`: relays call it from any thread; its state is behind a `Mutex`.
final class SynchronousEmissions: Sendable {
    /// The machine whose call runs on this thread or task, if any.
    @TaskLocal static var running: SynchronousEmissions?

    private struct State {
        /// The first attachment of each relay; a relay attached more than once (rare) has the others in
        /// ``laterAttachments``, in order. Not one array per relay: an idle session would keep one per stepper.
        var attachmentByRelay: [ObjectIdentifier: AttachmentID] = [:]
        var laterAttachments: [ObjectIdentifier: [AttachmentID]] = [:]
        var captured: [(AttachmentID, Step)] = []
    }

    private let state = Mutex(State())

    /// Steps emitted on `relay` from now on belong to `attachment`.
    func register(_ relay: StepRelay, as attachment: AttachmentID) {
        state.withLock { state in
            let key = ObjectIdentifier(relay)
            if state.attachmentByRelay[key] == nil {
                state.attachmentByRelay[key] = attachment
            } else {
                state.laterAttachments[key, default: []].append(attachment)
            }
        }
    }

    /// `attachment` no longer listens to `relay`.
    func unregister(_ relay: StepRelay, as attachment: AttachmentID) {
        state.withLock { state in
            let key = ObjectIdentifier(relay)
            if state.attachmentByRelay[key] == attachment {
                state.attachmentByRelay[key] = state.laterAttachments[key]?.removeFirst()
            } else {
                state.laterAttachments[key]?.removeAll { $0 == attachment }
            }
            if state.laterAttachments[key]?.isEmpty == true { state.laterAttachments[key] = nil }
        }
    }

    /// The steps captured since the last call, in emission order, with the attachment that emitted each.
    func take() -> [(AttachmentID, Step)] {
        state.withLock { state in
            defer { state.captured = [] }
            return state.captured
        }
    }

    /// Takes `step` for the running cascade when `relay` belongs to it; `false` when the relay's listeners get it.
    static func capture(_ step: Step, on relay: StepRelay) -> Bool {
        guard let running else { return false }
        return running.state.withLock { state in
            let key = ObjectIdentifier(relay)
            guard let first = state.attachmentByRelay[key] else { return false }
            state.captured.append((first, step))
            for attachment in state.laterAttachments[key] ?? [] { state.captured.append((attachment, step)) }
            return true
        }
    }
}
