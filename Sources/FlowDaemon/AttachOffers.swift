internal import FlowCore
package import FlowWire

/// How waiting attachments reach stepper processes without overflowing their send queues (PROTOCOL §5.1): at most
/// ``batch`` `ATTACH`es per turn, the next turn ``intervalMs`` later while more wait; an `ATTACH` the transport could
/// not queue (``DaemonCore/sendDropped(_:to:)``) puts its attachment back among the waiting ones, offered again.
enum AttachOffers {
    static let batch = 256
    static let intervalMs: UInt64 = 20
}

extension DaemonCore {
    /// Offers up to ``AttachOffers/batch`` waiting attachments of the kinds `peer` serves (all live steppers'
    /// kinds when `nil`), in session and attachment order, each to the process of its kind holding the fewest;
    /// schedules the next turn while more wait. Kinds the restart grace holds back wait for its end
    /// (``RestartGrace``).
    mutating func offerWaitingAttachments(servedBy peer: Hello? = nil, now: UInt64) {
        let kinds = (peer?.serves ?? Array(peers.servedKinds)).filter { !restartGrace.holds($0) }
        let waiting = holdings.waitingAttachments(ofKinds: kinds)
        // One at a time, each to the process holding the fewest then: a batch is spread, not given to one process.
        for key in waiting.prefix(AttachOffers.batch) {
            if let session = self.session(key.session) { assign(key.attachment, in: session) }
        }
        attachOffersDue = waiting.count > AttachOffers.batch ? now + AttachOffers.intervalMs : nil
    }

    /// A message the transport could not queue for its peer (its queue is full): counted in `sends_dropped`; an
    /// `ATTACH` is not lost: its attachment waits again and is offered again at the next turn.
    package mutating func sendDropped(_ message: DaemonMessage, to address: PeerAddress) {
        countDroppedSend(message.type)
        guard case .attach(let attach) = message, let session = self.session(attach.session) else { return }
        let id = AttachmentID(attach.attachment)
        guard session.remoteAttachments[id]?.assignedTo == address else { return }
        session.assign(id, to: nil)
        if attachOffersDue == nil { attachOffersDue = currentTime + AttachOffers.intervalMs }
    }
}
