/// An area of navigation: RxFlow's `Flow`.
///
/// A flow has a ``root`` (the container it shows its screens in), may ``adapt(step:)`` a step before it is handled,
/// and decides in ``navigate(to:with:)`` what a step means: it records UI side effects on the ``Navigator`` and
/// returns what the coordinator should listen to next.
///
/// Flows are classes owned by one coordinator and called from its isolation only, so they need not be `Sendable`;
/// a flow must be deterministic (same steps in the same order, same results) for a journal replay to rebuild it.
public protocol Flow: AnyObject, Presentable {
    /// The container the flow shows itself in; it must always be the same.
    var root: Screen { get }

    /// A name for logs and trees; the type's name by default.
    var flowName: String { get }

    /// Turns a step into the step to navigate to, now or later; the step itself by default.
    ///
    /// Runs for every step the flow receives: from steppers, forwards and deep links. ``Step/none`` as the result
    /// drops the step.
    func adapt(step: Step) -> Adaptation

    /// Handles a step: records UI commands on `navigator` and returns the next contributors.
    func navigate(to step: Step, with navigator: Navigator) -> FlowContributors
}

extension Flow {
    public var presentableID: PresentableID { root.id }
    public var flowName: String { FlowNames.name(of: type(of: self)) }
    public func adapt(step: Step) -> Adaptation { .step(step) }
}

/// The result of ``Flow/adapt(step:)``: a step right away, or an operation that yields one later.
///
/// Async adaptation mirrors RxFlow's `Single<Step>`: while it runs the coordinator keeps handling other steps, and
/// the adapted step is navigated when the operation completes (completion order, as RxFlow's `flatMap`).
public enum Adaptation: Sendable {
    /// Navigate to this step now; ``Step/none`` drops it.
    case step(Step)
    /// Navigate to what `operation` returns once it completes; a thrown error drops the step.
    case later(AdaptOperation)

    /// Adapt asynchronously with `operation`.
    public static func later(_ operation: @escaping @Sendable () async throws -> Step) -> Adaptation {
        .later(AdaptOperation(operation))
    }

    /// Adapt asynchronously by asking a stepper process serving `kind` (flowd's `ADAPT`, `docs/PROTOCOL.md` §5.6).
    public static func asked(of kind: String) -> Adaptation {
        .later(AdaptOperation(askedOf: kind))
    }
}

/// An asynchronous adaptation, run by the coordinator's driver outside the state machine: code, or a question to a
/// remote stepper kind.
public struct AdaptOperation: Sendable {
    /// The work to run.
    public let run: @Sendable () async throws -> Step
    /// The stepper kind the adaptation is asked of, when it is a question rather than code: a driver that can ask
    /// (flowd) sends `ADAPT` to a process serving the kind instead of calling ``run``.
    public let stepperKind: String?

    public init(_ run: @escaping @Sendable () async throws -> Step) {
        self.run = run
        stepperKind = nil
    }

    /// A question to a process serving `kind`; ``run`` throws ``RemoteAdaptationError`` (a driver without stepper
    /// processes, such as ``FlowCoordinator``, cannot ask, and the step is dropped as `adaptFailed`).
    public init(askedOf kind: String) {
        run = { throw RemoteAdaptationError(stepperKind: kind) }
        stepperKind = kind
    }
}

/// An adaptation asked of a stepper kind was run by a driver that has no stepper processes to ask.
public struct RemoteAdaptationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind it was to be asked of.
    public let stepperKind: String

    public var description: String { "no stepper process to ask '\(stepperKind)' for an adaptation here" }
}
