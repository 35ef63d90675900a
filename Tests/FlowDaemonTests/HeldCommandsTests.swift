import FlowCore
import FlowDaemon
import FlowdTesting
import Testing

/// The root flow's root is the stack `app`, with a remote flow stepper of kind `home` (attachment 1): `fill` and
/// `more` push onto `app`, `cover` puts a new window root over everything (the root flow lives on, D18), `back` makes
/// `app` the window's root again.
private struct CoverApplication: FlowApplication {
    func makeRoot(session: String) -> FlowRoot {
        FlowRoot(flow: CoverFlow(), stepper: RemoteStepper(kind: "home"))
    }

    var stepNames: Set<String>? { ["fill", "cover", "more", "back"] }
}

private final class CoverFlow: Flow {
    let root = Screen.stack("app")

    func navigate(to step: Step, with navigator: Navigator) -> FlowContributors {
        switch step.name {
        case "fill": navigator.push(.view("a", type: "A"), onto: "app")
        case "cover": navigator.setRoot(.view("cover", type: "Cover"))
        case "more": navigator.push(.view("b", type: "B"), onto: "app")
        case "back": navigator.setRoot(root)
        default: break
        }
        return .none
    }
}

/// docs/SEMANTICS.md D20 as the daemon's session answers the tree's "is it in the UI?": the session remembers the last
/// flow root it found there (docs/PERFORMANCE.md), and forgets it when a command takes that root out.
struct HeldCommandsTests {
    @Test("A flow's root a command took out of the UI is not in it for D20: what builds in it waits for its placing")
    func aRootTakenOutOfTheUIHoldsCommandsAgain() {
        let daemon = EmbeddedDaemon(application: CoverApplication())
        let home = daemon.connectStepper(name: "home", kinds: ["home"])
        func screens() -> [String] { daemon.ui()?.presentables.map(\.rawValue).sorted() ?? [] }

        #expect(home.emit(Step("fill"), attachment: 1)?.accepted == true)
        #expect(screens() == ["a", "app"])
        #expect(home.emit(Step("cover"), attachment: 1)?.accepted == true)
        #expect(screens() == ["cover"])
        // `app` is the live root flow's root and in no UI: the push waits, as for a root never placed.
        #expect(home.emit(Step("more"), attachment: 1)?.accepted == true)
        #expect(screens() == ["cover"])
        #expect(home.emit(Step("back"), attachment: 1)?.accepted == true)
        #expect(screens() == ["app", "b"])
        #expect(daemon.ui()?.children(of: "app") == ["b"])
    }
}
