/// A stepper that reacts to what a person does on its screen, as a view model reacts to taps.
///
/// A presenter reports a person's action on a screen (`USER_ACTION` on the wire); the coordinator's driver hands it
/// to every stepper attached to that screen that handles actions, and the stepper decides which step, if any,
/// follows. The step then goes through the visibility gate like any other.
public protocol ActionHandlingStepper: Stepper {
    /// A person did `action` on the screen this stepper is attached to.
    func handle(action: Step)
}

/// A stepper for plain buttons: each action name maps to a step (`"done"` → `settingsAreComplete`).
///
/// An action's payload is carried over to the step when the mapped step has none. Unknown actions are ignored.
public final class ActionStepper: ActionHandlingStepper, CustomStringConvertible {
    public let steps = StepRelay()
    public let initialStep: Step
    /// The step each action name leads to.
    public let actions: [String: Step]

    /// A stepper emitting `actions[name]` for the action `name`.
    public init(_ actions: [String: Step], initialStep: Step = .none) {
        self.actions = actions
        self.initialStep = initialStep
    }

    public func handle(action: Step) {
        guard var step = actions[action.name] else { return }
        if step.payload == .null { step.payload = action.payload }
        steps.accept(step)
    }

    public var description: String { "ActionStepper(\(actions.keys.sorted().joined(separator: ",")))" }
}
