import FlowCore
import FlowDaemon
import FlowWire
import Logging
import Synchronization
import TestFlows

// The random inputs of a recovery fuzz run: what each client does next.
extension RecoveryFuzz {
    private mutating func req() -> UInt64 {
        nextReq += 1
        return nextReq
    }

    mutating func fuzzOne() {
        switch rng.below(100) {
        case 0..<28: stepperStep()
        case 28..<33: resendStep()
        case 33..<45: presenterReport()
        case 45..<51: mutatedFrame()
        case 51..<58: presenterAction()
        case 58..<63: presenterSync()
        case 63..<67: presenterAck()
        case 67..<73: operatorDeepLink()
        case 73..<75: if rng.perMille(300) { operatorEndsSession() } else { operatorCreatesSession() }
        case 75..<79: completeAdapt()
        case 79: hello(rng.pick(Self.presenters + Self.steppers + [Self.operatorClient]), restarted: rng.perMille(200))
        case 80..<82: presenterReport()
        case 82..<84: bye()
        case 84..<86: unreachable()
        case 86..<91: tick()
        case 91: operatorQueries()
        default: mutatedFrame()
        }
    }

    /// The client says `HELLO` first if it is not welcomed (most of the time).
    private mutating func ensureWelcomed(_ client: Client) {
        if !welcomed.contains(client.address), rng.perMille(900) { hello(client, restarted: false) }
    }

    private mutating func hello(_ client: Client, restarted: Bool) {
        if restarted || instances[client.address] == nil {
            instanceRuns[client.address, default: 0] += 1
            instances[client.address] = "\(client.name)-run\(instanceRuns[client.address]!)"
            if client.role == .presenter { lastSeqs[client.address] = 0 }
        }
        if client.role == .stepper { attachments[client.address] = [] }
        hosted[client.address] = nil
        let heartbeat = rng.perMille(50) ? 500 : 60_000
        let message = Hello(
            req: req(), role: client.role, name: client.name, instance: instances[client.address]!,
            heartbeatMs: heartbeat, serves: client.serves
        )
        send(.hello(message), from: client.address)
    }

    private mutating func randomSession() -> String {
        let existing = reference.sessionIDs
        if !existing.isEmpty, rng.perMille(900) { return rng.pick(existing) }
        return rng.pick(Self.sessionNames)
    }

    private mutating func randomStep() -> Step {
        let name = rng.perMille(30) ? "bogus" : rng.pick(TestApplication.allStepNames)
        let payload: JSONValue = rng.perMille(200) ? .null : .int(rng.below(6))
        return Step(name, payload: payload)
    }

    private mutating func stepperStep() {
        // Mostly a stepper that has attachments, as the ones that step do.
        let busy = Self.steppers.filter { !(attachments[$0.address] ?? []).isEmpty }
        let client = !busy.isEmpty && rng.perMille(900) ? rng.pick(busy) : rng.pick(Self.steppers)
        ensureWelcomed(client)
        let session: String
        let attachment: Int
        if let known = attachments[client.address], !known.isEmpty, rng.perMille(900) {
            (session, attachment) = rng.pick(known)
        } else {
            session = randomSession()
            attachment = 1 + rng.below(40)
        }
        if instances[client.address] == nil { hello(client, restarted: false) }
        send(.step(StepMessage(req: req(), session: session, attachment: attachment, step: randomStep())), from: client.address)
    }

    /// A stepper sends one of its recent STEPs again (its reply was lost).
    private mutating func resendStep() {
        let client = rng.pick(Self.steppers)
        guard let instance = instances[client.address], let sent = sentSteps[instance], !sent.isEmpty else { return }
        ensureWelcomed(client)
        // Mostly one of the last few (in flight when a connection or the daemon went), sometimes an old one.
        let message = rng.perMille(800) ? rng.pick(Array(sent.suffix(8))) : rng.pick(sent)
        feed(.message(from: client.address, frames: codec.encode(.step(message))), what: "STEP again \(message)")
    }

    /// The session the presenter hosts (it syncs one first, most of the time, if it hosts none).
    private mutating func hostedSession(of client: Client) -> String {
        if hosted[client.address] == nil, rng.perMille(800) { presenterSync(client) }
        if let session = hosted[client.address], rng.perMille(900) { return session }
        return randomSession()
    }

    private mutating func presenterSync() {
        presenterSync(rng.pick(Self.presenters))
    }

    private mutating func presenterSync(_ client: Client) {
        ensureWelcomed(client)
        let create = rng.perMille(150)
        let session = create ? rng.pick(Self.sessionNames) : randomSession()
        let known = lastSeqs[client.address] ?? 0
        let seq = reference.seq(of: session) ?? 0
        let lastSeq: UInt64 =
            switch rng.below(6) {
            case 0: 0
            case 1: seq
            case 2: seq > 3 ? seq - UInt64(rng.below(4)) : seq
            case 3: seq + 1 + UInt64(rng.below(3))
            default: hosted[client.address] == session ? known : seq
            }
        let number = req()
        send(.sync(Sync(req: number, session: session, lastSeq: lastSeq, create: create)), from: client.address)
        if reference.seq(of: session) != nil, welcomed.contains(client.address) { hosted[client.address] = session }
        // A presenter reports what it shows after a sync (a replay: the visible; a snapshot: its screens).
        if rng.perMille(700) { presenterReport(client, session: session, afterSync: true) }
    }

    private mutating func presenterReport() {
        let client = rng.pick(Self.presenters)
        ensureWelcomed(client)
        presenterReport(client, session: hostedSession(of: client), afterSync: false)
    }

    private mutating func presenterReport(_ client: Client, session: String, afterSync: Bool) {
        var entries: [PresentableReport] = []
        let shown = reference.ui(of: session)?.visiblePresentables.map(\.rawValue) ?? []
        if afterSync {
            entries = shown.map { PresentableReport(presentable: $0, state: .visible) }
        } else if rng.perMille(300), let ui = reference.ui(of: session) {
            // Truthful: the details the UI no longer has are dismissed (their steppers go).
            let gone = Self.presentables.filter { $0 != "nowhere" && !ui.contains(PresentableID($0)) }
            if !gone.isEmpty { entries = [PresentableReport(presentable: rng.pick(gone), state: .dismissed)] }
        } else {
            for _ in 0..<(1 + rng.below(3)) {
                let presentable =
                    !shown.isEmpty && rng.perMille(500) ? rng.pick(shown) : rng.pick(Self.presentables)
                var state: PresentableState =
                    switch rng.below(40) {
                    case 0..<24: .visible
                    case 24..<37: .hidden
                    default: .dismissed
                    }
                // Dismissing the root's screens ends a session's life: rarely.
                if state == .dismissed, ["app", "home"].contains(presentable), !rng.perMille(50) { state = .hidden }
                entries.append(PresentableReport(presentable: presentable, state: state))
            }
        }
        guard !entries.isEmpty else { return }
        send(.report(Report(req: req(), session: session, reports: entries)), from: client.address)
    }

    private mutating func presenterAction() {
        let client = rng.pick(Self.presenters)
        ensureWelcomed(client)
        let session = hostedSession(of: client)
        let shown = reference.ui(of: session)?.visiblePresentables.map(\.rawValue) ?? []
        let presentable =
            !shown.isEmpty && rng.perMille(700) ? rng.pick(shown) : rng.pick(Self.presentables)
        let payload: JSONValue = rng.perMille(200) ? .null : .int(rng.below(6))
        let action = Step(rng.pick(Self.actions), payload: payload)
        send(
            .userAction(UserAction(req: req(), session: session, presentable: presentable, action: action)),
            from: client.address
        )
    }

    private mutating func presenterAck() {
        let client = rng.pick(Self.presenters)
        let session = hostedSession(of: client)
        let seq = max(lastSeqs[client.address] ?? 0, UInt64(rng.below(3)))
        send(.ack(Ack(session: session, seq: seq)), from: client.address)
    }

    private mutating func operatorDeepLink() {
        ensureWelcomed(Self.operatorClient)
        send(
            .deepLink(DeepLinkRequest(req: req(), session: randomSession(), step: randomStep())),
            from: Self.operatorClient.address
        )
    }

    private mutating func operatorCreatesSession() {
        ensureWelcomed(Self.operatorClient)
        send(
            .createSession(SessionRequest(req: req(), session: rng.pick(Self.sessionNames))),
            from: Self.operatorClient.address
        )
    }

    private mutating func operatorEndsSession() {
        ensureWelcomed(Self.operatorClient)
        let session = randomSession()
        send(.endSession(SessionRequest(req: req(), session: session)), from: Self.operatorClient.address)
        // Its adaptations are no longer the daemon's: a restarted daemon does not run them again.
        if !reference.sessionIDs.contains(session) { pendingAdapts.removeAll { $0.session == session } }
    }

    private mutating func operatorQueries() {
        ensureWelcomed(Self.operatorClient)
        let message: ClientMessage =
            switch rng.below(10) {
            case 0: .tree(SessionRequest(req: req(), session: randomSession()))
            case 1..<6: .sessions(SessionsRequest(req: req()))
            default: .health(PlainRequest(req: req()))
            }
        send(message, from: Self.operatorClient.address)
    }

    /// An adaptation completes (with a step, or failed), or a request no adaptation has completes.
    private mutating func completeAdapt() {
        if pendingAdapts.isEmpty || !rng.perMille(700) {
            guard rng.perMille(50) else { return stepperStep() }
            let input = DaemonInput.adaptCompleted(
                session: randomSession(), request: AdaptRequestID(rng.below(50)), step: randomStep()
            )
            // Only an unknown request: a known one's completion is below, and removed from the pending ones.
            if case .adaptCompleted(let session, let request, _) = input,
                pendingAdapts.contains(where: { $0.session == session && $0.request == request })
            {
                return
            }
            return feed(input, what: "\(input)")
        }
        let index = rng.below(pendingAdapts.count)
        let (session, request) = pendingAdapts.remove(at: index)
        let step: Step? = rng.perMille(150) ? nil : Step("openDetail", payload: .int(rng.below(6)))
        feed(.adaptCompleted(session: session, request: request, step: step), what: "\(request) completed with \(step?.description ?? "nothing")")
    }

    private mutating func bye() {
        let client = rng.pick(Self.presenters + Self.steppers + [Self.operatorClient])
        send(.bye, from: client.address)
        welcomed.remove(client.address)
        hosted[client.address] = nil
        attachments[client.address] = []
    }

    private mutating func unreachable() {
        let client = rng.pick(Self.presenters + Self.steppers + [Self.operatorClient])
        feed(.peerUnreachable(client.address), what: "\(client.name) unreachable")
        welcomed.remove(client.address)
        hosted[client.address] = nil
        attachments[client.address] = []
    }

    private mutating func tick() {
        now += UInt64(rng.below(3000))
        let time = now
        feed(.tick, what: "tick at \(time)")
        // A peer the tick counted dead must say HELLO again; the fuzz finds out from the next notWelcome.
    }

    /// A mutated frame (FrameFuzzer) from a client or a stranger: mostly refused, sometimes a message nobody made.
    private mutating func mutatedFrame() {
        var caseRNG = SplitMix64(seed: seed, case: inputIndex)
        let fuzzCase = fuzzer.make(&caseRNG)
        let clients = Self.presenters + Self.steppers + [Self.operatorClient]
        let address = rng.perMille(500) ? rng.pick(Self.strangers) : rng.pick(clients).address
        feed(.message(from: address, frames: fuzzCase.frames), what: "mutated [\(fuzzCase.mutation.rawValue)] from \(address)")
    }
}
