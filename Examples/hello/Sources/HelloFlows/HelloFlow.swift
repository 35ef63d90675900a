public import FlowCore

/// The root flow: a navigation stack with the home screen, a greeting pushed onto it and About presented over it.
///
/// - `helloIsRequired`: shows the stack with the home screen.
/// - `greetingIsReady(message)`: pushes the greeting, whose `about` action asks for About.
/// - `aboutIsRequired`: presents a new ``AboutFlow`` modally.
/// - `aboutIsComplete`: dismisses it.
public final class HelloFlow: RestorableFlow {
    public let root = Screen.stack("hello")

    public init() {}

    /// Nothing to save: what the flow shows is in the session's UI, which flowd saves itself.
    public var state: NoState { NoState() }

    public func navigate(to step: Step, with navigator: Navigator) -> FlowContributors {
        switch step.name {
        case HelloStep.helloIsRequired.name:
            navigator.setRoot(root)
            navigator.setStack(root.id, [Screen.view("hello.home", type: "Home")])
            return .none
        case "greetingIsReady":
            let greeting = Screen.view("hello.greeting", type: "Greeting", data: step.payload)
            navigator.push(greeting, onto: root.id)
            let buttons = ActionStepper(["about": HelloStep.aboutIsRequired])
            return .one(flowContributor: .contribute(withNextPresentable: greeting, withNextStepper: buttons))
        case HelloStep.aboutIsRequired.name:
            let about = AboutFlow()
            Flows.use(about, when: .created, in: navigator) { [root] navigator in
                navigator.present(about.root, over: root.id)
            }
            return .one(
                flowContributor: .contribute(
                    withNextPresentable: about, withNextStepper: OneStepper(withSingleStep: HelloStep.aboutIsShown)
                )
            )
        case HelloStep.aboutIsComplete.name:
            navigator.dismiss(presentedOver: root.id)
            return .none
        default:
            return .none
        }
    }
}

@available(*, unavailable)
extension HelloFlow: Sendable {}
