import Foundation
import Synchronization

/// A journey played without faults: the state before the first operation and after each one, what answered each
/// operation, how many steps each stepper process emitted per action it received, and the watch's navigations.
/// Fault-injection runs are held against it.
struct JourneyReference: Sendable {
    /// `states[0]` before the first operation, `states[i + 1]` after operation `i`.
    var states: [JourneyState]
    /// Each operation's answer: the presenter's `ok …` line, or `flowctl step`'s output.
    var answers: [String]
    /// For each operation, by stepper process name (`login-service`, `movie-service`): the steps it emitted for
    /// each action it received.
    var emissionsPerAction: [[String: Int]]
    /// The watch's `did navigate` lines, in order.
    var navigations: [String]
    /// Steps the steppers' STEPs had acknowledged as accepted.
    var acknowledgedSteps: Int

    var finalState: JourneyState { states[states.count - 1] }
}

/// What a stepper process logged about actions and steps (its `action`, `emitted` and `step not emitted` lines).
enum StepperLog {
    static func actions(_ process: ManagedProcess, from: Int = 0) -> Int {
        process.stderr.lines.dropFirst(from).count { $0.hasSuffix(" action") }
    }

    /// Emissions that ended (accepted, dropped, or not emitted at all).
    static func outcomes(_ process: ManagedProcess, from: Int = 0) -> Int {
        process.stderr.lines.dropFirst(from).count { $0.hasSuffix(" emitted") || $0.hasSuffix(" step not emitted") }
    }

    /// Steps the daemon acknowledged as accepted.
    static func accepted(_ process: ManagedProcess, from: Int = 0) -> Int {
        process.stderr.lines.dropFirst(from).count { $0.hasSuffix(" emitted") && $0.contains("outcome=accepted") }
    }
}

/// The reference journey, played once per test process and shared by the fault-injection tests.
enum JourneyReferenceCache {
    private static let cached = Mutex<JourneyReference?>(nil)

    static func reference() async throws -> JourneyReference {
        if let reference = cached.withLock({ $0 }) { return reference }
        let reference = try await withCluster { cluster in
            let system = try await JourneySystem.start(in: cluster)
            return try await JourneyRecorder(system: system).record(MovieJourney.operations)
        }
        cached.withLock { $0 = reference }
        return reference
    }
}

/// Plays a journey without faults and records its ``JourneyReference``.
///
/// Not `Sendable`: used from one task.
final class JourneyRecorder {
    private let system: JourneySystem
    private let observer: JourneyObserver

    init(system: JourneySystem) {
        self.system = system
        observer = JourneyObserver(system: system)
    }

    func record(_ operations: [JourneyOperation]) async throws -> JourneyReference {
        var states = [try await settledState(after: nil)]
        var answers: [String] = []
        var emissions: [[String: Int]] = []
        for operation in operations {
            let steppers = system.steppers
            let marks = steppers.map { $0.stderr.count }
            let answer = try await perform(operation)
            let state = try await settledState(after: states.last!)
            guard state != states.last! else {
                throw HarnessError("'\(operation)' changed nothing visible: the journey cannot tell it was done")
            }
            var perAction: [String: Int] = [:]
            for (process, mark) in zip(steppers, marks) {
                let actions = StepperLog.actions(process, from: mark)
                let outcomes = StepperLog.outcomes(process, from: mark)
                guard actions > 0 else { continue }
                guard outcomes % actions == 0 else {
                    throw HarnessError(
                        "\(process.name) emitted \(outcomes) step(s) for \(actions) action(s) of '\(operation)'"
                    )
                }
                perAction[process.name] = outcomes / actions
            }
            states.append(state)
            answers.append(answer)
            emissions.append(perAction)
        }
        let navigations = system.watch.lines.filter { $0.hasPrefix("did navigate ") }
        return JourneyReference(
            states: states, answers: answers, emissionsPerAction: emissions, navigations: navigations,
            acknowledgedSteps: system.steppers.map { StepperLog.accepted($0) }.reduce(0, +)
        )
    }

    /// Carries the operation out and returns its answer.
    private func perform(_ operation: JourneyOperation) async throws -> String {
        switch operation.kind {
        case .presenter(let line):
            return try await system.presenter.run(line)
        case .deepLink(let arguments):
            return try await system.cluster.flowctlSucceeding(["step"] + arguments).output
        }
    }

    /// Waits until the system is at rest in a state other than `previous`: the presenter has applied every command,
    /// flowd every report the presenter printed, and the state read the same three times in a row, half a second
    /// apart at least (the services log no end of handling an input, so what a stepper may still emit is judged by
    /// time).
    private func settledState(after previous: JourneyState?) async throws -> JourneyState {
        let deadline = ContinuousClock.now + generousDeadline
        var candidate: JourneyState?
        var since = ContinuousClock.now
        var readings = 0
        while ContinuousClock.now < deadline {
            // Counted before the tree is read, so the tree shows every report counted.
            let reportsApplied = await everyReportApplied()
            let observation = await observer.observe()
            if reportsApplied, let state = observation.state, state != previous, observation.presenterCaughtUp {
                if state == candidate {
                    readings += 1
                    if readings >= 3 && ContinuousClock.now - since >= .milliseconds(500) { return state }
                } else {
                    candidate = state
                    since = ContinuousClock.now
                    readings = 1
                }
            } else {
                candidate = nil
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw HarnessError(
            "the journey did not settle after \(previous.map { "\($0)" } ?? "launch"); last candidate: "
                + (candidate.map { "\($0)" } ?? "none")
        )
    }

    /// Whether flowd applied every report the presenter printed, so the tree's visibility is not one that a `REPORT`
    /// still on its way would change. At least as many: the presenter may send a `REPORT` before it prints it. After
    /// a refused `REPORT` (whose entries flowd does not count) it cannot tell.
    private func everyReportApplied() async -> Bool {
        let presenter = system.presenter
        let printed = presenter.reportsPrinted
        if presenter.hadAReportRefused { return true }
        guard let applied = await observer.reportsApplied() else { return false }
        return applied >= printed
    }
}
