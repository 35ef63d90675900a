public import FlowCore

/// A modal flow: its own stack with the About text, whose `close` action ends the flow.
///
/// - `aboutIsShown`: pushes the text, whose `close` action is `aboutIsComplete`.
/// - `aboutIsComplete`: ends the flow and hands `aboutIsComplete` to its parent, which dismisses it.
public final class AboutFlow: RestorableFlow {
    public let root = Screen.stack("about")

    public init() {}

    public var state: NoState { NoState() }

    public func navigate(to step: Step, with navigator: Navigator) -> FlowContributors {
        switch step.name {
        case HelloStep.aboutIsShown.name:
            let text = Screen.view("about.text", type: "About", data: .string("Hello runs under its own flowd."))
            navigator.push(text, onto: root.id)
            let buttons = ActionStepper(["close": HelloStep.aboutIsComplete])
            return .one(flowContributor: .contribute(withNextPresentable: text, withNextStepper: buttons))
        case HelloStep.aboutIsComplete.name:
            return .end(forwardToParentFlowWithStep: HelloStep.aboutIsComplete)
        default:
            return .none
        }
    }
}

@available(*, unavailable)
extension AboutFlow: Sendable {}
