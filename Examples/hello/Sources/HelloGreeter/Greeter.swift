public import FlowClient
import HelloFlows
public import Logging

/// The greeter's decisions, without I/O (hello-service runs it): an attachment in, a greeting out.
///
/// `Sendable`: a value.
public struct Greeter: SynchronousStepperLogic {
    /// What it greets with: `Hello` gives `Hello, default!` in the session `default`.
    public var greeting: String

    public init(greeting: String = "Hello") { self.greeting = greeting }

    public var kinds: [String] { [HelloStep.greeterKind] }

    public mutating func handle(_ input: StepperInput, now: ContinuousClock.Instant, logger: Logger)
        -> [StepEmission]
    {
        // A resumed attachment (the daemon or this service restarted) has had its greeting already.
        guard case .event(.attached(let attachment)) = input, !attachment.resumed else { return [] }
        return [StepEmission(HelloStep.greetingIsReady("\(greeting), \(attachment.session)!"), for: attachment.id)]
    }
}
