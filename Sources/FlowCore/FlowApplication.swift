/// What an application gives the daemon: its flows.
///
/// An application's daemon is one line, `Flowd.main(MyApplication())` (FlowDaemon); the protocol lives here so that
/// the flows build and are tested without linking the daemon. `makeRoot(session:)` is called once per session, on
/// the daemon's I/O thread, and the flows it returns stay there.
public protocol FlowApplication: Sendable {
    /// The root flow of a new session, with its stepper.
    func makeRoot(session: String) -> FlowRoot

    /// The step names the application's flows understand, to refuse others with `unknownStep`; `nil` accepts any.
    var stepNames: Set<String>? { get }

    /// Why `step`'s payload is not one the application's flows take (the message of an `invalidPayload` refusal), or
    /// `nil` when it is; asked of steps ``stepNames`` accepts. `nil` by default: every payload goes to the flows.
    func payloadRefusal(for step: Step) -> String?

    /// Why a person's `action` on a screen of type `screenType` is not one the application's screens take, or `nil`
    /// when it is and goes to the screen's steppers. `nil` by default: every action is delivered.
    func actionRefusal(for action: Step, onScreenOfType screenType: String) -> ActionRefusal?

    /// What the application declares it speaks, for `DESCRIBE` (docs/PROTOCOL.md §7.2); empty by default.
    var vocabulary: ApplicationVocabulary { get }

    /// How a session's flows and steppers are made again from their saved state, or `nil` (the default) when they
    /// cannot be: the daemon then keeps such a session's history and replays it after a restart (docs/RELIABILITY.md,
    /// "State snapshots"). Called on the daemon's I/O thread, when a session is saved or restored.
    func restoration(session: String) -> FlowRestoration?

    /// The steps an operator may inject with `DEEPLINK`; `nil` (the default) accepts every step ``stepNames`` does.
    /// A flow file's are the steps it marks `deepLink: true`.
    var deepLinkSteps: Set<String>? { get }

    /// The chain of steps the deep link `uri` stands for (`DEEPLINK` with a URI, `flowctl open`).
    ///
    /// The daemon applies a step of the chain once a live flow that handles it is there and ready, and only a
    /// ``DeepLinkTargetFlow`` says it does: the flows that navigate these steps must conform, or every link waits
    /// `daemon.deep_link_wait_ms` and is refused (`deepLinkIncomplete`). A flow file's flows conform.
    ///
    /// - Throws: ``DeepLinkError`` when no deep link of the application matches `uri` (the default: it declares none).
    func deepLinkChain(uri: String) throws(DeepLinkError) -> DeepLinkChain
}

extension FlowApplication {
    public var stepNames: Set<String>? { nil }
    public func payloadRefusal(for step: Step) -> String? { nil }
    public func actionRefusal(for action: Step, onScreenOfType screenType: String) -> ActionRefusal? { nil }
    public var vocabulary: ApplicationVocabulary { ApplicationVocabulary() }
    public func restoration(session: String) -> FlowRestoration? { nil }
    public var deepLinkSteps: Set<String>? { nil }
    public func deepLinkChain(uri: String) throws(DeepLinkError) -> DeepLinkChain {
        throw DeepLinkError("no deep link matches '\(uri)': the application declares no URI deep links")
    }
}

/// A session's root flow and what to coordinate it with.
///
/// Not `Sendable`: it holds a flow, made and used on the daemon's I/O thread.
public struct FlowRoot {
    public var flow: any Flow
    public var stepper: any Stepper
    public var allowStepWhenDismissed: Bool

    public init(flow: any Flow, stepper: any Stepper = DefaultStepper(), allowStepWhenDismissed: Bool = false) {
        self.flow = flow
        self.stepper = stepper
        self.allowStepWhenDismissed = allowStepWhenDismissed
    }
}

@available(*, unavailable)
extension FlowRoot: Sendable {}
