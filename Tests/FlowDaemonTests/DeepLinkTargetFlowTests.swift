import FlowCore
import FlowDaemon
import FlowWire
import FlowdTesting
import Testing

/// A Swift application's URI deep links (`FlowApplication.deepLinkChain(uri:)`): the daemon applies a chain's step
/// once a flow that says it handles it (`DeepLinkTargetFlow`) is there and ready, and skips a step already shown; with
/// no such flow the link waits and is refused, its message saying why.
struct DeepLinkTargetFlowTests {
    /// A stack of products: `start` shows the catalog, `openProduct(n)` pushes `product.n`.
    class ShopFlow: Flow {
        let root = Screen.stack("shop")

        func navigate(to step: Step, with navigator: Navigator) -> FlowContributors {
            switch step.name {
            case "start":
                navigator.setRoot(root)
                navigator.setStack(root.id, [Screen.view("catalog", type: "Catalog")])
            case "openProduct":
                navigator.push(Self.product(step.payload), onto: root.id)
            default: break
            }
            return .none
        }

        static func product(_ payload: JSONValue) -> Screen {
            Screen.view(PresentableID(rawValue: "product.\(payload.intValue ?? 0)"), type: "Product", data: payload)
        }
    }

    /// The same flow, saying which steps it handles and what they show.
    final class TargetShopFlow: ShopFlow, DeepLinkTargetFlow {
        func screens(showing step: Step) -> [PresentableID]? {
            step.name == "openProduct" ? [Self.product(step.payload).id] : nil
        }
    }

    /// `shop://product/N` is the chain `[openProduct(N)]`.
    struct ShopApplication: FlowApplication {
        let flowsSayWhatTheyHandle: Bool

        func makeRoot(session: String) -> FlowRoot {
            FlowRoot(
                flow: flowsSayWhatTheyHandle ? TargetShopFlow() : ShopFlow(),
                stepper: OneStepper(withSingleStep: Step("start")))
        }

        func deepLinkChain(uri: String) throws(DeepLinkError) -> DeepLinkChain {
            let prefix = "shop://product/"
            guard uri.hasPrefix(prefix), let id = Int(uri.dropFirst(prefix.count)) else {
                throw DeepLinkError("no deep link matches '\(uri)'; the pattern: '\(prefix){id:int}'")
            }
            let steps = [Step("openProduct", payload: .int(id))]
            return DeepLinkChain(uri: uri, pattern: "\(prefix){id:int}", steps: steps)
        }
    }

    /// A daemon running the shop, with an operator connected.
    static func daemon(flowsSayWhatTheyHandle: Bool) -> (EmbeddedDaemon, operator: PeerAddress) {
        let daemon = EmbeddedDaemon(application: ShopApplication(flowsSayWhatTheyHandle: flowsSayWhatTheyHandle))
        let flowctl = daemon.newPeerAddress()
        let hello = Hello(req: 1, role: .operator, name: "flowctl", instance: "flowctl", heartbeatMs: 1000)
        _ = daemon.receive(.hello(hello), from: flowctl)
        return (daemon, flowctl)
    }

    static func open(_ uri: String, req: UInt64, on daemon: EmbeddedDaemon, from peer: PeerAddress) -> [DaemonMessage] {
        daemon.receive(.deepLink(DeepLinkRequest(req: req, session: "default", uri: uri)), from: peer).to(peer)
    }

    @Test func aChainIsAppliedToFlowsThatSayTheyHandleItsStepsAndAShownStepIsSkipped() throws {
        let (daemon, flowctl) = Self.daemon(flowsSayWhatTheyHandle: true)
        let first = Self.open("shop://product/7", req: 2, on: daemon, from: flowctl)
        guard case .ok(let reply) = try #require(first.first) else {
            Issue.record("not applied: \(first)")
            return
        }
        let result = try reply.result(as: DeepLinkResult.self)
        #expect(result.applied == ["openProduct"] && result.skipped == [])
        #expect(daemon.ui()?.children(of: "shop") == ["catalog", "product.7"])
        let again = Self.open("shop://product/7", req: 3, on: daemon, from: flowctl)
        guard case .ok(let second) = try #require(again.first) else {
            Issue.record("not answered: \(again)")
            return
        }
        #expect(try second.result(as: DeepLinkResult.self).skipped == ["openProduct"])
        #expect(daemon.ui()?.children(of: "shop") == ["catalog", "product.7"])
    }

    @Test func withoutAFlowThatSaysItHandlesTheStepALinkWaitsAndIsRefusedSayingWhy() throws {
        let (daemon, flowctl) = Self.daemon(flowsSayWhatTheyHandle: false)
        #expect(Self.open("shop://product/7", req: 2, on: daemon, from: flowctl).isEmpty)
        let replies = daemon.advance(by: .milliseconds(3000)).to(flowctl)
        let errors = replies.compactMap { if case .error(let error) = $0 { error } else { nil } }
        let error = try #require(errors.first, "not refused: \(replies)")
        #expect(error.code == .deepLinkIncomplete)
        #expect(
            error.message
                == "the deep link 'shop://product/7' (shop://product/{id:int}) stopped at step 1 of 1, 'openProduct': "
                + "no flow of the session is a DeepLinkTargetFlow, which says it handles it (a flow file's flows are; "
                + "a Swift flow conforms), after 3000 ms (daemon.deep_link_wait_ms)")
        #expect(daemon.ui()?.children(of: "shop") == ["catalog"])
    }
}
