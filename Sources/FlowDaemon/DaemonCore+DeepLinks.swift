internal import FlowCore
internal import FlowWire
internal import Logging

/// A URI deep link being applied to a session: its chain of steps, the next one waiting for the flows it needs.
///
/// Not journaled: a restarted daemon has none (the steps applied so far are journaled as `DEEPLINK`s of a step, and
/// the operator, who got no answer, asks again). Not `Sendable`: owned by ``DaemonCore``.
struct PendingDeepLink {
    let peer: PeerAddress
    let req: UInt64
    /// The session, and which life of its ID (one ended and created again is another).
    let session: String
    let sessionIdentity: ObjectIdentifier
    let chain: DeepLinkChain
    /// When the next step's flows must be ready by: `daemon.deep_link_wait_ms` after the link arrived.
    let deadline: UInt64
    var next = 0
    var applied: [String] = []
    var skipped: [String] = []
    var navigations = 0
}

/// Where a step of a chain stands in a session.
private enum ChainStepStatus {
    /// Every screen it shows in one of the flows that handle it is in the session's UI already.
    case shown
    /// The flows that handle it are all ready.
    case ready
    /// Why it must wait.
    case waiting(String)
}

// DEEPLINK: a step into the whole tree at once, or a URI's chain of steps, each once its flows are ready.
extension DaemonCore {
    mutating func deepLink(_ body: DeepLinkRequest, from peer: Peer) {
        guard let session = self.session(body.session) else {
            return rejectMissingSession(body.session, req: body.req, type: .deepLink, to: peer)
        }
        guard let step = body.step else {
            return openDeepLink(body.uri ?? "", in: session, req: body.req, from: peer)
        }
        if let names = session.application.stepNames, !names.contains(step.name) {
            return reject(.unknownStep, "no step named '\(step.name)'", req: body.req, type: .deepLink, to: peer)
        }
        if let refusal = session.application.payloadRefusal(for: step) {
            return reject(.invalidPayload, refusal, req: body.req, type: .deepLink, to: peer)
        }
        if let linkable = session.application.deepLinkSteps, !linkable.contains(step.name) {
            return reject(
                .notDeepLinkable,
                "the step '\(step.name)' is not one an operator may deep-link; the ones that are: "
                    + (linkable.isEmpty ? "none" : linkable.sorted().joined(separator: ", "))
                    + " (a flow file marks them 'deepLink: true')",
                req: body.req, type: .deepLink, to: peer
            )
        }
        guard admitsSteps(session) else {
            return reject(
                .sessionFull, sessionFullMessage(session), req: body.req, type: .deepLink, to: peer
            )
        }
        let actions = change(JournalRecord(session: session.id, kind: .input(.deepLink(step), origin: nil)))
        reply(to: peer.address, req: body.req, result: DeepLinkResult(navigations: Self.navigations(in: actions)))
    }

    /// Resolves `uri` to its chain and starts applying it; the answer comes once the chain is applied or stopped.
    private mutating func openDeepLink(_ uri: String, in session: Session, req: UInt64, from peer: Peer) {
        let chain: DeepLinkChain
        do {
            chain = try session.application.deepLinkChain(uri: uri)
        } catch {
            return reject(.unknownDeepLink, error.message, req: req, type: .deepLink, to: peer)
        }
        let wait = configuration.deepLinkWait
        pendingDeepLinks.append(
            PendingDeepLink(
                peer: peer.address, req: req, session: session.id, sessionIdentity: ObjectIdentifier(session),
                chain: chain, deadline: currentTime + wait
            )
        )
        advanceDeepLinks()
    }

    /// Takes each waiting chain as far as it can go now; answers those that completed, or stopped (their deadline
    /// passed, their session ended, their step was refused); forgets those whose operator left.
    mutating func advanceDeepLinks() {
        guard !pendingDeepLinks.isEmpty else { return }
        let waiting = pendingDeepLinks
        pendingDeepLinks = []
        var still: [PendingDeepLink] = []
        for var link in waiting where !advance(&link) { still.append(link) }
        pendingDeepLinks = still + pendingDeepLinks
    }

    /// The earliest deadline of a waiting chain.
    var nextDeepLinkDeadline: UInt64? { pendingDeepLinks.map(\.deadline).min() }

    /// Applies what it can of `link`; whether it is done with (answered, or its operator gone).
    private mutating func advance(_ link: inout PendingDeepLink) -> Bool {
        guard peers[link.peer] != nil else { return true }
        func stop(_ code: WireError.Code, _ message: String) -> Bool {
            reject(WireError(code, message, req: link.req, type: .deepLink), to: link.peer)
            return true
        }
        guard let session = sessions[made: link.session], ObjectIdentifier(session) == link.sessionIdentity else {
            return stop(
                .unknownSession, "the session '\(link.session)' ended while the deep link '\(link.chain.uri)' waited")
        }
        let steps = link.chain.steps
        while link.next < steps.count {
            let step = steps[link.next]
            let status = Self.status(of: step, in: session)
            if link.applied.isEmpty, case .shown = status {
                link.skipped.append(step.name)
                link.next += 1
                continue
            }
            if case .waiting(let reason) = status {
                guard currentTime >= link.deadline else { return false }
                let done = link.applied.isEmpty ? "" : "; applied before it: " + link.applied.joined(separator: ", ")
                return stop(
                    .deepLinkIncomplete,
                    "the deep link '\(link.chain.uri)' (\(link.chain.pattern)) stopped at step \(link.next + 1) of "
                        + "\(steps.count), '\(step.name)': \(reason), after \(configuration.deepLinkWaitMs) ms "
                        + "(daemon.deep_link_wait_ms)\(done)"
                )
            }
            guard journalAvailable else {
                return stop(.journalUnavailable, "the journal cannot be written (disk full?); try again later")
            }
            guard admitsSteps(session) else {
                return stop(.sessionFull, sessionFullMessage(session))
            }
            let actions = change(JournalRecord(session: session.id, kind: .input(.deepLink(step), origin: nil)))
            link.navigations += Self.navigations(in: actions)
            link.applied.append(step.name)
            link.next += 1
        }
        logger.info(
            "deep link applied",
            metadata: [
                "session": "\(session.id)", "uri": "\(link.chain.uri)", "applied": "\(link.applied)",
                "skipped": "\(link.skipped)",
            ]
        )
        reply(
            to: link.peer, req: link.req,
            result: DeepLinkResult(navigations: link.navigations, applied: link.applied, skipped: link.skipped)
        )
        return true
    }

    /// Where `step` stands in `session`: shown already, ready to apply, or waiting (docs/SEMANTICS.md, "Deep link
    /// chains"). The flows that handle it are the live ones that say so (``DeepLinkTargetFlow``).
    private static func status(of step: Step, in session: Session) -> ChainStepStatus {
        let machine = session.machine
        var anyTarget = false
        var anyHandling = false
        var notReady: [String] = []
        var shown = false
        for coordinator in machine.coordinatorIDs {
            guard let flow = machine.flow(of: coordinator) as? any DeepLinkTargetFlow else { continue }
            anyTarget = true
            guard let screens = flow.screens(showing: step) else { continue }
            anyHandling = true
            if !machine.isReady(coordinator) { notReady.append("'\(flow.flowName)'") }
            if !screens.isEmpty, screens.allSatisfy(session.ui.contains) { shown = true }
        }
        if shown { return .shown }
        if !anyTarget {
            return .waiting("no flow of the session is a DeepLinkTargetFlow, which says it handles it (a flow file's "
                + "flows are; a Swift flow conforms)")
        }
        if !anyHandling { return .waiting("no flow of the session handles it yet") }
        if !notReady.isEmpty {
            return .waiting("the flow\(notReady.count == 1 ? "" : "s") \(notReady.joined(separator: ", ")) that "
                + "handle\(notReady.count == 1 ? "s" : "") it \(notReady.count == 1 ? "is" : "are") not ready yet")
        }
        return .ready
    }

    private static func navigations(in actions: [CoordinatorAction]) -> Int {
        actions.filter { if case .didNavigate = $0 { return true } else { return false } }.count
    }
}
