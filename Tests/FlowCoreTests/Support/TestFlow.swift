import FlowCore

/// A flow for tests whose adaptation and navigation are closures, and that records every step it navigates to.
///
/// Not `Sendable` (a ``Flow`` never is). When the flow is handed to a ``FlowCoordinator`` (a `sending` parameter),
/// read what it did through the coordinator's actions or through a `Sendable` recorder captured by the closures,
/// never through ``navigatedSteps``.
final class TestFlow: Flow {
    let root: Screen
    let flowName: String
    /// The steps given to `navigate(to:with:)`, in order.
    private(set) var navigatedSteps: [Step] = []
    private let adaptation: (Step) -> Adaptation
    private let navigation: (Step, Navigator) -> FlowContributors

    /// Makes a flow named `name` whose root is `root` (by default a navigation stack `"<name>.root"`), that adapts
    /// with `adapt` (the step itself by default) and navigates with `navigate` (usually a trailing closure).
    init(
        _ name: String,
        root: Screen? = nil,
        adapt: @escaping (Step) -> Adaptation = { .step($0) },
        navigate: @escaping (Step, Navigator) -> FlowContributors
    ) {
        self.flowName = name
        self.root = root ?? .stack(PresentableID("\(name).root"))
        self.adaptation = adapt
        self.navigation = navigate
    }

    /// Makes a flow that navigates to every step without contributing anything (`.none`).
    convenience init(_ name: String, root: Screen? = nil) {
        self.init(name, root: root) { _, _ in .none }
    }

    func adapt(step: Step) -> Adaptation { adaptation(step) }

    func navigate(to step: Step, with navigator: Navigator) -> FlowContributors {
        navigatedSteps.append(step)
        return navigation(step, navigator)
    }
}
