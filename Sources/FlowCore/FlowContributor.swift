/// One thing a navigation hands back to the coordinator: RxFlow's `FlowContributor`.
public enum FlowContributor {
    /// Listen to `stepper` for steps about `presentable`.
    ///
    /// When `presentable` is a ``Flow``, a child coordinator is started with `stepper` as its flow stepper (and
    /// `allowStepWhenNotPresented` does not apply). Otherwise, the stepper's steps are dropped while the presentable is
    /// not visible unless `allowStepWhenNotPresented`, and its stepper is detached when the presentable is dismissed
    /// unless `allowStepWhenDismissed`.
    case contribute(
        withNextPresentable: any Presentable,
        withNextStepper: any Stepper,
        allowStepWhenNotPresented: Bool = false,
        allowStepWhenDismissed: Bool = false
    )
    /// Handle `step` in the current flow, after the current navigation and its contributors' initial steps.
    case forwardToCurrentFlow(withStep: Step)
    /// Hand `step` to the parent flow; dropped on the root flow.
    case forwardToParentFlow(withStep: Step)

    /// The same object as presentable and stepper: RxFlow's `.contribute(withNext:)`.
    public static func contribute(withNext presentableAndStepper: any Presentable & Stepper) -> FlowContributor {
        .contribute(withNextPresentable: presentableAndStepper, withNextStepper: presentableAndStepper)
    }
}

/// What a navigation returns: RxFlow's `FlowContributors`.
public enum FlowContributors {
    /// Several contributors, handled in array order.
    case multiple(flowContributors: [FlowContributor])
    /// A single contributor.
    case one(flowContributor: FlowContributor)
    /// End this flow: its coordinator and subtree are removed and `step` goes to the parent flow, which does the UI
    /// work (dismissing the flow's root). On the root flow, the step is dropped and the children are removed.
    case end(forwardToParentFlowWithStep: Step)
    /// Nothing to listen to.
    case none

    /// Several contributors, handled in array order.
    public static func multiple(_ flowContributors: FlowContributor...) -> FlowContributors {
        .multiple(flowContributors: flowContributors)
    }
}

// `FlowContributor(s)` hold a `Presentable` (a flow: a non-Sendable class) and are consumed in the coordinator's
// isolation right after `navigate(to:with:)` returns; they are deliberately not `Sendable`.
@available(*, unavailable)
extension FlowContributor: Sendable {}

@available(*, unavailable)
extension FlowContributors: Sendable {}
