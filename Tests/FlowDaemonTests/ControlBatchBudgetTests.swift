import FlowCore
@testable import FlowDaemon
import FlowWire
import Logging
import Testing
import ZeroMQ

/// How long the I/O thread hands the core control messages before their outputs go out (docs/PERFORMANCE.md, *The
/// paced p99*): cut after 250 µs, so a backlog's first replies leave early, except where each batch is synced.
struct ControlBatchBudgetTests {
    typealias Empty = AppVersionStoreTests.Empty

    private func server(journal: JournalConfiguration?) -> DaemonServer {
        DaemonServer(
            application: Empty(),
            configuration: DaemonServer.Configuration(
                controlEndpoint: "inproc://batch-budget", eventsEndpoint: "inproc://batch-budget-events", journal: journal
            ),
            logger: Logger(label: "ControlBatchBudgetTests", factory: { _ in SwiftLogNoOpLogHandler() })
        )
    }

    @Test func batchesAreCutAfter250MicrosecondsWithoutAJournalOrWithoutASyncPerBatch() {
        #expect(server(journal: nil).controlBatchBudget == .microseconds(250))
        for fsync in [FsyncPolicy.never, .interval(milliseconds: 100)] {
            #expect(server(journal: JournalConfiguration(directory: "/nonexistent", fsync: fsync)).controlBatchBudget
                == .microseconds(250))
        }
    }

    @Test func underFsyncAlwaysABatchIsNotCutSoEachSyncStillCoversUpTo256Messages() {
        #expect(server(journal: JournalConfiguration(directory: "/nonexistent", fsync: .always)).controlBatchBudget == nil)
    }

    /// A backlog of 10 requests, with a clock that advances 100 µs each time it is read: each turn takes the messages
    /// begun within the budget (reads at 0, 100, 200 µs; the one at 300 µs ends the turn), says the socket is not
    /// drained, and the next turn goes on where it stopped: every request answered once, in order.
    @Test func aBacklogIsHandedToTheCoreInSlicesOfTheBudgetInOrderWithNoneLost() throws {
        let daemon = server(journal: nil)
        let context = try ZMQContext()
        let router = try ZMQSocket(.router, context: context)
        defer { router.close() }
        try router.bind("inproc://batch-budget-cut")
        let peer = try WirePeer(context: context, endpoint: "inproc://batch-budget-cut")
        defer { peer.close() }
        // inproc: each send is in the router's queue when it returns (the first read attaches the peer's pipe).
        for req in 1...10 { try peer.send(.sessions(SessionsRequest(req: UInt64(req)))) }

        var core = DaemonCore(
            application: Empty(), daemonID: "batch-budget",
            logger: Logger(label: "ControlBatchBudgetTests", factory: { _ in SwiftLogNoOpLogHandler() }), now: 0
        )
        core.publishesEvents = false
        _ = core.start(now: 0)
        let start = ContinuousClock.now
        var reads = 0
        let instant = { () -> ContinuousClock.Instant in
            defer { reads += 1 }
            return start.advanced(by: .microseconds(100 * reads))
        }
        var slices: [[UInt64]] = []
        var drained = false
        while !drained {
            let outputs: [DaemonOutput]
            (outputs, drained) = try daemon.receiveControl(
                from: router, into: &core, budget: .microseconds(250), instant: instant, now: { 1 })
            let reqs = outputs.compactMap { output -> UInt64? in
                if case .send(_, let message) = output { return message.req }
                return nil
            }
            if !reqs.isEmpty || !drained { slices.append(reqs) }
        }
        #expect(slices == [[1, 2, 3], [4, 5, 6], [7, 8, 9], [10]])
    }
}
