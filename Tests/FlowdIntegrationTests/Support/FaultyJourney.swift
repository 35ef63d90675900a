import Foundation
import TestFlows

/// What a fault-injection run counted.
struct FaultRunReport: Sendable, CustomStringConvertible {
    var plan: FaultPlan
    var operations = 0
    /// SIGKILLs (each followed by a restart), by process.
    var restarts: [Fault: Int] = [:]
    /// STEPs the daemon acknowledged as accepted, over every stepper process of the run.
    var acknowledgedSteps = 0
    /// Deep links the daemon acknowledged (its `OK` counts the navigations).
    var acknowledgedOperations = 0
    /// User actions delivered to a stepper inside the daemon (`OK` to `USER_ACTION`) whose step was lost with a
    /// crash: allowed by the protocol (the `OK` says delivered, not handled), counted to see how often it happens.
    var deliveredThenLost: [String] = []
    /// Operations issued again because their effect was definitely absent once the system had converged.
    var reissued = 0
    /// Acknowledged operations whose effect was absent after a restart.
    var losses: [String] = []
    /// STEPs sent again after a restart that the daemon recognised as carried out already (its `steps_duplicate`
    /// counter, read before each restart and at the end).
    var stepsDeduplicated = 0
    /// Navigations the watch printed more often than in the reference run, and commands a presenter applied twice.
    var duplicates: [String] = []
    /// `did navigate` lines the watch printed, and how many the reference run's watch printed (it may miss some
    /// around a crash, and an operation issued again after its effect was lost navigates again).
    var watchedNavigations = (seen: 0, reference: 0)
    /// For each flowd restart: from the SIGKILL to the new flowd's `flowd ready` (recovery included).
    var flowdRestarts: [Duration] = []
    /// After each restart: from the process ready again to the presenter and the daemon at the same state.
    var convergence: [Duration] = []
    /// How long one look at the system took (two `flowctl` runs and the presenter's screens): the granularity of
    /// the times to converge.
    var polls: [Duration] = []
    var elapsed: Duration = .zero

    private static func milliseconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
    }

    /// The median and the largest of `durations`, in milliseconds.
    private static func medianAndMax(_ durations: [Duration]) -> (p50: Int, max: Int) {
        let sorted = durations.map(milliseconds).sorted()
        guard !sorted.isEmpty else { return (0, 0) }
        return (sorted[(sorted.count - 1) / 2], sorted[sorted.count - 1])
    }

    /// One line for docs/RELIABILITY.md.
    var description: String {
        let restartCounts = Fault.allCases.compactMap { fault in restarts[fault].map { "\(fault)=\($0)" } }
        let (p50, max) = Self.medianAndMax(convergence)
        let restart = Self.medianAndMax(flowdRestarts)
        let faults = plan.faults.map(\.rawValue).joined(separator: "+")
        return "fault-injection [\(faults)] seed=\(FaultSeed.hex(plan.seed)) operations=\(operations)"
            + " restarts=\(restarts.values.reduce(0, +)) (\(restartCounts.joined(separator: " ")))"
            + " steps-acknowledged=\(acknowledgedSteps) deep-links-acknowledged=\(acknowledgedOperations)"
            + " reissued=\(reissued) losses=\(losses.count) duplicates=\(duplicates.count)"
            + " delivered-then-lost=\(deliveredThenLost.count) steps-deduplicated=\(stepsDeduplicated)"
            + " watch-navigations=\(watchedNavigations.seen)/\(watchedNavigations.reference)"
            + (flowdRestarts.isEmpty ? "" : " flowd-restart-ms p50=\(restart.p50) max=\(restart.max)")
            + " converge-ms p50=\(p50) max=\(max) poll-ms p50=\(Self.medianAndMax(polls).p50)"
            + " elapsed-s=\(Self.milliseconds(elapsed) / 1000)"
    }
}

/// Plays a journey while killing processes (SIGKILL) and starting them again, and holds each step against the
/// reference run: an operation is done when the system reaches the reference's state after it; it is issued again
/// only when, after a fault, the system has converged back to the state before it and nothing that could still
/// carry it out is pending (the presenter answered, every stepper finished the steps of the actions it got). An
/// operation the daemon had acknowledged and that is absent then is a loss.
///
/// Not `Sendable`: one test drives it from one task.
final class FaultyJourney {
    private let system: JourneySystem
    private let reference: JourneyReference
    private let observer: JourneyObserver
    private var random: FaultRandom
    private(set) var report: FaultRunReport
    /// What the run did, for failure messages.
    private(set) var trail: [String] = []
    private var faultsInjected = 0
    /// The last `steps_duplicate` read from each flowd (by pid).
    private var stepsDeduplicatedByDaemon: [Int32: Int] = [:]
    private let start = ContinuousClock.now

    init(system: JourneySystem, reference: JourneyReference, plan: FaultPlan) {
        self.system = system
        self.reference = reference
        observer = JourneyObserver(system: system)
        random = FaultRandom(seed: plan.seed)
        report = FaultRunReport(plan: plan)
    }

    private var plan: FaultPlan { report.plan }

    /// A failure with the plan (the seed) and the run's trail.
    private func failure(_ message: String) -> HarnessError {
        HarnessError("\(message)\n\(plan)\ntrail:\n" + trail.suffix(60).map { "  \($0)" }.joined(separator: "\n"))
    }

    // MARK: - The run

    func run(_ operations: [JourneyOperation]) async throws -> FaultRunReport {
        guard operations.count + 1 == reference.states.count else {
            throw failure("the reference is of another journey")
        }
        for (index, operation) in operations.enumerated() {
            try await perform(operation, index: index)
            report.operations += 1
            if faultsInjected < plan.maxFaults, random.perMille(plan.betweenPerMille) {
                try await inject(random.pick(plan.faults), candidates: [reference.states[index + 1]])
            }
        }
        try await checkEnd()
        report.elapsed = ContinuousClock.now - start
        return report
    }

    /// Issues the operation (again, while its effect is absent) until the system reaches the state after it.
    private func perform(_ operation: JourneyOperation, index: Int) async throws {
        let before = reference.states[index]
        let after = reference.states[index + 1]
        for attempt in 1...5 {
            try await waitUntilReady(at: before, for: operation)
            let issued = try issue(operation, index: index)
            trail.append("#\(index) '\(operation)' issued (attempt \(attempt))")
            if faultsInjected < plan.maxFaults, random.perMille(plan.duringPerMille) {
                // Two faults in three come within the first 5 or 30 ms, while the operation is most likely in flight.
                let delay = random.below(random.pick([6, 31, plan.maxDelayMs + 1]))
                let fault = random.pick(plan.faults)
                try await Task.sleep(for: .milliseconds(delay))
                trail.append("#\(index) \(fault) killed \(delay) ms after the issue")
                try await inject(fault, candidates: [before, after])
            }
            switch try await resolve(issued, before: before, after: after) {
            case .done:
                trail.append("#\(index) done")
                if issued.operation.acknowledgedByDaemon { report.acknowledgedOperations += 1 }
                return
            case .absent(let acknowledged):
                trail.append("#\(index) absent after converging (acknowledged: \(acknowledged)): issued again")
                if acknowledged {
                    report.losses.append("#\(index) '\(operation)' (attempt \(attempt)) was acknowledged, then lost")
                } else if operation.handledInDaemon, let answer = answer(issued), answer.hasPrefix("ok ") {
                    report.deliveredThenLost.append("#\(index) '\(operation)' (attempt \(attempt)): \(answer)")
                }
                report.reissued += 1
            }
        }
        throw failure("#\(index) '\(operation)' never took effect in 5 attempts")
    }

    // MARK: - Operations

    /// An operation issued: where its answer and the steppers' work on it will appear.
    private struct Issued {
        let operation: JourneyOperation
        let index: Int
        /// The presenter given the line, and its output's length then.
        let presenter: Presenter?
        let presenterFrom: Int
        /// The `flowctl step` of a deep link.
        let flowctl: ManagedProcess?
        /// Each stepper process's standard error length at the issue (by pid; a process started later has none).
        let marks: [Int32: Int]
        /// Faults injected before the issue.
        let faultsBefore: Int
    }

    private enum Resolution {
        case done
        case absent(acknowledged: Bool)
    }

    private func issue(_ operation: JourneyOperation, index: Int) throws -> Issued {
        var marks: [Int32: Int] = [:]
        for process in allSteppers { marks[process.pid] = process.stderr.count }
        switch operation.kind {
        case .presenter(let line):
            let presenter = system.presenter
            let from = presenter.process.stdout.count
            try presenter.process.send(line)
            return Issued(
                operation: operation, index: index, presenter: presenter, presenterFrom: from, flowctl: nil,
                marks: marks, faultsBefore: faultsInjected
            )
        case .deepLink(let arguments):
            let flowctl = try system.cluster.launch("flowctl", ["step", "--timeout", "3"] + arguments)
            return Issued(
                operation: operation, index: index, presenter: nil, presenterFrom: 0, flowctl: flowctl, marks: marks,
                faultsBefore: faultsInjected
            )
        }
    }

    /// The presenter's answer, or flowctl's output once it ended (`nil` while pending; `""` when the process died
    /// without one).
    private func answer(_ issued: Issued) -> String? {
        if let presenter = issued.presenter, case .presenter(let line) = issued.operation.kind {
            if let answer = presenter.answer(to: line, from: issued.presenterFrom) { return answer }
            return presenter.process.exit == nil ? nil : ""
        }
        if let flowctl = issued.flowctl, let exit = flowctl.exit {
            return exit == .exited(0) ? flowctl.stdout.lines.joined(separator: "\n") : ""
        }
        return nil
    }

    /// Whether the answer differs from the reference's (an error, fewer steppers reached, no answer at all).
    private func degraded(_ issued: Issued) -> Bool {
        guard let answer = answer(issued) else { return false }
        return answer != reference.answers[issued.index]
    }

    /// Nothing that could still carry the operation out is pending: it was answered, and every live stepper
    /// process finished the steps of every action it received since.
    private func settled(_ issued: Issued) -> Bool {
        guard answer(issued) != nil else { return false }
        let perAction = reference.emissionsPerAction[issued.index]
        for process in system.steppers {
            let from = issued.marks[process.pid] ?? 0
            let steps = perAction[Self.baseName(process.name)] ?? 0
            let pending = StepperLog.actions(process, from: from) * steps - StepperLog.outcomes(process, from: from)
            if pending > 0 { return false }
        }
        return true
    }

    /// Whether the daemon acknowledged the operation: it answered an operation it handles itself, or a stepper had
    /// a step of it accepted.
    private func acknowledged(_ issued: Issued) -> Bool {
        if issued.operation.acknowledgedByDaemon {
            guard let answer = answer(issued), !answer.isEmpty else { return false }
            return !answer.hasPrefix("error ")
        }
        guard issued.operation.isUserAction else { return false }
        return allSteppers.contains { StepperLog.accepted($0, from: issued.marks[$0.pid] ?? 0) > 0 }
    }

    /// Every stepper process of the run, dead or alive.
    private var allSteppers: [ManagedProcess] { [system.login] + system.movieServices }

    /// `movie-service#2` → `movie-service`.
    private static func baseName(_ name: String) -> String {
        String(name.prefix { $0 != "#" })
    }

    /// Waits until the operation took effect (the state after it), or, when a fault hit it or its answer was not
    /// the reference's, until it is definitely absent: the state before it, the presenter caught up, everything
    /// settled, for three readings over a second.
    private func resolve(_ issued: Issued, before: JourneyState, after: JourneyState) async throws -> Resolution {
        let deadline = ContinuousClock.now + .seconds(60)
        var restingSince: ContinuousClock.Instant?
        var readings = 0
        var last = JourneyObservation()
        while ContinuousClock.now < deadline {
            last = await observer.observe()
            if last.state == after && last.presenterCaughtUp { return .done }
            let mayBeAbsent = faultsInjected > issued.faultsBefore || degraded(issued)
            if mayBeAbsent, last.state == before, last.presenterCaughtUp, settled(issued) {
                if restingSince == nil {
                    restingSince = ContinuousClock.now
                    readings = 0
                }
                readings += 1
                if readings >= 3, ContinuousClock.now - restingSince! >= .seconds(1) {
                    return .absent(acknowledged: acknowledged(issued))
                }
            } else {
                restingSince = nil
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw failure(
            "#\(issued.index) '\(issued.operation)' neither took effect nor was definitely absent within 60 s"
                + " (answer: \(answer(issued) ?? "none"))\n"
                + describe(last, expecting: ["before": before, "after": after])
        )
    }

    // MARK: - Readiness and convergence

    /// Waits until the system is at `state` with every process connected (two steppers, the presenter) and the
    /// presenter caught up: an operation issued then can only fail because of a fault.
    private func waitUntilReady(at state: JourneyState, for operation: JourneyOperation) async throws {
        let deadline = ContinuousClock.now + generousDeadline
        var last = JourneyObservation()
        while ContinuousClock.now < deadline {
            last = await observer.observe()
            if last.state == state, last.presenterCaughtUp, await connected() { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw failure(
            "the system never came back to the state before '\(operation)'\n"
                + describe(last, expecting: ["before": state])
        )
    }

    /// Whether flowd counts both stepper processes and the presenter connected.
    private func connected() async -> Bool {
        let daemon = system.daemon.process.pid
        guard let health = await observer.health() else { return false }
        stepsDeduplicatedByDaemon[daemon] = max(stepsDeduplicatedByDaemon[daemon] ?? 0, health.stepsDuplicate)
        return health.peers["stepper"] == 2 && health.peers["presenter"] == 1
    }

    /// Kills one process, starts it again, and waits until the system has converged to one of `candidates` (the
    /// states before and after the operation in progress); records the time that took.
    private func inject(_ fault: Fault, candidates: [JourneyState]) async throws {
        faultsInjected += 1
        report.restarts[fault, default: 0] += 1
        switch fault {
        case .flowd:
            let killed = ContinuousClock.now
            try await system.killAndRestartFlowd()
            report.flowdRestarts.append(ContinuousClock.now - killed)
        case .presenter: try await system.killAndRestartPresenter()
        case .movieService: try await system.killAndRestartMovieService()
        }
        let ready = ContinuousClock.now
        let deadline = ready + .seconds(60)
        var last = JourneyObservation()
        while ContinuousClock.now < deadline {
            let polled = ContinuousClock.now
            last = await observer.observe()
            let seen = ContinuousClock.now
            report.polls.append(seen - polled)
            if let state = last.state, candidates.contains(state), last.presenterCaughtUp, await connected() {
                report.convergence.append(seen - ready)
                trail.append("\(fault) restarted; converged in \(seen - ready)")
                return
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        var expected: [String: JourneyState] = [:]
        for (number, state) in candidates.enumerated() { expected["candidate \(number + 1)"] = state }
        throw failure(
            "after restarting \(fault), the system did not converge within 60 s\n" + describe(last, expecting: expected)
        )
    }

    private func describe(_ observation: JourneyObservation, expecting expected: [String: JourneyState]) -> String {
        var text = "observed: daemon seq \(observation.seq.map(String.init) ?? "?"), presenter seq "
            + "\(observation.presenterSeq.map(String.init) ?? "?")\ntree:\n\(observation.tree ?? "?")\nscreens:\n"
            + (observation.screens?.joined(separator: "\n") ?? "?")
        for (name, state) in expected.sorted(by: { $0.key < $1.key }) { text += "\n\(name): \(state)" }
        return text
    }

    // MARK: - The end

    /// Counts what the watch and the presenters saw, and the steps acknowledged.
    private func checkEnd() async throws {
        // Navigations: the watch may miss some around a crash, never print one more often than the reference.
        var expected: [String: Int] = [:]
        for line in reference.navigations { expected[line, default: 0] += 1 }
        var seen: [String: Int] = [:]
        for line in system.watch.lines where line.hasPrefix("did navigate ") { seen[line, default: 0] += 1 }
        report.watchedNavigations = (seen.values.reduce(0, +), reference.navigations.count)
        for (line, count) in seen.sorted(by: { $0.key < $1.key }) where count > expected[line, default: 0] {
            report.duplicates.append(
                "the watch printed '\(line)' \(count) times, the reference run \(expected[line, default: 0])"
            )
        }
        // Presenters: every command applied once (each incarnation's sequence numbers strictly increase).
        for presenter in system.presenters where !isStrictlyIncreasing(presenter.commandSeqs) {
            report.duplicates.append("\(presenter.process.name) applied commands \(presenter.commandSeqs)")
        }
        _ = await connected()
        report.stepsDeduplicated = stepsDeduplicatedByDaemon.values.reduce(0, +)
        report.acknowledgedSteps = allSteppers.map { StepperLog.accepted($0) }.reduce(0, +)
        if system.watch.process.exit != nil {
            throw failure("flowctl watch ended during the run\n\(system.watch.process.diagnostics)")
        }
    }
}
