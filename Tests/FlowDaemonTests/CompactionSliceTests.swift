import FlowCore
@testable import FlowDaemon
import FlowWire
import FlowdTesting
import TestFlows
import Testing

/// A compaction saves the changed sessions a slice a loop turn, bounded by the bytes of the `state` records it encodes
/// (``DaemonCore/continueCompaction(_:bytes:)``), and what it leaves between slices is a log a restart recovers from:
/// docs/RELIABILITY.md, "Snapshots and compaction".
struct CompactionSliceTests {
    let ops = Peers.flowctl

    /// A journaling daemon with an operator connected and `sessions` created and each stepped once.
    func daemon(_ sessions: [String]) -> DaemonHarness {
        let harness = DaemonHarness(journaling: true)
        harness.hello(ops, .operator, name: "ops")
        for (index, session) in sessions.enumerated() {
            harness.receive(.createSession(SessionRequest(req: UInt64(10 + index), session: session)), from: ops)
            harness.deepLink(ops, Step("openDetail", payload: .int(index)), session: session, req: UInt64(100 + index))
        }
        return harness
    }

    @Test("A slice stops once its state records reach the byte budget, one session at least; all slices save as one")
    func slicesBoundedByBytes() {
        let names = (0..<5).map { "s\($0)" }
        let whole = daemon(names)
        let sliced = daemon(names)
        let expected = whole.core.compactJournal()
        var preparation = sliced.core.prepareCompaction()
        #expect(preparation.compaction.unchanged == 1, "the default session, unchanged since created")
        for slice in 1...names.count {
            #expect(!preparation.isDone)
            let done = sliced.core.continueCompaction(&preparation, bytes: 1)
            #expect(preparation.compaction.saved == slice, "one session a slice")
            #expect(done == (slice == names.count))
        }
        #expect(preparation.compaction == expected)
        #expect(sliced.core.journalSnapshotPayload == whole.core.journalSnapshotPayload)
    }

    @Test("A slice stops after as many sessions as a turn makes, however small their records")
    func slicesBoundedByCount() {
        let names = (0..<(PendingSession.madePerTurn + 3)).map { "s\($0)" }
        let harness = daemon(names)
        var preparation = harness.core.prepareCompaction()
        #expect(!harness.core.continueCompaction(&preparation, bytes: .max))
        #expect(preparation.compaction.saved == PendingSession.madePerTurn)
        #expect(harness.core.continueCompaction(&preparation, bytes: .max))
        #expect(preparation.compaction.saved == names.count)
    }

    @Test(
        "Between slices a saved session changes again and a noted one ends: the log restarts to the same sessions",
        arguments: [false, true])
    func changesBetweenSlices(restartMidway: Bool) throws {
        let names = ["a", "b", "c", "d"]
        let reference = daemon(names)
        let sliced = daemon(names)
        var preparation = sliced.core.prepareCompaction()
        _ = sliced.core.continueCompaction(&preparation, bytes: 1)  // saves a
        for harness in [reference, sliced] {
            harness.deepLink(ops, Step("openDetail", payload: 40), session: "a", req: 200)  // changed after its save
            harness.deepLink(ops, Step("openDetail", payload: 41), session: "c", req: 201)  // changed before its save
            harness.receive(.endSession(SessionRequest(req: 202, session: "b")), from: ops)  // noted, ended
            harness.receive(.createSession(SessionRequest(req: 203, session: "e")), from: ops)  // not noted
            harness.deepLink(ops, Step("openDetail", payload: 42), session: "e", req: 204)
        }
        if !restartMidway {
            while !sliced.core.continueCompaction(&preparation, bytes: 1) {}
            #expect(preparation.compaction.saved == 3, "a, c, d; b ended")
            #expect(sliced.core.compactJournal().saved == 2, "a and e changed since: the next compaction saves them")
        }
        let restarted = try sliced.restarted()
        #expect(restarted.core.sessionIDs == reference.core.sessionIDs)
        for id in reference.core.sessionIDs {
            #expect(restarted.state(of: id) == reference.state(of: id), "session \(id)")
        }
    }

    @Test("A session saved since it was noted (hibernated) is passed over, not made again")
    func hibernatedBetweenSlicesPassedOver() {
        var configuration = DaemonConfiguration()
        configuration.hibernateAfterS = 30
        let harness = DaemonHarness(configuration: configuration, journaling: true)
        harness.hello(ops, .operator, name: "ops")
        for (index, session) in ["a", "b"].enumerated() {
            harness.receive(.createSession(SessionRequest(req: UInt64(10 + index), session: session)), from: ops)
            harness.deepLink(ops, Step("openDetail", payload: .int(index)), session: session, req: UInt64(100 + index))
        }
        var preparation = harness.core.prepareCompaction()
        harness.tick(at: 31_000)
        #expect(harness.core.hibernatedSessionCount == 3)
        #expect(harness.core.continueCompaction(&preparation, bytes: .max))
        #expect(preparation.compaction.saved == 0)
        #expect(harness.core.hibernatedSessionCount == 3, "none made again")
    }
}
