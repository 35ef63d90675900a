internal import FlowCore

/// The I/O thread's subscriptions to in-daemon steppers' steps, by session and attachment: made when an attachment is
/// listened to, cancelled when it is detached or the daemon stops.
///
/// A session's entry goes with its last subscription: sessions created and ended in a loop kept an empty entry each
/// (an emptied dictionary keeps its storage), about 0.4 KB per ended session (docs/LIMITS.md, *Churn*).
struct LocalSubscriptions {
    private var bySession: [String: [AttachmentID: (relay: StepRelay, subscription: StepRelay.Subscription)]] = [:]

    /// How many sessions have a subscription.
    var sessionCount: Int { bySession.count }

    /// Keeps the subscription to `relay` made for an attachment.
    mutating func add(
        _ subscription: StepRelay.Subscription, to relay: StepRelay, session: String, attachment: AttachmentID
    ) {
        bySession[session, default: [:]][attachment] = (relay, subscription)
    }

    /// Cancels an attachment's subscription, if it has one.
    mutating func cancel(session: String, attachment: AttachmentID) {
        guard let entry = bySession[session]?.removeValue(forKey: attachment) else { return }
        entry.relay.cancel(entry.subscription)
        if bySession[session]?.isEmpty == true { bySession[session] = nil }
    }

    /// Cancels every subscription.
    mutating func cancelAll() {
        for (_, entries) in bySession {
            for (_, entry) in entries { entry.relay.cancel(entry.subscription) }
        }
        bySession = [:]
    }
}
