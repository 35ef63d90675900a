public import FlowWire
public import Logging

/// A ``StepperLogic`` whose decisions do not wait: its `handle` and `adapt` are synchronous. ``StepperService`` runs
/// it as any logic; FlowdTesting's `EmbeddedDaemon.connectStepper(name:running:)` also runs it in-process, each input
/// handled before the daemon goes on, so a test of the logic under the application's flows is deterministic.
///
/// A type conforms by writing `handle` (and, if it answers `ADAPT`, `adapt`) without `async`: the one method is both
/// this protocol's and ``StepperLogic``'s.
public protocol SynchronousStepperLogic: StepperLogic {
    /// The steps to emit for `input`, in order, as ``StepperLogic/handle(_:now:logger:)`` without waiting.
    mutating func handle(_ input: StepperInput, now: ContinuousClock.Instant, logger: Logger) throws -> [StepEmission]
    /// The answer to an `ADAPT`, as ``StepperLogic/adapt(_:now:logger:)`` without waiting.
    mutating func adapt(_ question: AdaptMessage, now: ContinuousClock.Instant, logger: Logger) throws -> AdaptAnswer
}
