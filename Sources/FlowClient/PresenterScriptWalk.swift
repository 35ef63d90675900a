public import FlowCore

/// The decisions of a scripted presenter, apart from its I/O: which script step is due in the UI now, when the script
/// is finished or out of time, and which visible line to print. ``ScriptedPresenter`` feeds it every change of a
/// ``PresenterClient``; a test feeds it a fake presenter's model and a clock it moves.
///
/// Steps are taken in order: each one once it is due (``PresenterScript/Step/isDue(in:)``), checked against the
/// model of the change at hand and then against every later change. A script without steps never finishes and has
/// no deadline (the presenter hosts the session until it is stopped).
public struct PresenterScriptWalk: Sendable {
    /// What to do now.
    public enum Next: Sendable, Hashable {
        /// Carry out this step (counted as taken): then ask again.
        case perform(PresenterScript.Step)
        /// Nothing is due: wait for the next change (or the deadline).
        case waiting
        /// Every step was taken.
        case finished
        /// The deadline passed before every step was taken.
        case timedOut
    }

    /// The script walked.
    public let script: PresenterScript
    /// How many steps were taken.
    public private(set) var taken = 0
    /// When the steps must all be taken (`nil`: never, for a script without steps or without a timeout).
    public let deadline: ContinuousClock.Instant?
    private var lastLine: String?

    /// A walk of `script` starting `now`, which must be done within `timeout` (`nil`: no deadline).
    public init(_ script: PresenterScript, timeout: Duration?, startingAt now: ContinuousClock.Instant) {
        self.script = script
        deadline = script.steps.isEmpty ? nil : timeout.map { now + $0 }
    }

    /// Whether every step was taken (never, for a script without steps).
    public var isFinished: Bool { !script.steps.isEmpty && taken == script.steps.count }

    /// What to do in `model` at `now`: the next step if it is due, else wait, finish or give up. A finished walk
    /// stays finished past its deadline.
    public mutating func next(in model: PresentationModel, at now: ContinuousClock.Instant) -> Next {
        if isFinished { return .finished }
        if let deadline, now >= deadline { return .timedOut }
        guard taken < script.steps.count, script.steps[taken].isDue(in: model) else { return .waiting }
        taken += 1
        return .perform(script.steps[taken - 1])
    }

    /// `visible: …` (``FlowCore/PresentationModel/visibleLine``) when what `model` shows differs from the last line
    /// returned, else `nil`.
    public mutating func visibleLine(for model: PresentationModel) -> String? {
        let line = "visible: \(model.visibleLine)"
        guard line != lastLine else { return nil }
        lastLine = line
        return line
    }
}
