/// Something that happens to a coordinator tree from outside: the inputs of ``FlowCoordinatorStateMachine``.
public enum CoordinatorInput: Sendable, Hashable {
    /// A stepper attached as `attachment` emitted `step`.
    case stepperEmitted(AttachmentID, Step)
    /// The presentable became visible (`true`) or stopped being visible (`false`).
    case visibilityChanged(PresentableID, visible: Bool)
    /// The presentable was dismissed (popped, removed, dismissed modally); it will not be visible again.
    case dismissed(PresentableID)
    /// The presentables' host is gone (a presenter process died): they count as not visible, not dismissed.
    case presentablesLost([PresentableID])
    /// A pending asynchronous adaptation completed with a step, or failed (`nil`).
    case adaptCompleted(AdaptRequestID, Step?)
    /// A deep link: the step is offered to every flow of the tree, parent first (RxFlow's `navigate(to:)`).
    case deepLink(Step)
}

/// Why a step did not reach a flow's `navigate(to:with:)`. Encoded as its string.
public struct StepDropReason: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// The step was ``Step/none``.
    public static let noneStep = StepDropReason("noneStep")
    /// The contributor's presentable is not visible and `allowStepWhenNotPresented` is false.
    public static let notVisible = StepDropReason("notVisible")
    /// The attachment has ended (its presentable was dismissed, its flow ended) or never existed.
    public static let attachmentEnded = StepDropReason("attachmentEnded")
    /// The flow that should handle the step has ended.
    public static let flowEnded = StepDropReason("flowEnded")
    /// A forward to the parent flow (or an `.end`) on the root flow.
    public static let noParentFlow = StepDropReason("noParentFlow")
    /// The flow's asynchronous adaptation failed.
    public static let adaptFailed = StepDropReason("adaptFailed")
    /// The flow adapted the step to ``Step/none``.
    public static let adaptedToNone = StepDropReason("adaptedToNone")
    /// A deep link arrived before any flow was coordinated.
    public static let noRootFlow = StepDropReason("noRootFlow")
    /// An adaptation completion for a request that is not pending.
    public static let unknownAdaptRequest = StepDropReason("unknownAdaptRequest")
    /// A contributed child flow's root is the root of a flow still coordinated: the child is not started and its
    /// flow stepper's initial step is dropped (give each flow instance its own root ID).
    public static let rootInUse = StepDropReason("rootInUse")

    public var description: String { rawValue }
}
