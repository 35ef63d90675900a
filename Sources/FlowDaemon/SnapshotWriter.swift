import Dispatch
import Synchronization

/// Runs a compaction's writes and syncs (``SnapshotJob``) on a thread of its own, so the daemon's I/O thread goes on
/// answering while the snapshot goes to disk: inline, its writes and syncs held every step behind them for 38-63 ms
/// (docs/PERFORMANCE.md).
///
/// One job at a time (``JournalStore`` starts none while one runs). Its outcome waits here until the store collects
/// it (``takeOutcome()``), at the I/O thread's next turn.
///
/// `Sendable`: its state is behind a `Mutex`, and the queue runs one job at a time.
final class SnapshotWriter: Sendable {
    private struct State {
        var outcome: SnapshotJob.Outcome?
    }

    private let queue = DispatchQueue(label: "flowd-snapshot-writer")
    private let state = Mutex(State())
    /// Tests: run on the writer's thread at each step of each job.
    let pause: (@Sendable (SnapshotCrashPoint) -> Void)?

    /// - Parameter pause: tests: run on the writer's thread at each step, before it is taken.
    init(pause: (@Sendable (SnapshotCrashPoint) -> Void)? = nil) {
        self.pause = pause
    }

    /// Starts `job` on the writer's thread.
    func start(_ job: SnapshotJob) {
        queue.async {
            let outcome = job.run()
            self.state.withLock { $0.outcome = outcome }
        }
    }

    /// The outcome of the ended job, once; `nil` while it runs or when none ran.
    func takeOutcome() -> SnapshotJob.Outcome? {
        state.withLock { state in
            defer { state.outcome = nil }
            return state.outcome
        }
    }

    /// Waits until the job that runs, if any, has ended.
    func waitUntilIdle() {
        queue.sync {}
    }
}
