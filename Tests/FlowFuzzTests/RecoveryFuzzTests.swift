import FlowCore
import FlowDaemon
import FlowWire
import Logging
import Synchronization
import TestFlows
import Testing

/// Issue 5's durability, fuzzed: a journaling `DaemonCore` fed a long random session (presenters syncing, reporting
/// and acting, steppers stepping and sending steps again, operators creating sessions and deep-linking,
/// adaptations completing, peers leaving, dying and timing out, time passing, and mutated frames), restarted from its
/// own journal at random points, must keep every session exactly.
///
/// Two cores get the same inputs: the reference runs throughout; the subject is restarted from its journal
/// (``DaemonCore/journalHistory``) at each restart point, while the reference loses all its peers there (a restarted
/// daemon has none). At each restart point the recovered core must have the reference's sessions (tree, UI, seq) and
/// daemon ID, and ask to run again exactly the adaptations still pending; between restart points both must answer
/// every input the same (every message, event and local stepper output, the `WELCOME`'s peer number and `HEALTH`'s
/// counters aside) and journal the same records.
///
/// Steps are sent again across restarts too: the answer must be the first verdict, whatever it was (a drop before
/// any flow saw it included: RecoveryDivergenceTests).
struct RecoveryFuzzTests {
    static let inputCount = 30_000
    static let restartCount = 20

    @Test func aJournalingDaemonRestartedAtRandomPointsOfAFuzzedSessionKeepsEverySession() async throws {
        let seed = FuzzSeed.value
        let summary = try await onDedicatedThread("fuzz-recovery") {
            var fuzz = RecoveryFuzz(seed: seed)
            return fuzz.run(inputs: Self.inputCount, restarts: Self.restartCount)
        }
        print(
            "recovery fuzz: seed \(FuzzSeed.hex(seed)), \(summary.inputs) inputs, \(summary.restarts) restarts in "
                + "\(String(format: "%.1f", summary.seconds)) s; journal records \(summary.records) "
                + "(at the last restart \(summary.recordsAtLastRestart)); sessions \(summary.sessions); "
                + "navigations \(summary.navigations); steps accepted \(summary.stepsAccepted), dropped "
                + "\(summary.stepsDropped), duplicates \(summary.duplicates); adaptations pending at restarts "
                + "\(summary.pendingAdaptsAtRestarts); presentables visible when restarted \(summary.visibleAtRestarts)"
        )
        print(
            "  compactions before restarts \(summary.compactions): sessions saved as data \(summary.sessionsSaved), "
                + "kept as history \(summary.sessionsKeptAsHistory)")
        print("  records by kind: \(summary.recordKinds.sorted { $0.key < $1.key })")
        print("  refused (since the last restart): \(summary.errors.sorted { $0.key < $1.key })")
        print("  steps dropped (since the last restart): \(summary.dropReasons.sorted { $0.key < $1.key })")
        #expect(
            summary.failureCount == 0, "\(summary.failureCount) failures:\n\(summary.failures.joined(separator: "\n"))"
        )
        #expect(summary.inputs == Self.inputCount)
        #expect(summary.restarts == Self.restartCount)
        #expect(summary.statesCompared > Self.restartCount * 2)
        // The session did things worth recovering.
        #expect(summary.sessions >= 3)
        #expect(summary.navigations > 1000)
        #expect(summary.duplicates > 100)
        #expect(summary.pendingAdaptsAtRestarts > 0)
        // Most restarts start from state snapshots; some sessions wait for an adaptation then and stay history.
        #expect(summary.compactions > Self.restartCount / 4)
        #expect(summary.sessionsSaved > Self.restartCount / 4)
        #expect(summary.visibleAtRestarts > 0)
        for kind in [
            "session", "step", "lost", "adapted", "deep_link", "report.visible", "report.hidden", "report.dismissed", "adopted",
        ] {
            #expect(summary.recordKinds[kind, default: 0] > 0, "no \(kind) record")
        }
    }
}

/// One recovery fuzz run.
struct RecoveryFuzz {
    struct Summary: Sendable {
        var inputs = 0
        var restarts = 0
        var statesCompared = 0
        var records = 0
        var recordsAtLastRestart = 0
        var recordKinds: [String: Int] = [:]
        var sessions = 0
        var navigations = 0
        var stepsAccepted = 0
        var stepsDropped = 0
        var duplicates = 0
        var pendingAdaptsAtRestarts = 0
        var visibleAtRestarts = 0
        /// Restarts from a compacted history: sessions saved as data (`state` records) where they could be.
        var compactions = 0
        var sessionsSaved = 0
        var sessionsKeptAsHistory = 0
        var failures: [String] = []
        var failureCount = 0
        var seconds = 0.0
        var errors: [String: Int] = [:]
        var dropReasons: [String: Int] = [:]
    }

    /// A client the fuzz plays.
    struct Client {
        let address: PeerAddress
        let role: PeerRole
        let name: String
        let serves: [String]
    }

    /// An output as the two cores must agree on it.
    enum Output: Equatable, CustomStringConvertible {
        case send(PeerAddress, WireMessage)
        case health(PeerAddress, req: UInt64)
        case publish(EventMessage)
        case local(String)

        var description: String {
            switch self {
            case .send(let address, let message): return "send \(address) \(message)"
            case .health(let address, let req): return "send \(address) HEALTH reply \(req)"
            case .publish(let event): return "publish \(event.text)"
            case .local(let text): return text
            }
        }
    }

    static let daemonID = "recovery-fuzz"
    static let presenters = [
        Client(address: PeerAddress([0x10]), role: .presenter, name: "presenter-a", serves: []),
        Client(address: PeerAddress([0x11]), role: .presenter, name: "presenter-b", serves: []),
    ]
    static let steppers = [
        Client(address: PeerAddress([0x20]), role: .stepper, name: "stepper-a", serves: ["home", "detail", "settings", "tab"]),
        Client(address: PeerAddress([0x21]), role: .stepper, name: "stepper-b", serves: ["detail", "tab"]),
    ]
    static let operatorClient = Client(address: PeerAddress([0x30]), role: .operator, name: "operator", serves: [])
    static let strangers = [PeerAddress([0xF1]), PeerAddress([0xF2])]
    static let sessionNames = ["default", "s1", "s2", "s3", "s4"]
    static let actions = ["open", "settings", "later", "tabs", "done", "deep", "nothing"]
    /// Every presentable ``TestApplication`` shows, and one it never does: what fuzzed reports and actions name.
    static let presentables: [String] =
        ["app", "home", "tabs", "tab.a", "tab.b", "tab.a.view", "tab.b.view", "settings", "settings.list",
         "settings.buttons", "nowhere"] + (0..<6).map { "detail.\($0)" }

    let seed: UInt64
    let codec = WireCodec()
    let fuzzer = FrameFuzzer()
    let recordDecoder = RecordKinds()
    var rng: SplitMix64
    var reference: DaemonCore
    var subject: DaemonCore
    var referenceSteps = LocalStepQueue()
    var subjectSteps = LocalStepQueue()
    var now: UInt64 = 0
    var summary = Summary()
    var inputIndex = 0
    var restartEpoch = 0

    // What the clients know.
    var nextReq: UInt64 = 1
    var welcomed: Set<PeerAddress> = []
    var instances: [PeerAddress: String] = [:]
    var instanceRuns: [PeerAddress: Int] = [:]
    var hosted: [PeerAddress: String] = [:]
    var lastSeqs: [PeerAddress: UInt64] = [:]
    /// The attachments each stepper was sent (`ATTACH`) and not detached from.
    var attachments: [PeerAddress: [(session: String, attachment: Int)]] = [:]
    /// Each stepper instance's last STEPs (at most 400: well inside the daemon's de-duplication window).
    var sentSteps: [String: [StepMessage]] = [:]
    var pendingAdapts: [(session: String, request: AdaptRequestID)] = []

    init(seed: UInt64) {
        self.seed = seed
        rng = SplitMix64(seed: seed ^ 0x5EC0_7E21)
        reference = Self.makeCore(daemonID: Self.daemonID, now: 0)
        subject = Self.makeCore(daemonID: Self.daemonID, now: 0)
    }

    static func makeCore(daemonID: String, now: UInt64) -> DaemonCore {
        DaemonCore(
            application: TestApplication(stepNames: Set(TestApplication.allStepNames)), daemonID: daemonID,
            logger: Logger(label: "FlowFuzzTests", factory: { _ in SwiftLogNoOpLogHandler() }), now: now,
            journaling: true
        )
    }

    // MARK: - Running

    mutating func run(inputs count: Int, restarts: Int) -> Summary {
        // One restart at a random point of each of `restarts` equal stretches of the run.
        let stretch = count / restarts
        let restartPoints = Set((0..<restarts).map { $0 * stretch + 1 + rng.below(stretch - 1) })
        let (_, seconds, _) = measure {
            compare(
                reference.start(now: now), referenceSteps, subject.start(now: now), subjectSteps, what: "start"
            )
            compareJournals(what: "start")
            for index in 0..<count {
                inputIndex = index
                if restartPoints.contains(index) { restart() }
                fuzzOne()
                if index % 1000 == 999 { compareStates(what: "after input \(index)") }
            }
            inputIndex = count
            compareStates(what: "at the end")
        }
        summary.seconds = seconds
        summary.inputs = count
        summary.sessions = reference.sessionIDs.count
        summary.navigations = reference.counters.navigations
        summary.records = reference.journalRecordCount
        summary.errors = reference.counters.errors
        summary.dropReasons = reference.counters.stepsDropped
        for record in reference.journalHistory { summary.recordKinds[recordDecoder.kind(of: record), default: 0] += 1 }
        return summary
    }

    private mutating func fail(_ what: String) {
        summary.failureCount += 1
        guard summary.failures.count < 20 else { return }
        summary.failures.append("seed \(FuzzSeed.hex(seed)) input \(inputIndex) (restart \(restartEpoch)): \(what)")
    }

    // MARK: - Restarting

    /// The subject is killed and recovered from its journal; the reference loses every peer.
    private mutating func restart() {
        restartEpoch += 1
        summary.restarts += 1
        summary.recordsAtLastRestart = subject.journalRecordCount
        for session in reference.sessionIDs {
            summary.visibleAtRestarts += reference.tree(of: session).map { Self.visibleCount(in: "\($0)") } ?? 0
        }
        let every = Self.presenters + Self.steppers + [Self.operatorClient]
        for address in every.map(\.address) + Self.strangers {
            _ = reference.handle(.peerUnreachable(address), now: now)
        }
        let lostByReference = reference.takeJournal()
        if !referenceSteps.drain().isEmpty { fail("losing its peers, the reference's local steppers emitted") }

        subjectSteps.cancelAll()
        subjectSteps = LocalStepQueue()
        if rng.perMille(600) {
            // A snapshot written before the kill: the sessions that can be are saved as data.
            let compaction = subject.compactJournal()
            summary.compactions += 1
            summary.sessionsSaved += compaction.saved
            summary.sessionsKeptAsHistory += compaction.keptAsHistory.values.reduce(0, +)
        }
        var restarted = Self.makeCore(daemonID: "restarted-\(restartEpoch)", now: now)
        do {
            let report = try restarted.recover(from: subject.journalHistory)
            if report.skipped != 0 { fail("recovery skipped \(report.skipped) records") }
        } catch {
            fail("recovery failed: \(error)")
            return
        }
        subject = restarted
        let started = subject.start(now: now)
        var resumed: [AdaptRequestID] = []
        for output in started {
            switch output {
            case .send, .publish: fail("a restarted daemon output \(output) before any peer connected")
            case .attachLocal: fail("a restarted daemon attached a local stepper anew: \(output)")
            case .runAdapt(_, let request): resumed.append(request.id)
            case .resumeLocal, .detachLocal: break
            }
            subjectSteps.perform(output)
        }
        let pending = pendingAdapts.map(\.request).sorted()
        summary.pendingAdaptsAtRestarts += pending.count
        if resumed.sorted() != pending {
            fail("the restarted daemon runs the adaptations \(resumed.sorted()), pending were \(pending)")
        }
        if !subjectSteps.drain().isEmpty { fail("a resumed local stepper emitted on its own") }
        // What the restarted daemon journals as it starts: the presentables it no longer counts as visible, as the
        // reference journaled when its presenters went away.
        let lostBySubject = subject.takeJournal()
        if Set(lostBySubject) != Set(lostByReference) || lostBySubject.count != lostByReference.count {
            fail(
                "restarted, the daemon journaled \(lostBySubject.map(Self.text)) where the reference journaled "
                    + "\(lostByReference.map(Self.text))"
            )
        }
        if subject.daemonID != Self.daemonID { fail("the restarted daemon is '\(subject.daemonID)'") }
        compareStates(what: "restarted")

        welcomed = []
        hosted = [:]
        attachments = [:]
    }

    // MARK: - Comparing

    /// What of a session a client can observe: its tree, the UI its commands built, and its `seq`.
    static func state(of core: DaemonCore, session: String) -> String {
        let tree = core.tree(of: session).map { "\($0)" } ?? "-"
        let ui = core.ui(of: session).map { "\(UISnapshot($0))" } ?? "-"
        return "seq \(core.seq(of: session) ?? 0)\n\(tree)\n\(ui)"
    }

    private mutating func compareStates(what: String) {
        summary.statesCompared += 1
        if subject.sessionIDs != reference.sessionIDs {
            return fail("\(what): sessions \(subject.sessionIDs), the reference has \(reference.sessionIDs)")
        }
        for session in reference.sessionIDs {
            let expected = Self.state(of: reference, session: session)
            let actual = Self.state(of: subject, session: session)
            if actual != expected { fail("\(what): session \(session) is\n\(actual)\nthe reference's is\n\(expected)") }
        }
    }

    private mutating func compareJournals(what: @autoclosure () -> String) {
        let expected = reference.takeJournal()
        let actual = subject.takeJournal()
        if actual != expected {
            fail("\(what()): journaled \(actual.map(Self.text)), the reference \(expected.map(Self.text))")
        }
    }

    private static func text(_ record: [UInt8]) -> String { String(decoding: record, as: UTF8.self) }

    private static func visibleCount(in tree: String) -> Int {
        tree.components(separatedBy: "[visible]").count - 1
    }

    private func normalized(_ outputs: [DaemonOutput]) -> [Output] {
        outputs.map { output in
            switch output {
            case .send(let address, var message):
                if case .welcome(var welcome) = message {
                    welcome.peer = "*"  // peer numbers go on in the reference, start again in a restarted daemon
                    message = .welcome(welcome)
                }
                if case .ok(let reply) = message, case .object(let fields) = reply.result, fields["counters"] != nil {
                    return .health(address, req: reply.req)  // counters start again in a restarted daemon
                }
                return .send(address, message)
            case .publish(let event):
                return .publish(event)
            case .attachLocal(let session, let attachment):
                return .local("attach \(session) \(attachment.id) on \(attachment.presentable)")
            case .resumeLocal(let session, let attachment):
                return .local("resume \(session) \(attachment.id) on \(attachment.presentable)")
            case .detachLocal(let session, let attachment):
                return .local("detach \(session) \(attachment)")
            case .runAdapt(let session, let request):
                return .local("adapt \(session) \(request)")
            }
        }
    }

    /// Both cores' outputs for one input must be the same; then the local steppers run, and what they emit is fed
    /// to both.
    private mutating func compare(
        _ expectedOutputs: [DaemonOutput], _ expectedSteps: LocalStepQueue, _ actualOutputs: [DaemonOutput],
        _ actualSteps: LocalStepQueue, what: @autoclosure () -> String
    ) {
        let expected = normalized(expectedOutputs)
        let actual = normalized(actualOutputs)
        if actual != expected {
            let first = (0..<min(actual.count, expected.count)).first { actual[$0] != expected[$0] }
                ?? min(actual.count, expected.count)
            let got = first < actual.count ? actual[first].description : "nothing"
            let wanted = first < expected.count ? expected[first].description : "nothing"
            fail("\(what()): output \(first) is \(got), the reference's \(wanted) (\(actual.count) vs \(expected.count) outputs)")
        }
        for output in expectedOutputs { expectedSteps.perform(output) }
        for output in actualOutputs { actualSteps.perform(output) }
        observe(expectedOutputs)
    }

    /// One input to both cores, compared.
    private mutating func feed(_ input: DaemonInput, what: @autoclosure () -> String) {
        let expected = reference.handle(input, now: now)
        let actual = subject.handle(input, now: now)
        compare(expected, referenceSteps, actual, subjectSteps, what: what())
        compareJournals(what: what())
        // The in-daemon steppers' steps, fed back one at a time as the server does.
        var rounds = 0
        while true {
            let expectedSteps = referenceSteps.drain()
            let actualSteps = subjectSteps.drain()
            if expectedSteps.map(\.description) != actualSteps.map(\.description) {
                fail("\(what()): local steppers emitted \(actualSteps), the reference's \(expectedSteps)")
            }
            guard !expectedSteps.isEmpty, rounds < 10 else { return }
            rounds += 1
            for step in expectedSteps {
                let input = DaemonInput.localStep(session: step.session, attachment: step.attachment, step: step.step)
                let expected = reference.handle(input, now: now)
                let actual = subject.handle(input, now: now)
                compare(expected, referenceSteps, actual, subjectSteps, what: "\(what()), then local \(step)")
                compareJournals(what: "\(what()), then local \(step)")
            }
        }
    }

    private mutating func send(_ message: WireMessage, from address: PeerAddress) {
        if case .step(let step) = message, let instance = instances[address] {
            sentSteps[instance, default: []].append(step)
            if sentSteps[instance]!.count > 400 { sentSteps[instance]!.removeFirst(200) }
        }
        feed(.message(from: address, frames: codec.encode(message)), what: "\(message) from \(address)")
    }

    /// What the clients learn from the reference's outputs.
    private mutating func observe(_ outputs: [DaemonOutput]) {
        for output in outputs {
            switch output {
            case .send(let address, .welcome):
                welcomed.insert(address)
            case .send(let address, .attach(let attach)):
                attachments[address, default: []].append((attach.session, attach.attachment))
            case .send(let address, .detach(let detach)):
                attachments[address]?.removeAll { $0 == (detach.session, detach.attachment) }
            case .send(let address, .command(let command)):
                lastSeqs[address] = max(lastSeqs[address] ?? 0, command.seq)
            case .send(let address, .snapshot(let snapshot)):
                lastSeqs[address] = snapshot.seq
            case .send(_, .ok(let reply)):
                guard case .object(let fields) = reply.result, case .bool(let accepted)? = fields["accepted"] else {
                    continue
                }
                if fields["duplicate"] != nil {
                    summary.duplicates += 1
                    continue
                }
                if accepted { summary.stepsAccepted += 1 } else { summary.stepsDropped += 1 }
            case .send(let address, .error(let error)):
                if error.code == .notWelcome { welcomed.remove(address) }
            case .runAdapt(let session, let request):
                pendingAdapts.append((session, request.id))
            default:
                break
            }
        }
    }

    // MARK: - Inputs

    private mutating func req() -> UInt64 {
        nextReq += 1
        return nextReq
    }

    private mutating func fuzzOne() {
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
        let message: WireMessage =
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

/// The steps a core's in-daemon steppers emit, waiting to be fed back, and the subscriptions that collect them.
///
/// `Sendable`: behind a `Mutex`; the subscriptions are only touched from the fuzz's thread.
final class LocalStepQueue: Sendable {
    struct Emitted: Sendable, CustomStringConvertible {
        let session: String
        let attachment: AttachmentID
        let step: Step

        var description: String { "\(session) \(attachment) \(step)" }
    }

    private let items = Mutex<[Emitted]>([])
    /// By session and attachment (attachment numbers are per session).
    private let subscriptions = Mutex<[String: [AttachmentID: (StepRelay, StepRelay.Subscription)]]>([:])

    /// Carries out a local stepper output: listens to a stepper attached or resumed, stops for one detached.
    func perform(_ output: DaemonOutput) {
        switch output {
        case .attachLocal(let session, let attachment), .resumeLocal(let session, let attachment):
            let id = attachment.id
            let subscription = attachment.stepper.steps.subscribe { [self] step in
                items.withLock { $0.append(Emitted(session: session, attachment: id, step: step)) }
            }
            subscriptions.withLock { $0[session, default: [:]][id] = (attachment.stepper.steps, subscription) }
        case .detachLocal(let session, let id):
            if let entry = subscriptions.withLock({ $0[session]?.removeValue(forKey: id) }) { entry.0.cancel(entry.1) }
        default:
            break
        }
    }

    func drain() -> [Emitted] {
        items.withLock { items in
            defer { items = [] }
            return items
        }
    }

    func cancelAll() {
        for (relay, subscription) in subscriptions.withLock({ $0.values.flatMap(\.values) }) { relay.cancel(subscription) }
        subscriptions.withLock { $0 = [:] }
    }
}

/// Reads a journal record's kind for the coverage summary (the `input` name for inputs).
struct RecordKinds {
    func kind(of record: [UInt8]) -> String {
        let text = String(decoding: record, as: UTF8.self)
        for name in ["step", "visible", "hidden", "dismissed", "lost", "adapted", "deep_link"]
        where text.contains("\"input\":\"\(name)\"") {
            return name
        }
        if text.contains("\"kind\":\"report\"") {
            for state in ["visible", "hidden", "dismissed"] where text.contains("\"state\":\"\(state)\"") {
                return "report.\(state)"
            }
        }
        for name in ["daemon", "session", "report", "adopted"] where text.contains("\"kind\":\"\(name)\"") {
            return name
        }
        return "other"
    }
}
