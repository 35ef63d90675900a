import FlowCore
import FlowDaemon
import Logging
import Testing

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
}
