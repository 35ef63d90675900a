internal import FlowCore
internal import FlowWire
internal import Logging

// Presenters: SYNC, ACK, REPORT and USER_ACTION for the sessions they host.
extension DaemonCore {
    mutating func sync(_ body: Sync, from peer: Peer) {
        if let identity = peer.identity, !identity.mayHost(body.session) {
            return reject(
                .forbidden, "the key '\(identity.name)' may not host session '\(body.session)'", req: body.req,
                type: .sync, to: peer
            )
        }
        var session = self.session(body.session)
        let created = session == nil
        if session == nil, body.create, sessions.unrestorableReason(body.session) == nil {
            guard WireProtocol.isValidName(body.session) else {
                return reject(.invalidName, "invalid session name", req: body.req, type: .sync, to: peer)
            }
            guard roomForSession(req: body.req, type: .sync, from: peer) else { return }
            session = createSession(body.session)
        }
        guard let session else {
            return rejectMissingSession(body.session, req: body.req, type: .sync, to: peer)
        }
        if let host = session.host, host != peer.address, let current = peers[host],
            current.hello.name != peer.hello.name || current.userID != peer.userID
        {
            return reject(
                .sessionHosted, "session '\(session.id)' is hosted by '\(current.hello.name)'", req: body.req,
                type: .sync, to: peer
            )
        }
        session.host = peer.address
        // Nothing counts as visible until the presenter reports again after the sync.
        presentablesLost(in: session)
        // A session this SYNC created holds nothing the presenter applied: its seq starts again, so a `last_seq` from
        // an ended session of the same ID names none of its commands.
        var replay = body.lastSeq == 0 || created ? nil : session.replay(after: body.lastSeq)
        if let commands = replay, commands.count > configuration.maxReplayCommands {
            replay = nil  // one SNAPSHOT rather than more COMMANDs than the presenter's queue may take
        }
        if replay == nil, session.awaitsDismissalReports {
            // The presenter adopts the snapshot: it will not report the dismissals of the commands before it.
            change(JournalRecord(session: session.id, kind: .snapshotAdopted))
        }
        // The snapshot's seq counts as applied (§6.1): only commands sent from here on are acknowledged.
        session.ackedSeq = replay == nil ? session.seq : min(body.lastSeq, session.seq)
        reply(
            to: peer.address, req: body.req,
            result: SyncResult(seq: session.seq, mode: replay == nil ? .snapshot : .replay)
        )
        if let replay {
            for message in replay { sendCommand(message, to: peer.address) }
        } else {
            send(.snapshot(SnapshotMessage(session: session.id, seq: session.seq, ui: UISnapshot(session.ui))), to: peer.address)
        }
        logger.info(
            "presenter synced",
            metadata: [
                "peer": "\(peer.id)", "session": "\(session.id)", "last_seq": "\(body.lastSeq)",
                "mode": "\(replay == nil ? "snapshot" : "replay")",
            ]
        )
    }

    mutating func ack(_ body: Ack, from peer: Peer) {
        guard let session = self.session(body.session), session.host == peer.address else {
            // ACK never gets a reply (docs/PROTOCOL.md §6.3): counted and logged like any refusal, and ignored.
            let text = "this presenter does not host session '\(body.session)'"
            noteRefusal(WireError(.notHost, text, type: .ack), from: peer.address)
            return
        }
        let acked = min(body.seq, session.seq)
        if acked > session.ackedSeq {
            counters.commandsAcked += Int(acked - session.ackedSeq)
            session.ackedSeq = acked
        }
    }

    mutating func report(_ body: Report, from peer: Peer) {
        guard let session = hostedSession(body.session, req: body.req, type: .report, peer: peer) else { return }
        var unknown: [String] = []
        for entry in body.reports {
            // Only what the UI holds can be visible or hidden; a dismissal of what it no longer holds changes nothing
            // but is no mistake (the session's own command may have removed it first).
            guard entry.state == .dismissed || session.ui.contains(PresentableID(entry.presentable)) else {
                unknown.append(entry.presentable)
                continue
            }
            change(JournalRecord(session: session.id, kind: .report(entry)))
            counters.reports += 1
        }
        guard unknown.isEmpty else {
            return reject(
                .unknownPresentable,
                "not in the UI of session '\(session.id)', so ignored (the other entries were applied): "
                    + unknown.prefix(8).joined(separator: ", "),
                req: body.req, type: .report, to: peer
            )
        }
        reply(to: peer.address, req: body.req)
    }

    /// One entry of a presenter's `REPORT`: the UI model follows what a person did, then the tree hears of it.
    mutating func applyReport(_ entry: PresentableReport, in session: Session) {
        let id = PresentableID(entry.presentable)
        if entry.state == .dismissed {
            // The tree heard of what the session's own commands removed as they were sequenced (D18).
            guard session.dismissalReported(id) else { return }
            // The presenter removed it on its own (a person went back): the snapshot must not bring it back, and
            // what left with it is dismissed too.
            let removed = session.ui.remove(id)
            session.awaitReports(ofRemoved: removed, under: id)
            for removedID in removed { run(session, .dismissed(removedID)) }
            return
        }
        if entry.state == .visible, case .child(let parent)? = session.ui.placement(of: id),
            session.ui.screen(parent)?.kind == .tabs,
            let index = session.ui.children(of: parent).firstIndex(of: id), session.ui.selectedTab(of: parent) != index
        {
            // A person selected another tab: the snapshot shows the tab they chose.
            _ = try? session.ui.apply(.selectTab(parent, index: index))
        }
        run(session, entry.input)
    }

    mutating func userAction(_ body: UserAction, from peer: Peer) {
        guard let session = hostedSession(body.session, req: body.req, type: .userAction, peer: peer) else { return }
        let presentable = PresentableID(body.presentable)
        guard session.ui.contains(presentable) else {
            return reject(
                .unknownPresentable, "'\(body.presentable)' is not in the UI of session '\(session.id)'", req: body.req,
                type: .userAction, to: peer
            )
        }
        if let type = session.ui.screen(presentable)?.type,
            let refusal = session.application.actionRefusal(for: body.action, onScreenOfType: type)
        {
            return reject(
                WireError.Code(rawValue: refusal.reason.rawValue), refusal.message, req: body.req, type: .userAction,
                to: peer
            )
        }
        var delivered = 0
        for attachment in session.machine.attachments(on: presentable) {
            if let remote = session.remoteAttachments[attachment.id], let stepper = remote.assignedTo {
                send(
                    .action(
                        ActionMessage(
                            session: session.id, attachment: attachment.id.rawValue, presentable: body.presentable,
                            action: body.action
                        )
                    ),
                    to: stepper
                )
                delivered += 1
            } else if let handler = attachment.stepper as? any ActionHandlingStepper {
                handler.handle(action: body.action)
                delivered += 1
            }
        }
        counters.userActions += 1
        reply(to: peer.address, req: body.req, result: UserActionResult(delivered: delivered))
    }

    mutating func hostedSession(_ id: String, req: UInt64, type: MessageType, peer: Peer) -> Session? {
        guard let session = self.session(id) else {
            rejectMissingSession(id, req: req, type: type, to: peer)
            return nil
        }
        guard session.host == peer.address else {
            reject(.notHost, "this presenter does not host session '\(id)': SYNC first", req: req, type: type, to: peer)
            return nil
        }
        return session
    }
}
