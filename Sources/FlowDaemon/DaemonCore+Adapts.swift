internal import FlowCore
internal import FlowWire
internal import Logging

// Adaptations asked of stepper kinds: ADAPT to a process that answers them, its ADAPTED, the deadline
// (docs/PROTOCOL.md §5.6).
extension DaemonCore {
    /// A flow's adaptation asked of the stepper kind `kind`: sent now to a process serving it that answers `ADAPT`,
    /// or waiting for one until its deadline.
    mutating func ask(_ request: AdaptRequest, kind: String, in session: Session) {
        let question = AdaptMessage(
            session: session.id, request: request.id.rawValue, kind: kind,
            flow: session.machine.flow(of: request.coordinator)?.flowName ?? "", coordinator: request.coordinator.rawValue,
            step: request.step
        )
        let key = RemoteAdapts.Key(session: session.id, request: request.id)
        let timeout = configuration.adaptTimeout
        remoteAdapts.insert(RemoteAdapts.Entry(question: question, askedOf: nil, deadline: currentTime + timeout), for: key)
        sendQuestion(key)
    }

    /// Sends a waiting question to the live process serving its kind that answers `ADAPT` with the fewest questions
    /// open, if there is one.
    private mutating func sendQuestion(_ key: RemoteAdapts.Key, preferring preferred: PeerAddress? = nil) {
        guard let entry = remoteAdapts[key], entry.askedOf == nil else { return }
        let kind = entry.question.kind
        let found = peers.stepper(serving: kind, preferring: preferred, where: \.hello.adapts) { [remoteAdapts] in
            remoteAdapts.outstanding(askedOf: $0)
        }
        guard let peer = found else {
            logger.debug(
                "no stepper that answers ADAPT serves kind yet", metadata: ["kind": "\(kind)", "session": "\(key.session)"])
            return
        }
        remoteAdapts.ask(key, of: peer.address)
        send(.adapt(entry.question), to: peer.address)
    }

    /// A stepper process that answers `ADAPT` joined: the questions waiting for its kinds go to it.
    mutating func sendWaitingQuestions(to hello: Hello, at address: PeerAddress) {
        guard hello.adapts else { return }
        for key in remoteAdapts.waiting(kinds: hello.serves) { sendQuestion(key, preferring: address) }
    }

    /// A process is gone: what it was asked waits again, and goes to another process when `reasking` (a process
    /// replaced by its restart gets its questions back once its successor is welcomed).
    mutating func questionsLost(by address: PeerAddress, reasking: Bool) {
        for key in remoteAdapts.asked(of: address) {
            remoteAdapts.ask(key, of: nil)
            if reasking { sendQuestion(key) }
        }
    }

    /// The adaptations unanswered at their deadline fail: the step is dropped (`adaptFailed`), counted and logged.
    mutating func expireQuestions(now: UInt64) {
        for key in remoteAdapts.expired(at: now) {
            guard let entry = remoteAdapts[key] else { continue }
            counters.adapts["timedOut", default: 0] += 1
            logger.notice(
                entry.askedOf == nil
                    ? "adapt failed: no stepper that answers ADAPT served the kind in time"
                    : "adapt failed: the stepper did not answer in time",
                metadata: [
                    "session": "\(key.session)", "request": "\(key.request)", "kind": "\(entry.question.kind)",
                    "step": "\(entry.question.step)",
                ]
            )
            remoteAdapts.remove(key)
            guard sessions.contains(key.session) else { continue }
            change(JournalRecord(session: key.session, kind: .input(.adaptCompleted(key.request, nil), origin: nil)))
        }
    }

    /// `ADAPTED`: a process answers a question it was asked. An answer to nothing it was asked, or a replacement the
    /// application or the process's key does not allow, is dropped, counted and logged (a bad replacement fails the
    /// adaptation at once: `adaptFailed`).
    mutating func adapted(_ body: AdaptedMessage, from peer: Peer) {
        let key = RemoteAdapts.Key(session: body.session, request: AdaptRequestID(body.request))
        guard let entry = remoteAdapts[key], entry.askedOf == peer.address, let session = self.session(key.session) else {
            return dropAnswer(body, from: peer, reason: "unknownRequest")
        }
        let step: Step
        switch body.answer {
        case .allow:
            step = entry.question.step
        case .refuse:
            step = .none
        case .replace(let replacement):
            var refusal: String?
            if let names = session.application.stepNames, !names.contains(replacement.name) {
                refusal = "unknownStep"
            } else if session.application.payloadRefusal(for: replacement) != nil {
                refusal = "invalidPayload"
            } else if let identity = peer.identity, !identity.mayEmit(replacement.name) {
                refusal = "forbidden"
            }
            if let refusal {
                dropAnswer(body, from: peer, reason: refusal)
                // The adaptation ends here, so it has an outcome like an answered or a timed-out one.
                counters.adapts["badReplacement", default: 0] += 1
                remoteAdapts.remove(key)
                change(JournalRecord(session: key.session, kind: .input(.adaptCompleted(key.request, nil), origin: nil)))
                return
            }
            step = replacement
        }
        counters.adapts[body.answer.name, default: 0] += 1
        remoteAdapts.remove(key)
        change(JournalRecord(session: key.session, kind: .input(.adaptCompleted(key.request, step), origin: nil)))
    }

    private mutating func dropAnswer(_ body: AdaptedMessage, from peer: Peer, reason: String) {
        counters.adaptAnswersDropped[reason, default: 0] += 1
        logger.notice(
            "ADAPTED dropped",
            metadata: [
                "peer": "\(peer.id)", "session": "\(body.session)", "request": "\(body.request)",
                "answer": "\(body.answer)", "reason": "\(reason)",
            ]
        )
    }
}
