import FlowCore
import FlowDaemon
import Foundation

/// The benchmark's application: the default session has one ``BenchFlow`` whose screen a remote stepper serves, with
/// `uiScreens` screens under it; every other session (the idle ones) the same flow with no screens under it and no
/// remote stepper.
struct BenchApplication: FlowApplication {
    /// Screens the default session shows under the benchmark's own (`--ui-screens`).
    var uiScreens = 0

    func makeRoot(session: String) -> FlowRoot {
        FlowRoot(flow: flow(session: session), stepper: OneStepper(withSingleStep: BenchFlow.start))
    }

    /// The flow is restorable, so snapshots hold each session's state, not its history.
    func restoration(session: String) -> FlowRestoration? {
        var restoration = FlowRestoration()
        let flow = flow(session: session)
        restoration.register(BenchFlow.self) { _ in BenchFlow(uiScreens: flow.uiScreens, remote: flow.remote) }
        return restoration
    }

    private func flow(session: String) -> BenchFlow {
        session == BenchWire.session ? BenchFlow(uiScreens: uiScreens, remote: true) : BenchFlow(uiScreens: 0, remote: false)
    }
}

/// One flow: a stack whose top screen is contributed with a `RemoteStepper(kind: "bench")`.
///
/// `start` pushes the screen; every `tick` replaces the stack's content with the same screen carrying the step's
/// payload as its data, so each step makes exactly one `COMMAND` for the presenter, and the UI stays the same size
/// however many steps run. With `uiScreens` N > 0, `start` first pushes N views (`bench.deep.<i>`) and a stack
/// `bench.deck` onto the root, and the screen goes onto `bench.deck`: the ticks replace `bench.deck`'s content, and
/// the N screens stay under it.
final class BenchFlow: RestorableFlow {
    static let start = Step("start")
    static let stackID: PresentableID = "bench.root"
    /// The stack the screen is on when there are screens under it (as long an ID as `bench.root`, so a `COMMAND`
    /// has the same size either way).
    static let deckID: PresentableID = "bench.deck"
    static let screenID: PresentableID = "bench.screen"

    let root = Screen.stack(BenchFlow.stackID)
    let uiScreens: Int
    /// Whether the screen gets the remote stepper (the default session's does; idle sessions' do not).
    let remote: Bool
    var state: NoState { NoState() }

    init(uiScreens: Int = 0, remote: Bool = true) {
        self.uiScreens = uiScreens
        self.remote = remote
    }

    static func screen(payload: JSONValue) -> Screen { .view(screenID, type: "Bench", data: payload) }

    /// Screens a `tick` lists after the benchmark's own (which stays first: the presenter reads the stamp from the
    /// first `data`), the same ones with the same data every time: `FLOWD_BENCH_RELIST=N` (0 by default), read by
    /// every process of a run, so that the raw relay's `COMMAND` has the size of flowd's. From the second tick on,
    /// each is a screen kept in place (SEMANTICS D21), looked up and compared, and the benchmark's own takes the
    /// step's data: what re-listing the same children costs (docs/PERFORMANCE.md).
    static let relisted: [Screen] = (0..<(ProcessInfo.processInfo.environment["FLOWD_BENCH_RELIST"].flatMap(Int.init)
        ?? 0)).map { .view(PresentableID("bench.kept.\($0)"), type: "Kept", data: ["index": .int($0)]) }

    /// The stack the ticks replace.
    static func tickStack(uiScreens: Int) -> PresentableID { uiScreens > 0 ? deckID : stackID }

    /// The command a `tick` makes.
    static func tickCommand(payload: JSONValue, uiScreens: Int = 0) -> NavigationCommand {
        .setStack(tickStack(uiScreens: uiScreens), [screen(payload: payload)] + relisted)
    }

    func navigate(to step: Step, with navigator: Navigator) -> FlowContributors {
        switch step.name {
        case "start":
            let screen = Self.screen(payload: .null)
            if uiScreens > 0 {
                for index in 0..<uiScreens {
                    navigator.push(.view(PresentableID("bench.deep.\(index)"), type: "Deep"), onto: Self.stackID)
                }
                navigator.push(.stack(Self.deckID), onto: Self.stackID)
            }
            navigator.push(screen, onto: Self.tickStack(uiScreens: uiScreens))
            guard remote else { return .none }
            return .one(
                flowContributor: .contribute(withNextPresentable: screen, withNextStepper: RemoteStepper(kind: "bench"))
            )
        case "tick":
            navigator.perform(Self.tickCommand(payload: step.payload, uiScreens: uiScreens))
            return .none
        default:
            return .none
        }
    }
}
