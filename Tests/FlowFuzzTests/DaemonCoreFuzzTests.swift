import FlowCore
import FlowDaemon
import FlowWire
import Logging
import TestFlows
import Testing

/// Part 2 of the fuzzing of issue 5: a million mutated frames fed straight to a `DaemonCore` (the in-memory
/// transport: no sockets, no threads, `now` an input) from fake peers welcomed as each role and from peers that never
/// said HELLO, interleaved with a presenter and a stepper doing valid work on the default session.
///
/// Every frame the codec refuses gets exactly one `ERROR` with the code the codec gives, and nothing else happens;
/// every mutated frame that still decodes gets what the protocol says (one reply per request; none for `HEARTBEAT`,
/// `BYE` and `ACK`, an `ACK` for a session the peer does not host being counted under `notHost`, an `ADAPTED`
/// answering nothing the peer was asked counted as a dropped answer); no fuzzed frame reaches the valid peers;
/// `counters.errors` is exactly the refusals sent; and the valid traffic still works at the end.
struct DaemonCoreFuzzTests {
    static let caseCount = 1_000_000

    @Test func aMillionMutatedFramesFromFakePeersAreEachAnsweredOrCountedAndValidTrafficGoesOn() async throws {
        let seed = FuzzSeed.value
        let report = try await onDedicatedThread("fuzz-core") {
            var fuzz = CoreFuzz(seed: seed)
            return fuzz.run(cases: Self.caseCount)
        }
        print(
            "daemon core fuzz: seed \(FuzzSeed.hex(seed)), \(report.cases) cases in "
                + "\(String(format: "%.1f", report.seconds)) s "
                + "(thread CPU \(String(format: "%.1f", report.cpuSeconds)) s): "
                + "refused by the codec=\(report.refusedByCodec) "
                + "decoded=\(report.decoded) (silent ACKs counted as notHost: \(report.silentAcks), "
                + "ADAPTEDs dropped as unknownRequest: \(report.droppedAnswers)); "
                + "valid cycles=\(report.cycles) valid messages=\(report.validMessages)"
        )
        print("  counters.errors: \(report.counted)")
        print("  checked against the codec (every 8th case, every case that decodes): \(report.checkedAgainstCodec)")
        #expect(report.cases == Self.caseCount)
        #expect(report.refusedByCodec + report.decoded == report.cases)
        #expect(
            report.failureCount == 0, "\(report.failureCount) failures:\n\(report.failures.joined(separator: "\n"))"
        )
        #expect(report.counted.counts == report.tally.counts, "counters.errors is what was refused")
        #expect(Set(report.counted.counts.keys).isSubset(of: ProtocolCodes.documented))
        #expect(report.cycles > 400)
        #expect(report.finalStepAccepted)
        #expect(report.healthAnswered)
        #expect(report.healthErrors == report.tally.counts, "HEALTH reports the same counters")
        #expect(report.messagesIn == report.countedMessagesIn)
        #expect(report.peersLost == 0)
        for code in ["malformedFrame", "unsupportedVersion", "unknownType", "malformedBody", "invalidName",
                     "messageTooLarge", "notWelcome", "forbidden", "unknownSession", "unknownStep", "notHost"] {
            #expect(report.counted.counts[code, default: 0] > 0, "no \(code)")
        }
    }
}

/// The state of one core fuzz run.
struct CoreFuzz {
    struct Summary: Sendable {
        var cases = 0
        var refusedByCodec = 0
        var decoded = 0
        var silentAcks = 0
        var droppedAnswers = 0
        var cycles = 0
        var validMessages = 0
        var tally = CodeTally()
        var checkedAgainstCodec = CodeTally()
        var counted = CodeTally()
        var failures: [String] = []
        var failureCount = 0
        var finalStepAccepted = false
        var healthAnswered = false
        var healthErrors: [String: Int] = [:]
        var messagesIn = 0
        var countedMessagesIn = 0
        var peersLost = 0
        var seconds = 0.0
        var cpuSeconds = 0.0
    }

    struct FuzzPeer {
        let address: PeerAddress
        /// The role it is welcomed as, `nil` for a peer that never says HELLO.
        let role: PeerRole?
        let name: String
    }

    /// The codes only the codec gives (docs/PROTOCOL.md §2-§3).
    static let codecCodes: Set<String> = [
        "malformedFrame", "unsupportedVersion", "unknownType", "malformedBody", "messageTooLarge", "invalidName",
    ]
    static let presenter = PeerAddress([0x50])
    static let stepper = PeerAddress([0x53])
    static let operatorPeer = PeerAddress([0x4F])
    static let fuzzPeers = [
        FuzzPeer(address: PeerAddress([0xF1]), role: .stepper, name: "fuzz-stepper"),
        FuzzPeer(address: PeerAddress([0xF2]), role: .presenter, name: "fuzz-presenter"),
        FuzzPeer(address: PeerAddress([0xF3]), role: .operator, name: "fuzz-operator"),
        FuzzPeer(address: PeerAddress([0xF4]), role: nil, name: "stranger-1"),
        FuzzPeer(address: PeerAddress([0xF5, 0x00]), role: nil, name: "stranger-2"),
    ]

    let seed: UInt64
    let codec = WireCodec()
    let fuzzer = FrameFuzzer()
    var core: DaemonCore
    var now: UInt64 = 0
    var report = Summary()
    var nextReq: UInt64 = 1000
    var homeAttachment = 0
    var detailAttachment = 0
    var lastSeq: UInt64 = 0
    var detailNumber = 0
    var showingDetail = false
    var currentCase = -1

    init(seed: UInt64) {
        self.seed = seed
        core = DaemonCore(
            application: TestApplication(stepNames: ["start", "openDetail", "back"]), daemonID: "fuzz-daemon",
            logger: Logger(label: "FlowFuzzTests", factory: { _ in SwiftLogNoOpLogHandler() }), now: 0
        )
    }

    // MARK: - Running

    mutating func run(cases: Int) -> Summary {
        let (_, seconds, cpuSeconds) = measure {
            _ = core.start(now: now)
            setUp()
            for index in 0..<cases {
                currentCase = index
                var rng = SplitMix64(seed: seed, case: index)
                let fuzzCase = fuzzer.make(&rng)
                let peer = Self.fuzzPeers[rng.below(Self.fuzzPeers.count)]
                fuzz(fuzzCase, from: peer, checkingTheCodec: index % 8 == 0)
                if index % 2000 == 1999 { validCycle() }
                if index % 1000 == 999 {
                    now += 10
                    _ = core.handle(.tick, now: now)
                }
            }
            currentCase = -1
            finish()
        }
        report.seconds = seconds
        report.cpuSeconds = cpuSeconds
        report.counted = CodeTally()
        for (code, count) in core.counters.errors { report.counted.add(code, count) }
        report.countedMessagesIn = core.counters.messagesIn
        report.peersLost = core.counters.peersLost
        return report
    }

    private mutating func fail(_ what: String, _ fuzzCase: FuzzCase? = nil) {
        report.failureCount += 1
        guard report.failures.count < 30 else { return }
        let at = currentCase >= 0 ? "seed \(FuzzSeed.hex(seed)) case \(currentCase)" : "valid traffic"
        report.failures.append("\(at): \(what)" + (fuzzCase.map { " [\($0.mutation.rawValue)] \($0.dump)" } ?? ""))
    }

    private mutating func check(_ condition: Bool, _ what: String) {
        if !condition { fail(what) }
    }

    private mutating func input(_ frames: [[UInt8]], from peer: PeerAddress) -> [DaemonOutput] {
        report.messagesIn += 1
        return core.handle(.message(from: peer, frames: frames), now: now)
    }

    private mutating func send(_ message: ClientMessage, from peer: PeerAddress) -> [DaemonOutput] {
        report.validMessages += 1
        return input(codec.encode(message), from: peer)
    }

    private mutating func req() -> UInt64 {
        nextReq += 1
        return nextReq
    }

    private static func sent(_ outputs: [DaemonOutput], to peer: PeerAddress) -> [DaemonMessage] {
        outputs.compactMap { output in
            if case .send(let address, let message) = output, address == peer { return message }
            return nil
        }
    }

    // MARK: - Valid traffic

    private mutating func setUp() {
        let stepperHello = send(
            .hello(Hello(req: req(), role: .stepper, name: "valid-stepper", instance: "s", heartbeatMs: 60_000,
                         serves: ["home", "detail"])),
            from: Self.stepper
        )
        for case .attach(let attach) in Self.sent(stepperHello, to: Self.stepper) where attach.kind == "home" {
            homeAttachment = attach.attachment
        }
        check(homeAttachment != 0, "the valid stepper got no home attachment: \(stepperHello)")
        _ = send(
            .hello(Hello(req: req(), role: .presenter, name: "valid-presenter", instance: "p", heartbeatMs: 60_000)),
            from: Self.presenter
        )
        let syncReq = req()
        let sync = Self.sent(send(.sync(Sync(req: syncReq, session: "default", lastSeq: 0)), from: Self.presenter),
                             to: Self.presenter)
        check(sync.first == .ok(OKReply(req: syncReq, result: ["seq": 2, "mode": "snapshot"])), "SYNC: \(sync)")
        if case .snapshot(let snapshot)? = sync.last { lastSeq = snapshot.seq }
        check(lastSeq == 2, "snapshot at \(lastSeq)")
        reportShown(["app": .visible, "home": .visible])
        _ = send(
            .hello(Hello(req: req(), role: .operator, name: "valid-operator", instance: "o", heartbeatMs: 60_000)),
            from: Self.operatorPeer
        )
        for peer in Self.fuzzPeers where peer.role != nil { restore(peer) }
    }

    /// A `REPORT` from the valid presenter, answered `OK`; returns what else the daemon sent.
    @discardableResult
    private mutating func reportShown(_ entries: KeyValuePairs<String, PresentableState>) -> [DaemonOutput] {
        let number = req()
        let reports = entries.map { PresentableReport(presentable: $0.key, state: $0.value) }
        let outputs = send(
            .report(FlowWire.Report(req: number, session: "default", reports: reports)), from: Self.presenter
        )
        check(Self.sent(outputs, to: Self.presenter) == [.ok(OKReply(req: number))], "REPORT answered \(outputs)")
        return outputs
    }

    /// A `STEP` from the valid stepper that must be accepted and send `expected` to the presenter.
    private mutating func acceptedStep(_ step: Step, attachment: Int, expected: NavigationCommand) -> [DaemonOutput] {
        let number = req()
        let outputs = send(
            .step(StepMessage(req: number, session: "default", attachment: attachment, step: step)), from: Self.stepper
        )
        let toStepper = Self.sent(outputs, to: Self.stepper)
        let toPresenter = Self.sent(outputs, to: Self.presenter)
        lastSeq += 1
        let command = DaemonMessage.command(CommandMessage(session: "default", seq: lastSeq, command: expected))
        check(toPresenter == [command], "\(step) sent the presenter \(toPresenter), not \(command)")
        check(toStepper.last == .ok(OKReply(req: number, result: ["accepted": true])), "\(step) answered \(toStepper)")
        let ack = send(.ack(Ack(session: "default", seq: lastSeq)), from: Self.presenter)
        check(ack.isEmpty, "ACK answered \(ack)")
        return outputs
    }

    /// The valid presenter and stepper open a detail screen, or close it; every tenth time the presenter also sends a
    /// heartbeat, syncs again (a replay of nothing) and reports what it shows, and the operator asks for `HEALTH`.
    private mutating func validCycle() {
        report.cycles += 1
        if !showingDetail {
            detailNumber += 1
            let detail = Screens.detail(detailNumber)
            let outputs = acceptedStep(
                Step("openDetail", payload: .int(detailNumber)), attachment: homeAttachment,
                expected: .push(detail, onto: "app")
            )
            detailAttachment = 0
            for case .attach(let attach) in Self.sent(outputs, to: Self.stepper) where attach.kind == "detail" {
                detailAttachment = attach.attachment
            }
            check(detailAttachment != 0, "no ATTACH for \(detail.id)")
            reportShown(["home": .hidden, detail.id.rawValue: .visible])
            showingDetail = true
            return
        }
        let detail = Screens.detail(detailNumber)
        let back = acceptedStep(Step("back"), attachment: detailAttachment, expected: .pop(stack: "app"))
        let detach = DaemonMessage.detach(
            Detach(session: "default", attachment: detailAttachment, reason: "presentableDismissed")
        )
        // The pop ends the detail's attachment as it is sequenced (docs/SEMANTICS.md D18); the report is no news.
        check(Self.sent(back, to: Self.stepper).first == detach, "back sent \(back)")
        let dismissal = reportShown([detail.id.rawValue: .dismissed, "home": .visible])
        check(Self.sent(dismissal, to: Self.stepper) == [], "dismissal sent \(dismissal)")
        showingDetail = false
        guard report.cycles % 20 == 0 else { return }
        check(send(.heartbeat(Heartbeat()), from: Self.presenter).isEmpty, "HEARTBEAT answered")
        let syncReq = req()
        let sync = send(.sync(Sync(req: syncReq, session: "default", lastSeq: lastSeq)), from: Self.presenter)
        let replay = DaemonMessage.ok(OKReply(req: syncReq, result: ["seq": .int(Int(lastSeq)), "mode": "replay"]))
        check(Self.sent(sync, to: Self.presenter) == [replay], "re-SYNC answered \(sync)")
        reportShown(["app": .visible, "home": .visible])
        let healthReq = req()
        let health = Self.sent(
            send(.health(PlainRequest(req: healthReq)), from: Self.operatorPeer), to: Self.operatorPeer
        )
        check(health.count == 1 && health.first?.req == healthReq, "HEALTH answered \(health)")
    }

    /// The last word: a step is still accepted and reaches the presenter, and `HEALTH` answers with the counters.
    private mutating func finish() {
        if showingDetail { validCycle() }
        let before = report.failureCount
        detailNumber += 1
        _ = acceptedStep(
            Step("openDetail", payload: .int(detailNumber)), attachment: homeAttachment,
            expected: .push(Screens.detail(detailNumber), onto: "app")
        )
        report.finalStepAccepted = report.failureCount == before
        let healthReq = req()
        let health = Self.sent(
            send(.health(PlainRequest(req: healthReq)), from: Self.operatorPeer), to: Self.operatorPeer
        )
        if case .ok(let reply)? = health.first, reply.req == healthReq, health.count == 1,
            case .object(let result) = reply.result, case .object(let counters)? = result["counters"],
            case .object(let errors)? = counters["errors"]
        {
            report.healthAnswered = true
            report.healthErrors = errors.compactMapValues(\.intValue)
        }
    }

    // MARK: - Fuzzing

    /// Sends one case from a fuzz peer and checks the daemon's answer against what the protocol says.
    private mutating func fuzz(_ fuzzCase: FuzzCase, from peer: FuzzPeer, checkingTheCodec: Bool) {
        var fuzzCase = fuzzCase
        if fuzzCase.frames.count == 3, fuzzCase.frames[1] == Array(MessageType.endSession.rawValue.utf8),
            case .client(.endSession(var body))? = try? codec.decode(fuzzCase.frames, from: .client), body.session == "default"
        {
            // A valid END_SESSION of the valid traffic's session is an operator's right, not damage: end another.
            body.session = "fuzzed"
            fuzzCase.frames = codec.encode(ClientMessage.endSession(body))
        }
        report.cases += 1
        let errorsBefore = core.counters.errors
        let answersDroppedBefore = core.counters.adaptAnswersDropped.values.reduce(0, +)
        let outputs = input(fuzzCase.frames, from: peer.address)
        // The common case, checked without decoding the frames here too: the codec refused them, and the daemon sent
        // one ERROR with a codec's code and counted it once. Every eighth case is decoded all the same, to check the
        // code, req and type are the codec's (DecoderFuzzTests checks the codec on these very cases).
        if !checkingTheCodec, outputs.count == 1, case .send(let address, .error(let refusal)) = outputs[0],
            address == peer.address, Self.codecCodes.contains(refusal.code.rawValue)
        {
            let code = refusal.code.rawValue
            report.refusedByCodec += 1
            report.tally.add(code)
            let errorsAfter = core.counters.errors
            if errorsAfter[code] != errorsBefore[code, default: 0] + 1
                || errorsAfter.values.reduce(0, +) != errorsBefore.values.reduce(0, +) + 1
            {
                fail("counted \(errorsAfter), was \(errorsBefore), for one \(code)", fuzzCase)
            }
            if refusal.message.isEmpty { fail("an ERROR without text", fuzzCase) }
            return
        }
        let predicted: Result<WireMessage, WireError>
        do throws(WireError) {
            predicted = .success(try codec.decode(fuzzCase.frames, from: .client))
        } catch {
            predicted = .failure(daemonRefusal(of: error, welcomed: peer.role != nil))
        }
        var delta = core.counters.errors
        for (code, count) in errorsBefore { delta[code]! -= count }
        delta = delta.filter { $0.value != 0 }
        let toPeer = Self.sent(outputs, to: peer.address)
        let replies = toPeer.filter {
            switch $0 {
            case .ok, .error, .welcome: return true
            default: return false
            }
        }
        let refusals = replies.compactMap { message -> ErrorReply? in
            if case .error(let reply) = message { return reply }
            return nil
        }
        for refusal in refusals { report.tally.add(refusal.code.rawValue) }
        var expectedDelta: [String: Int] = [:]
        for refusal in refusals { expectedDelta[refusal.code.rawValue, default: 0] += 1 }

        // Nothing a fuzz peer sends reaches the valid peers' session.
        for output in outputs {
            guard case .send(let address, let message) = output else { continue }
            if address == Self.presenter || address == Self.operatorPeer {
                fail("a fuzzed frame made the daemon send \(message) to a valid peer", fuzzCase)
            }
            if address == Self.stepper, Self.session(of: message) == "default" {
                fail("a fuzzed frame made the daemon send \(message) to the valid stepper", fuzzCase)
            }
        }

        switch predicted {
        case .failure(let error):
            report.refusedByCodec += 1
            report.checkedAgainstCodec.add(error.code.rawValue)
            let expected = ErrorReply(req: error.req, code: error.code, message: "", type: error.type?.rawValue)
            if outputs.count != 1 || refusals.count != 1 {
                fail("a refused frame made \(outputs), not one ERROR", fuzzCase)
            } else if var refusal = refusals.first {
                if refusal.message.isEmpty { fail("an ERROR without text", fuzzCase) }
                refusal.message = ""
                if refusal != expected { fail("answered \(refusal), the codec says \(expected)", fuzzCase) }
            }
            if delta != [error.code.rawValue: 1] { fail("counted \(delta) for \(error.code)", fuzzCase) }
            if report.cases % 64 == 0, let message = toPeer.first {
                // What the daemon sends decodes on the other side (sampled: it costs an encoder).
                if (try? codec.decode(codec.encode(message), from: .daemon)) != message.wire { fail("ERROR does not decode", fuzzCase) }
            }
        case .success(let message):
            report.decoded += 1
            let answersDropped = core.counters.adaptAnswersDropped.values.reduce(0, +) - answersDroppedBefore
            checkDecoded(
                message, fuzzCase, from: peer, replies: replies, delta: delta, expectedDelta: expectedDelta,
                answersDropped: answersDropped
            )
        }
    }

    private mutating func checkDecoded(
        _ message: WireMessage, _ fuzzCase: FuzzCase, from peer: FuzzPeer, replies: [DaemonMessage],
        delta: [String: Int], expectedDelta: [String: Int], answersDropped: Int
    ) {
        let type = message.type.rawValue
        let welcomed = peer.role != nil
        let refusedFor: String? =
            !welcomed && message.type != .hello
            ? "notWelcome" : welcomed && message.type != .hello && !roleMaySend(type, peer.role!.rawValue)
            ? "forbidden" : nil
        if let code = refusedFor {
            // Refused whatever it says: exactly one ERROR with that code and the message's req.
            let expected = ErrorReply(req: message.req, code: WireError.Code(rawValue: code), message: "", type: type)
            var reply: ErrorReply?
            if case .error(let error)? = replies.first { reply = error }
            reply?.message = ""
            if replies.count != 1 || reply != expected { fail("\(message) answered \(replies), not \(code)", fuzzCase) }
            if delta != expectedDelta { fail("\(message) counted \(delta)", fuzzCase) }
            return
        }
        switch message {
        case .client(.hello(let hello)):
            let welcome = replies.first.flatMap { reply -> Welcome? in
                if case .welcome(let welcome) = reply { return welcome }
                return nil
            }
            if replies.count != 1 || welcome?.req != hello.req { fail("HELLO answered \(replies)", fuzzCase) }
            if !delta.isEmpty { fail("HELLO counted \(delta)", fuzzCase) }
            restore(peer)
        case .client(.bye), .client(.heartbeat):
            if !replies.isEmpty || !delta.isEmpty { fail("\(type) answered \(replies), counted \(delta)", fuzzCase) }
            if message.type == .bye { restore(peer) }
        case .client(.ack):
            // No reply, not even an ERROR; counted under notHost unless the peer hosts the session.
            if !replies.isEmpty { fail("ACK answered \(replies)", fuzzCase) }
            if delta == ["notHost": 1] {
                report.silentAcks += 1
                report.tally.add("notHost")
            } else if !delta.isEmpty {
                fail("ACK counted \(delta)", fuzzCase)
            }
        case .client(.adapted):
            // Not a request: no reply; an answer to a question the peer was never asked is dropped and counted.
            if !replies.isEmpty || !delta.isEmpty { fail("ADAPTED answered \(replies), counted \(delta)", fuzzCase) }
            if answersDropped != 1 { fail("ADAPTED counted \(answersDropped) dropped answers, not 1", fuzzCase) }
            report.droppedAnswers += 1
        default:
            // A request its role may send: exactly one reply, OK or ERROR, with its req, counted if an ERROR.
            if replies.count != 1 || replies.first?.req != message.req {
                fail("\(message) answered \(replies)", fuzzCase)
            }
            if delta != expectedDelta { fail("\(message) counted \(delta), answered \(replies)", fuzzCase) }
        }
    }

    /// Puts a fuzz peer back as it started after a mutated HELLO or BYE got through: welcomed as its role and name,
    /// or unknown again (a BYE).
    private mutating func restore(_ peer: FuzzPeer) {
        let outputs: [DaemonOutput]
        if let role = peer.role {
            let number = req()
            outputs = send(
                .hello(Hello(req: number, role: role, name: peer.name, instance: "f", heartbeatMs: 60_000)),
                from: peer.address
            )
            let welcome = Self.sent(outputs, to: peer.address).first
            if case .welcome(let reply)? = welcome, reply.req == number {
            } else {
                fail("HELLO \(peer.name): \(outputs)")
            }
        } else {
            outputs = send(.bye, from: peer.address)
        }
        for case .send(let address, let message) in outputs where address != peer.address {
            if address == Self.presenter || address == Self.operatorPeer
                || (address == Self.stepper && Self.session(of: message) == "default")
            {
                fail("restoring \(peer.name) sent \(message) to a valid peer")
            }
        }
    }

    private static func session(of message: DaemonMessage) -> String? {
        switch message {
        case .attach(let body): return body.session
        case .detach(let body): return body.session
        case .action(let body): return body.session
        case .command(let body): return body.session
        case .snapshot(let body): return body.session
        case .heartbeat: return nil
        default: return "default"
        }
    }
}
