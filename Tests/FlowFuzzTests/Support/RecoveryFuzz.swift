import FlowCore
import FlowDaemon
import FlowWire
import Logging
import Synchronization
import TestFlows

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
        /// Compactions saved a slice at a time between inputs, as flowd's loop does turn by turn; and the sessions
        /// they saved (a restart may come in the middle of one: the log it recovers from is part saved).
        var slicedCompactions = 0
        var sessionsSavedInSlices = 0
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
        case send(PeerAddress, DaemonMessage)
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
    /// The subject's compaction saving a slice per input, if one runs; its own generator leaves the inputs as they
    /// were for each seed.
    var slicing: CompactionPreparation?
    var slicingRng: SplitMix64

    init(seed: UInt64) {
        self.seed = seed
        rng = SplitMix64(seed: seed ^ 0x5EC0_7E21)
        slicingRng = SplitMix64(seed: seed ^ 0x51_1CED)
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
                compactASlice()
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
        return summary
    }

    private mutating func fail(_ what: String) {
        summary.failureCount += 1
        guard summary.failures.count < 20 else { return }
        summary.failures.append("seed \(FuzzSeed.hex(seed)) input \(inputIndex) (restart \(restartEpoch)): \(what)")
    }

    /// Starts a compaction on the subject now and then, and saves a slice of the one under way (a random byte
    /// budget, at least one session), as flowd's loop does between the messages of its turns.
    private mutating func compactASlice() {
        if slicing == nil {
            guard slicingRng.perMille(20) else { return }
            slicing = subject.prepareCompaction()
        }
        let budget = slicingRng.perMille(500) ? 1 : slicingRng.below(16_384)
        guard subject.continueCompaction(&slicing!, bytes: budget) else { return }
        summary.slicedCompactions += 1
        summary.sessionsSavedInSlices += slicing!.compaction.saved
        slicing = nil
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
        countKinds(of: lostByReference)
        if !referenceSteps.drain().isEmpty { fail("losing its peers, the reference's local steppers emitted") }

        subjectSteps.cancelAll()
        subjectSteps = LocalStepQueue()
        slicing = nil  // the restart recovers from the log as the slices so far left it
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
        // The sessions recovery kept pending are made at once, as flowd's I/O loop makes them right after its start.
        let started = subject.start(now: now) + subject.makePendingSessions(limit: .max, now: now)
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

    /// What of a session a client can observe: its tree, the UI its commands built, and its `seq` (a pending session
    /// of a restarted core is made to be read); and what the UI counts against `max_session_ui_bytes`.
    static func state(of core: inout DaemonCore, session: String) -> String {
        let tree = core.tree(of: session).map { "\($0)" } ?? "-"
        let ui = core.ui(of: session).map { "\(UISnapshot($0))\nui bytes \($0.estimatedBytes)" } ?? "-"
        return "seq \(core.seq(of: session) ?? 0)\n\(tree)\n\(ui)"
    }

    /// The UI's byte count as the model keeps it, and as a walk of its screens sums it, when they differ.
    static func uiBytesMismatch(of core: inout DaemonCore, session: String) -> (kept: Int, walked: Int)? {
        guard let ui = core.ui(of: session) else { return nil }
        let walked = ui.presentables.reduce(0) { $0 + ui.screen($1)!.estimatedBytes }
        return ui.estimatedBytes == walked ? nil : (ui.estimatedBytes, walked)
    }

    private mutating func compareStates(what: String) {
        summary.statesCompared += 1
        if subject.sessionIDs != reference.sessionIDs {
            return fail("\(what): sessions \(subject.sessionIDs), the reference has \(reference.sessionIDs)")
        }
        for session in reference.sessionIDs {
            let expected = Self.state(of: &reference, session: session)
            let actual = Self.state(of: &subject, session: session)
            if actual != expected { fail("\(what): session \(session) is\n\(actual)\nthe reference's is\n\(expected)") }
            if let bytes = Self.uiBytesMismatch(of: &subject, session: session) {
                fail("\(what): session \(session)'s UI keeps \(bytes.kept) bytes, its screens sum to \(bytes.walked)")
            }
        }
    }

    private mutating func compareJournals(what: @autoclosure () -> String) {
        let expected = reference.takeJournal()
        countKinds(of: expected)
        let actual = subject.takeJournal()
        if actual != expected {
            fail("\(what()): journaled \(actual.map(Self.text)), the reference \(expected.map(Self.text))")
        }
    }

    /// Every record the reference journals counts, not only those its compacted journal keeps at the end: which
    /// of those last survive compaction is chance, and the check is what the run exercised.
    private mutating func countKinds(of records: [[UInt8]]) {
        for record in records { summary.recordKinds[recordDecoder.kind(of: record), default: 0] += 1 }
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
    mutating func feed(_ input: DaemonInput, what: @autoclosure () -> String) {
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

    mutating func send(_ message: ClientMessage, from address: PeerAddress) {
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
}
