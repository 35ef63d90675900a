import FlowCore
import FlowDaemon
import FlowWire
import FlowdTesting
import Testing

/// Where a daemon restarted from its journal did not do what the daemon it replaces would have done (found by the
/// recovery property tests: DemoRecoveryTests, RecoveryFuzzTests), each as the smallest journey that showed it.
struct RecoveryDivergenceTests {
    let tui = Peers.tui
    let movies = Peers.movies

    /// A STEP dropped before any flow saw it (`notVisible`) changed nothing, but its verdict is remembered for
    /// de-duplication (`StepResultWindows`): the running daemon answers the STEP sent again with that first verdict,
    /// and so must a restarted one (it was once not journaled, and the restarted daemon applied the step).
    @Test("A STEP dropped before the restart and sent again after it gets its first verdict, as without a restart")
    func droppedStepSentAgainAfterARestart() throws {
        let live = DaemonHarness(journaling: true)
        live.presenter(tui, name: "tui")
        live.hello(movies, .stepper, name: "movies", serves: ["home", "detail"])
        let first = live.step(movies, Step("openDetail", payload: 7), attachment: 2, req: 10)
        #expect(first.to(movies) == [ok(10, dropped("notVisible"))], "home is not visible yet")
        let seq = live.core.seq(of: "default") ?? 0
        let restarted = try live.restarted()

        // The running daemon: the presenter shows home, the stepper sends its STEP again (its reply was lost).
        live.report(tui, [("app", .visible), ("home", .visible)])
        let liveAgain = live.step(movies, Step("openDetail", payload: 7), attachment: 2, req: 10)
        let firstVerdict: JSONValue = ["accepted": false, "reason": "notVisible", "duplicate": true]
        #expect(liveAgain.to(movies) == [ok(10, firstVerdict)])
        #expect(live.core.seq(of: "default") == seq)

        // The restarted daemon, with the same peers doing the same.
        restarted.hello(movies, .stepper, name: "movies", serves: ["home", "detail"])
        restarted.presenter(tui, name: "tui", lastSeq: seq)
        restarted.report(tui, [("app", .visible), ("home", .visible)])
        let restartedAgain = restarted.step(movies, Step("openDetail", payload: 7), attachment: 2, req: 10)
        #expect(restartedAgain.to(movies) == [ok(10, firstVerdict)])
        #expect(restarted.core.seq(of: "default") == seq, "the step is not applied after all")
    }
}
