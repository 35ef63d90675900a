internal import FlowCore
internal import FlowWire
internal import Logging

// Stepper processes: their STEPs and the attachments assigned to them.
extension DaemonCore {
    /// A `STEP` from a peer that may send it: its key's step names are checked with the sender, in
    /// ``receive(_:from:userID:now:)``.
    mutating func step(_ body: StepMessage, from peer: Peer) {
        let origin = StepOrigin(instance: peer.hello.instance, req: body.req)
        if var verdict = stepResults.verdict(for: origin) {
            // Sent again (the reply was lost with a connection or a daemon): the same answer, nothing applied twice.
            counters.stepsDuplicate += 1
            verdict.duplicate = true
            return reply(to: peer.address, req: body.req, result: verdict)
        }
        guard let session = self.session(body.session) else {
            return rejectMissingSession(body.session, req: body.req, type: .step, to: peer)
        }
        if let names = session.application.stepNames, !names.contains(body.step.name) {
            return reject(.unknownStep, "no step named '\(body.step.name)'", req: body.req, type: .step, to: peer)
        }
        let attachment = AttachmentID(body.attachment)
        guard session.remoteAttachments[attachment]?.assignedTo == peer.address else {
            return reject(
                .unknownAttachment, "attachment \(body.attachment) is not assigned to this stepper", req: body.req,
                type: .step, to: peer
            )
        }
        if let refusal = session.application.payloadRefusal(for: body.step) {
            return reject(.invalidPayload, refusal, req: body.req, type: .step, to: peer)
        }
        guard admitsSteps(session) else {
            // Not applied and not remembered: the same step sent again once the session shrank is carried out.
            counters.stepsDropped[SessionBounds.reason, default: 0] += 1
            return reply(to: peer.address, req: body.req, result: StepVerdict(accepted: false, reason: SessionBounds.reason))
        }
        let actions = change(
            JournalRecord(session: session.id, kind: .input(.stepperEmitted(attachment, body.step), origin: origin)),
            in: session
        )
        let verdict = Self.verdict(actions, attachment: attachment)
        if verdict.accepted { counters.stepsAccepted += 1 }
        reply(to: peer.address, req: body.req, result: verdict)
    }

    /// Assigns an attachment to `preferred` (a stepper serving its kind), else to the live process serving it that
    /// holds the fewest attachments (PROTOCOL §5), so that processes sharing a kind share its attachments.
    mutating func assign(_ id: AttachmentID, in session: Session, preferring preferred: PeerAddress? = nil) {
        guard let attachment = session.remoteAttachments[id] else { return }
        let found = peers.stepper(serving: attachment.kind, preferring: preferred) { [holdings] in
            holdings.assignedCount(to: $0)
        }
        guard let peer = found else {
            logger.debug("no stepper serves kind yet", metadata: ["kind": "\(attachment.kind)", "session": "\(session.id)"])
            return
        }
        session.assign(id, to: peer.address)
        send(
            .attach(
                Attach(
                    session: session.id, attachment: id.rawValue, kind: attachment.kind,
                    presentable: attachment.presentable.rawValue, role: attachment.role.rawValue,
                    context: attachment.context,
                    resumed: attachment.stepped
                )
            ),
            to: peer.address
        )
    }
}
