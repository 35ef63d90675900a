internal import FlowCore
internal import FlowWire
internal import Logging

// Sessions: creating them and carrying out what their flow trees ask (commands, attachments, events).
extension DaemonCore {
    /// Whether one more session fits under `daemon.max_sessions`; when it does not, `peer`'s request that would have
    /// created it is refused (`sessionLimit`).
    mutating func roomForSession(req: UInt64, type: MessageType, from peer: Peer) -> Bool {
        guard sessions.count >= configuration.maxSessions else { return true }
        reject(
            .sessionLimit,
            "the daemon holds \(configuration.maxSessions) sessions, its limit (daemon.max_sessions): end one "
                + "(END_SESSION) or raise the limit (docs/LIMITS.md)", req: req, type: type, to: peer
        )
        return false
    }

    mutating func createSession(_ id: String) -> Session {
        change(JournalRecord(session: id, kind: .sessionCreated(app: apps.current?.id)))
        return sessions[made: id]!
    }

    /// `app`: the version the session runs; `nil` (a journal written before versions): the current one, which is
    /// the one the daemon started with while it replays.
    mutating func createSessionNow(_ id: String, app: String?) {
        let version = app.flatMap { apps[$0] } ?? apps.current
        let session = Session(
            id: id, application: version?.application ?? application, appVersion: version?.id,
            outbox: configuration.outboxBounds, holdings: holdings, now: currentTime)
        session.appVersionUnrecorded = app == nil && version != nil
        session.unchangedSinceCreation = true
        insertLive(session)
        coordinateRoot(of: session)
    }

    /// Makes a new or restored session live: in the table, its application version kept, its idle and hibernation
    /// deadlines watched.
    mutating func insertLive(_ session: Session) {
        sessions.insert(session)
        apps.retain(session.appVersion)
        idleDeadlines.watch(session)
        watchForHibernation(session, since: currentTime)
    }

    /// Coordinates a new session's root flow and carries out what it asks.
    mutating func coordinateRoot(of session: Session) {
        let root = session.application.makeRoot(session: session.id)
        do {
            let actions = try session.machine.coordinate(
                flow: root.flow, with: root.stepper, allowStepWhenDismissed: root.allowStepWhenDismissed
            )
            apply(actions, in: session)
            session.trimAfterCreation()
        } catch {
            logger.error(
                "session root could not be coordinated", metadata: ["session": "\(session.id)", "error": "\(error)"])
        }
        logger.info("session created", metadata: ["session": "\(session.id)"])
    }

    /// Ends a session (an operator's `END_SESSION` or idle expiry), journaled; `reason` counts it in `sessions_ended`.
    mutating func endSession(_ id: String, reason: String) {
        counters.sessionsEnded[reason, default: 0] += 1
        logger.info("session ended", metadata: ["session": "\(id)", "reason": "\(reason)"])
        change(JournalRecord(session: id, kind: .sessionEnded))
    }

    /// Drops a session's state: its presenter gets an empty `SNAPSHOT` and the notice `sessionEnded`, each stepper
    /// process holding one of its attachments a `DETACH` (`sessionEnded`), its in-daemon steppers stop (PROTOCOL §4).
    mutating func endSessionNow(_ id: String) {
        if let pending = sessions.remove(pending: id) {
            apps.release(pending.appVersion)  // nothing else: no presenter or adaptation knew of it
            if let hibernation = pending.hibernation { endHibernated(id, hibernation) }
            return
        }
        guard let session = sessions.remove(id) else { return }
        apps.release(session.appVersion)
        remoteAdapts.removeSession(id)
        if let host = session.host {
            let empty = UISnapshot(PresentationModel())
            send(.snapshot(SnapshotMessage(session: id, seq: session.seq, ui: empty)), to: host)
            // A notice, not a refusal of anything the presenter sent: not counted under `errors`.
            let notice = WireError(
                .sessionEnded, "session '\(id)' was ended; a SYNC with create starts it anew", type: .endSession
            )
            send(.error(ErrorReply(notice)), to: host)
        }
        for attachment in session.remoteAttachments.keys.sorted() {
            guard let stepper = session.remoteAttachments[attachment]?.assignedTo else { continue }
            send(.detach(Detach(session: id, attachment: attachment.rawValue, reason: "sessionEnded")), to: stepper)
        }
        for attachment in session.localAttachments.sorted() {
            outputs.append(.detachLocal(session: id, attachment: attachment))
        }
        session.host = nil
        for attachment in session.remoteAttachments.keys { _ = session.removeRemote(attachment) }
    }

    /// The made sessions, sorted by ID (a walk; pending sessions are left as they are).
    func sortedSessions() -> [Session] { sessions.made }

    /// The session's presentables count as not visible (its presenter is gone or syncs again).
    mutating func presentablesLost(in session: Session) {
        let visible = session.machine.visiblePresentables
        guard !visible.isEmpty else { return }
        change(JournalRecord(session: session.id, kind: .input(.presentablesLost(visible), origin: nil)))
    }

    /// Feeds the session's tree and carries out what it asks (inside a journaled change only).
    mutating func run(_ session: Session, _ input: CoordinatorInput) {
        apply(session.machine.handle(input), in: session)
    }

    mutating func apply(_ actions: [CoordinatorAction], in session: Session) {
        for action in actions {
            switch action {
            case .willNavigate(let event):
                publish(event, kind: "will", in: session)
            case .didNavigate(let event):
                counters.navigations += 1
                publish(event, kind: "did", in: session)
            case .command(let command, _):
                let (message, rejection) = session.takeSequenced(command)
                if let rejection, !replaying {  // the run that sequenced it warned already
                    logger.warning(
                        "command does not fit the session's UI",
                        metadata: ["session": "\(session.id)", "command": "\(command)", "error": "\(rejection)"]
                    )
                }
                counters.commandsSequenced += 1
                if let host = session.host { sendCommand(message, to: host) }
            case .attach(let attachment):
                if let remote = attachment.stepper as? RemoteStepper {
                    let context = remote.context ?? session.ui.screen(attachment.presentable)?.data ?? .null
                    session.addRemote(
                        attachment.id,
                        Session.RemoteAttachment(
                            presentable: attachment.presentable, kind: remote.kind, context: context,
                            role: attachment.role)
                    )
                    // A replay assigns nothing: its attachments wait for stepper processes (``AttachOffers``).
                    if !replaying { assign(attachment.id, in: session) }
                } else {
                    session.localAttachments.insert(attachment.id)
                    outputs.append(.attachLocal(session: session.id, attachment: attachment))
                }
            case .detach(let id, let reason):
                if let remote = session.removeRemote(id) {
                    if let stepper = remote.assignedTo {
                        send(.detach(Detach(session: session.id, attachment: id.rawValue, reason: reason.rawValue)), to: stepper)
                    }
                } else if session.localAttachments.remove(id) != nil {
                    outputs.append(.detachLocal(session: session.id, attachment: id))
                }
            case .runAdapt(let request):
                session.pendingAdapts[request.id] = request
                if let kind = request.operation.stepperKind {
                    // A replay asks nothing: what is still pending at its end is asked then (``recover(from:)``).
                    if !replaying { ask(request, kind: kind, in: session) }
                } else {
                    outputs.append(.runAdapt(session: session.id, request: request))
                }
            case .stepDropped(let drop):
                counters.stepsDropped[drop.reason.rawValue, default: 0] += 1
                logger.debug(
                    "step dropped",
                    metadata: ["session": "\(session.id)", "step": "\(drop.step)", "reason": "\(drop.reason)"]
                )
                guard publishesEvents else { break }
                let flow = drop.coordinator.flatMap { session.machine.flowName(of: $0) }
                outputs.append(
                    .publish(
                        EventMessage(
                            event: "drop", session: session.id, flow: flow, coordinator: drop.coordinator?.rawValue,
                            step: drop.step, reason: drop.reason.rawValue,
                            text: "dropped step=\(drop.step) reason=\(drop.reason)"
                        )
                    )
                )
            case .flowStarted(let id, let flow, _):
                logger.debug("flow started", metadata: ["session": "\(session.id)", "flow": "\(flow)", "id": "\(id)"])
            case .flowEnded(let id, let reason):
                logger.debug("flow ended", metadata: ["session": "\(session.id)", "id": "\(id)", "reason": "\(reason)"])
            case .flowReady:
                break
            }
        }
    }

    mutating func publish(_ event: NavigationEvent, kind: String, in session: Session) {
        guard publishesEvents else { return }
        outputs.append(
            .publish(
                EventMessage(
                    event: kind, session: session.id, flow: event.flow, coordinator: event.coordinator.rawValue,
                    step: event.step, text: "\(kind) navigate \(event)"
                )
            )
        )
    }
}
