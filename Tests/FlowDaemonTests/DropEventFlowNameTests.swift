import FlowCore
import FlowDaemon
import FlowWire
import FlowdTesting
import Testing

/// A drop `EVENT` names the flow the step was meant for (PROTOCOL §9), also when that flow ended in the same input:
/// a modal flow that closes its own root and forwards a step to itself ends (`rootDismissed`, SEMANTICS D18), and the
/// forwarded step is dropped `flowEnded`.
struct DropEventFlowNameTests {
    final class MainFlow: Flow {
        let root = Screen.stack("main")

        func navigate(to step: Step, with navigator: Navigator) -> FlowContributors {
            switch step.name {
            case "start":
                navigator.setRoot(root)
                navigator.setStack(root.id, [Screen.view("home", type: "Home")])
                return .none
            case "openModal":
                let modal = ModalFlow()
                Flows.use(modal, when: .created, in: navigator) { [root] navigator in
                    navigator.present(modal.root, over: root.id)
                }
                return .one(
                    flowContributor: .contribute(
                        withNextPresentable: modal, withNextStepper: OneStepper(withSingleStep: Step("modalStart"))))
            default:
                return .none
            }
        }
    }

    final class ModalFlow: Flow {
        let root = Screen.stack("modal")

        func navigate(to step: Step, with navigator: Navigator) -> FlowContributors {
            switch step.name {
            case "modalStart":
                navigator.setStack(root.id, [Screen.view("modal.view", type: "View")])
                return .none
            case "close":
                navigator.dismiss(presentedOver: "main")
                return .one(flowContributor: .forwardToCurrentFlow(withStep: Step("afterClose")))
            default:
                return .none
            }
        }
    }

    struct ModalApplication: FlowApplication {
        func makeRoot(session: String) -> FlowRoot {
            FlowRoot(flow: MainFlow(), stepper: OneStepper(withSingleStep: Step("start")))
        }
    }

    @Test func aDropForAFlowThatEndedInTheSameInputNamesTheFlow() throws {
        let daemon = EmbeddedDaemon(application: ModalApplication())
        let flowctl = daemon.newPeerAddress()
        let hello = Hello(req: 1, role: .operator, name: "flowctl", instance: "flowctl", heartbeatMs: 1000)
        _ = daemon.receive(.hello(hello), from: flowctl)
        for (req, name) in [(2, "openModal"), (3, "close")] {
            _ = daemon.receive(
                .deepLink(DeepLinkRequest(req: UInt64(req), session: "default", step: Step(name))), from: flowctl)
        }
        #expect(daemon.ui()?.presentables.contains("modal") == false)
        let drops = daemon.events.filter { $0.event == "drop" && $0.step.name == "afterClose" }
        #expect(drops.count == 1)
        #expect(drops.first?.reason == "flowEnded")
        #expect(drops.first?.flow == "ModalFlow")
        #expect(drops.first?.coordinator != nil)
    }
}
