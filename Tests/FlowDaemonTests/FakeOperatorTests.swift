import FlowCore
import FlowWire
import FlowdTesting
import Testing

/// A root stack: `start` shows `home`, `pick(n)` pushes `item.n`; as a deep link's target (`targets`), it says so.
private final class CatalogFlow: DeepLinkTargetFlow {
    let root = Screen.stack("catalog")
    let targets: Bool

    init(targets: Bool) { self.targets = targets }

    func screens(showing step: Step) -> [PresentableID]? {
        guard targets, step.name == "pick", case .int(let id) = step.payload else { return nil }
        return [PresentableID("item.\(id)")]
    }

    func navigate(to step: Step, with navigator: Navigator) -> FlowContributors {
        switch (step.name, step.payload) {
        case ("start", _):
            navigator.setRoot(root)
            navigator.setStack(root.id, [Screen.view("home", type: "Home")])
        case ("pick", .int(let id)):
            navigator.push(Screen.view(PresentableID("item.\(id)"), type: "Item"), onto: root.id)
        default:
            break
        }
        return .none
    }
}

/// `pick` is the only step an operator may inject; `t://item/N` stands for `pick(N)`.
private struct CatalogApplication: FlowApplication {
    var targets = true

    func makeRoot(session: String) -> FlowRoot {
        FlowRoot(flow: CatalogFlow(targets: targets), stepper: OneStepper(withSingleStep: Step("start")))
    }

    var deepLinkSteps: Set<String>? { ["pick"] }

    func deepLinkChain(uri: String) throws(DeepLinkError) -> DeepLinkChain {
        guard uri.hasPrefix("t://item/"), let id = Int(uri.dropFirst("t://item/".count)) else {
            throw DeepLinkError("no deep link matches '\(uri)'")
        }
        return DeepLinkChain(uri: uri, pattern: "t://item/{id:int}", steps: [Step("pick", payload: .int(id))])
    }
}

/// FlowdTesting's `connectOperator()`: deep links by step and by URI, as flowctl sends them.
struct FakeOperatorTests {
    @Test func aDeepLinkByStepOrByURIIsAppliedAndItsReplySaysSo() {
        let daemon = EmbeddedDaemon(application: CatalogApplication())
        let presenter = daemon.connectPresenter()
        let flowctl = daemon.connectOperator()

        guard case .applied(let byStep) = flowctl.deepLink(Step("pick", payload: .int(3))) else {
            Issue.record("no OK: \(flowctl.record.messages)")
            return
        }
        #expect(byStep.navigations == 1)
        #expect(presenter.presentation.children(of: "catalog") == ["home", "item.3"])

        guard case .applied(let byURI) = flowctl.open("t://item/4") else {
            Issue.record("no OK: \(flowctl.record.messages)")
            return
        }
        #expect(byURI.applied == ["pick"])
        #expect(presenter.presentation.children(of: "catalog") == ["home", "item.3", "item.4"])
        guard case .applied(let again) = flowctl.open("t://item/4") else {
            Issue.record("no OK: \(flowctl.record.messages)")
            return
        }
        #expect(again.skipped == ["pick"])
    }

    /// A chain whose step no flow says it handles waits for one (`.waiting`) on the daemon's clock, and its refusal
    /// after `daemon.deep_link_wait_ms` is the reply `reply(to:)` finds.
    @Test func aURIWhoseStepNoTargetFlowHandlesWaitsThenIsRefused() {
        let daemon = EmbeddedDaemon(application: CatalogApplication(targets: false))
        let flowctl = daemon.connectOperator()
        #expect(flowctl.open("t://item/4") == .waiting)
        daemon.advance(by: .milliseconds(3000))
        guard case .refused(let error) = flowctl.reply(to: flowctl.record.lastReq) else {
            Issue.record("not refused: \(flowctl.record.messages)")
            return
        }
        #expect(error.code.rawValue == "deepLinkIncomplete")
        #expect(error.message.contains("no flow of the session handles it yet"))
    }

    @Test func aStepNotDeepLinkableAndAnUnknownURIAreRefused() {
        let daemon = EmbeddedDaemon(application: CatalogApplication())
        let flowctl = daemon.connectOperator()
        guard case .refused(let notLinkable) = flowctl.deepLink(Step("start")) else {
            Issue.record("not refused: \(flowctl.record.messages)")
            return
        }
        #expect(notLinkable.code.rawValue == "notDeepLinkable")
        guard case .refused(let unknown) = flowctl.open("t://nothing") else {
            Issue.record("not refused: \(flowctl.record.messages)")
            return
        }
        #expect(unknown.code.rawValue == "unknownDeepLink")
        #expect(flowctl.reply(to: flowctl.record.lastReq) == .refused(unknown))
    }
}
