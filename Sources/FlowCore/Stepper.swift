/// Something that emits steps: a view model, a service, a timer; RxFlow's `Stepper`.
///
/// A coordinator listens to a stepper once it is attached to a contributor (see ``FlowContributor``): it subscribes
/// to ``steps``, takes ``initialStep``, then calls ``readyToEmitSteps()``; steps emitted there, or synchronously while
/// the coordinator navigates, are handled in the same cascade, behind the initial step. ``Step/none`` is filtered out
/// wherever it comes from.
///
/// Steppers are `Sendable` reference types: a coordinator keeps them across isolation domains and emission may
/// happen from any thread (``StepRelay`` is thread-safe).
public protocol Stepper: AnyObject, Sendable {
    /// Where the stepper emits its steps.
    var steps: StepRelay { get }
    /// The step taken when the stepper is attached; ``Step/none`` (the default) for nothing.
    var initialStep: Step { get }
    /// Called once the coordinator listens to ``steps``; steps emitted from here on are not lost.
    func readyToEmitSteps()
}

extension Stepper {
    public var initialStep: Step { .none }
    public func readyToEmitSteps() {}

    /// A readable name for trees and logs: the description of a `CustomStringConvertible` stepper, else its type.
    public var stepperDescription: String {
        if let described = self as? any CustomStringConvertible { return described.description }
        return String(describing: type(of: self))
    }
}
