/// A navigation as RxFlow's `rx.willNavigate` / `rx.didNavigate` report it: which flow, which (adapted) step.
public struct NavigationEvent: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The coordinator whose flow navigated.
    public var coordinator: FlowCoordinatorID
    /// The flow's ``Flow/flowName``.
    public var flow: String
    /// The step given to `navigate(to:with:)`, after adaptation.
    public var step: Step

    /// `flow=WishlistFlow step=movieIsPicked(23452)`.
    public var description: String { "flow=\(flow) step=\(step)" }
}

/// A stepper attached to a contributor: the coordinator now listens to it.
public struct StepperAttachment: Sendable, CustomStringConvertible {
    /// Whether the stepper is a flow's own stepper or a contributor's.
    public enum Role: String, Sendable, Hashable, Codable {
        /// The stepper of a flow (given to `coordinate` or contributed with a child flow): not gated by visibility.
        case flow
        /// The stepper of a contributed screen: gated by that screen's visibility.
        case contributor
    }

    public let id: AttachmentID
    public let coordinator: FlowCoordinatorID
    /// The contributed presentable (for ``Role/flow``, the flow's root).
    public let presentable: PresentableID
    public let role: Role
    public let stepper: any Stepper
    public let allowStepWhenNotPresented: Bool
    public let allowStepWhenDismissed: Bool

    public var description: String {
        "\(id) \(stepper.stepperDescription) on \(presentable) (\(role.rawValue))"
    }
}

/// Why a stepper was detached.
public enum DetachReason: String, Sendable, Hashable, Codable {
    /// Its presentable was dismissed.
    case presentableDismissed
    /// Its flow's coordinator ended (`.end`, root dismissed, or an ancestor ended).
    case flowEnded
}

/// Why a coordinator ended.
public enum FlowEndReason: String, Sendable, Hashable, Codable {
    /// Its flow returned `.end(forwardToParentFlowWithStep:)`.
    case ended
    /// Its flow's root was dismissed.
    case rootDismissed
    /// An ancestor ended.
    case parentEnded
}

/// A step that did not reach `navigate(to:with:)`, with why: to count and log.
public struct StepDrop: Hashable, Sendable, Codable, CustomStringConvertible {
    public var step: Step
    public var reason: StepDropReason
    /// The coordinator the step was meant for, when known.
    public var coordinator: FlowCoordinatorID?
    /// The attachment it came from, when it came from a stepper.
    public var attachment: AttachmentID?

    public init(step: Step, reason: StepDropReason, coordinator: FlowCoordinatorID?, attachment: AttachmentID?) {
        self.step = step
        self.reason = reason
        self.coordinator = coordinator
        self.attachment = attachment
    }

    public var description: String {
        var text = "\(step) reason=\(reason)"
        if let coordinator { text += " \(coordinator)" }
        if let attachment { text += " \(attachment)" }
        return text
    }
}

/// An asynchronous adaptation to run; its result comes back as ``CoordinatorInput/adaptCompleted(_:_:)``.
public struct AdaptRequest: Sendable, CustomStringConvertible {
    public let id: AdaptRequestID
    public let coordinator: FlowCoordinatorID
    /// The step being adapted.
    public let step: Step
    public let operation: AdaptOperation

    public var description: String { "\(id) \(coordinator) \(step)" }
}

/// What ``FlowCoordinatorStateMachine`` asks its driver to do or report, in order.
public enum CoordinatorAction: Sendable, CustomStringConvertible {
    /// A flow is about to navigate (right before `navigate(to:with:)`).
    case willNavigate(NavigationEvent)
    /// A flow has navigated (right after `navigate(to:with:)`).
    case didNavigate(NavigationEvent)
    /// A UI command recorded by the flow of `coordinator`, to deliver to the presenter.
    case command(NavigationCommand, from: FlowCoordinatorID)
    /// A stepper is attached: the driver hears the steps it emits outside the machine's calls (subscribe to it; the
    /// machine has called its `readyToEmitSteps()` and taken what it emitted synchronously).
    case attach(StepperAttachment)
    /// Stop listening to a stepper.
    case detach(AttachmentID, reason: DetachReason)
    /// Run an asynchronous adaptation.
    case runAdapt(AdaptRequest)
    /// A coordinator started (the root, or a child for a contributed flow).
    case flowStarted(FlowCoordinatorID, flow: String, parent: FlowCoordinatorID?)
    /// A coordinator ended.
    case flowEnded(FlowCoordinatorID, reason: FlowEndReason)
    /// A flow became ready (``FlowReadiness/ready``).
    case flowReady(FlowCoordinatorID)
    /// A step was dropped.
    case stepDropped(StepDrop)

    public var description: String {
        switch self {
        case .willNavigate(let event): return "will navigate \(event)"
        case .didNavigate(let event): return "did navigate \(event)"
        case .command(let command, let coordinator): return "command \(command) (\(coordinator))"
        case .attach(let attachment): return "attach \(attachment)"
        case .detach(let id, let reason): return "detach \(id) (\(reason.rawValue))"
        case .runAdapt(let request): return "adapt \(request)"
        case .flowStarted(let id, let flow, let parent):
            return "start \(flow) \(id)" + (parent.map { " parent=\($0)" } ?? "")
        case .flowEnded(let id, let reason): return "end \(id) (\(reason.rawValue))"
        case .flowReady(let id): return "ready \(id)"
        case .stepDropped(let drop): return "drop \(drop)"
        }
    }
}
