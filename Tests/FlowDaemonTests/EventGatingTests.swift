import FlowCore
import FlowDaemon
import FlowWire
import Logging
import TestFlows
import Testing

/// `DaemonCore.publishesEvents`: the server turns events off while nobody subscribes to its XPUB, so no event is built
/// for no one (docs/PERFORMANCE.md); what the daemon counts does not change.
struct EventGatingTests {
    private func publishes(_ outputs: [DaemonOutput]) -> Int {
        outputs.filter { if case .publish = $0 { return true } else { return false } }.count
    }

    private func message(_ message: ClientMessage) -> DaemonInput {
        .message(from: Peers.movies, frames: WireCodec().encode(message))
    }

    @Test func withEventsOffNothingIsPublishedAndDropsAreStillCounted() {
        var core = DaemonCore(
            application: TestApplication(), daemonID: "test-daemon",
            logger: Logger(label: "EventGatingTests", factory: { _ in SwiftLogNoOpLogHandler() }), now: 0
        )
        core.publishesEvents = false
        #expect(publishes(core.start(now: 0)) == 0)
        let hello = Hello(req: 1, role: .stepper, name: "movies", instance: "run", heartbeatMs: 1000, serves: ["home"])
        _ = core.handle(message(.hello(hello)), now: 1)
        // Nobody reported the screen visible: the step is dropped, counted, and no drop event is built.
        let step = StepMessage(req: 2, session: "default", attachment: 2, step: Step("openDetail", payload: 1))
        #expect(publishes(core.handle(message(.step(step)), now: 2)) == 0)
        #expect(core.counters.stepsDropped == ["notVisible": 1])

        core.publishesEvents = true
        let again = StepMessage(req: 3, session: "default", attachment: 2, step: Step("openDetail", payload: 2))
        #expect(publishes(core.handle(message(.step(again)), now: 3)) == 1)
        #expect(core.counters.stepsDropped == ["notVisible": 2])
    }
}
