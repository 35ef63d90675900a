import FlowClientTesting
import FlowCore
import FlowDaemon
import FlowWire
import FlowdTesting
import Logging
import Synchronization
import TestFlows
import Testing

/// A refusal a client can repeat without end is counted every time and logged at notice level at its code's 1st,
/// 10th, 100th… (docs/PROTOCOL.md §3), every one at debug level.
struct RefusalLogTests {
    @Test func aRefusalRepeatedWithoutEndIsLoggedAtNoticeAtItsFirstTenthAndHundredth() {
        let recorder = LogRecorder()
        let daemon = EmbeddedDaemon(
            application: TestApplication(), logger: Logger(label: "refusals") { _ in RecordingHandler(recorder) }
        )
        let stranger = daemon.newPeerAddress()
        for req in 1...120 { _ = daemon.receive(.health(PlainRequest(req: UInt64(req))), from: stranger) }

        let refusals = recorder.lines.withLock { $0 }.filter { $0.message == "message refused" }
        #expect(refusals.count == 120)
        #expect(refusals.filter { $0.level == .notice }.map { $0.metadata["refused_so_far"] } == ["1", "10", "100"])
        #expect(refusals.filter { $0.level == .debug }.count == 117)
        #expect(refusals.allSatisfy { $0.metadata["code"] == "notWelcome" })
        #expect(daemon.core.counters.errors == ["notWelcome": 120])
    }

    /// A command the session's UI refuses is logged once, when it is sequenced: a restart replaying it (or making its
    /// session again from the journal) does not warn again of the same past.
    @Test func aCommandTheUIRefusesIsLoggedOnceNotAgainByTheRestartThatReplaysIt() throws {
        let recorder = LogRecorder()
        let daemon = EmbeddedDaemon(
            application: TestApplication(), journaling: true,
            logger: Logger(label: "rejections") { _ in RecordingHandler(recorder) }
        )
        let flowctl = daemon.newPeerAddress()
        let hello = Hello(req: 1, role: .operator, name: "flowctl", instance: "run-flowctl", heartbeatMs: 1000)
        _ = daemon.receive(.hello(hello), from: flowctl)
        for req in 2...3 {  // `detail.1` pushed twice: the second push does not fit (already shown)
            let link = DeepLinkRequest(req: UInt64(req), session: "default", step: Step("openDetail", payload: 1))
            _ = daemon.receive(.deepLink(link), from: flowctl)
        }
        let warnings = { recorder.lines.withLock { $0 }.filter { $0.message == "command does not fit the session's UI" } }
        #expect(warnings().count == 1)
        #expect(warnings().first?.metadata["error"] == "detail.1 is already shown")
        let restarted = try daemon.recovered()
        _ = try daemon.recovered(lazily: true).makePendingSessions()
        #expect(warnings().count == 1)
        #expect(restarted.core.seq(of: "default") == daemon.core.seq(of: "default"))
    }

    /// An `ACK` for a session its presenter does not host gets no reply (§6.3) but is logged like any refusal (it
    /// was counted and logged at debug only, with its own text: found by a foreign client in Go).
    @Test func anAckForASessionNotHostedIsLoggedLikeAnyRefusalAndAnsweredWithNothing() {
        let recorder = LogRecorder()
        let daemon = EmbeddedDaemon(
            application: TestApplication(), logger: Logger(label: "refusals") { _ in RecordingHandler(recorder) }
        )
        let presenter = daemon.newPeerAddress()
        let hello = Hello(req: 1, role: .presenter, name: "tui", instance: "run-tui", heartbeatMs: 1000, serves: [])
        _ = daemon.receive(.hello(hello), from: presenter)
        for seq in 1...12 {
            #expect(daemon.receive(.ack(Ack(session: "default", seq: UInt64(seq))), from: presenter).sent.isEmpty)
        }
        let refusals = recorder.lines.withLock { $0 }.filter { $0.message == "message refused" }
        #expect(refusals.map { $0.metadata["code"] } == Array(repeating: "notHost", count: 12))
        #expect(refusals.filter { $0.level == .notice }.map { $0.metadata["refused_so_far"] } == ["1", "10"])
        #expect(daemon.core.counters.errors == ["notHost": 12])
    }
}
