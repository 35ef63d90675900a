import Dispatch
import Synchronization
import SystemPackage

/// Runs the journal's `.interval` syncs on a thread of their own, so the daemon's I/O thread goes on answering while
/// the disk syncs: an inline `fdatasync` held every step behind it for its whole duration (1-60 ms on a busy disk,
/// docs/PERFORMANCE.md).
///
/// One sync at a time, of a duplicate of the journal's descriptor (a compaction may close the journal meanwhile),
/// closed when the sync ends. ``JournalStore`` collects a failure at its next call and becomes unusable then, as after
/// a failed inline sync.
///
/// `Sendable`: its state is behind a `Mutex`, and the queue runs one sync at a time.
final class JournalSyncer: Sendable {
    private struct State {
        var syncing = false
        var failure: JournalError?
    }

    private let queue = DispatchQueue(label: "flowd-journal-sync")
    private let state = Mutex(State())
    /// Tests: blocks each sync until the test lets it go.
    private let gate: (@Sendable () -> Void)?

    /// - Parameter gate: tests: run on the sync's thread before each sync.
    init(gate: (@Sendable () -> Void)? = nil) {
        self.gate = gate
    }

    /// Whether a sync has started and not ended.
    var isSyncing: Bool { state.withLock { $0.syncing } }

    /// Starts syncing `file`, which the syncer closes afterwards; `simulatedError` fails it as the disk would.
    func start(_ file: FileDescriptor, path: String, simulatedError: Errno?) {
        state.withLock { $0.syncing = true }
        queue.async {
            self.gate?()
            var failure: JournalError?
            do throws(JournalError) {
                if let simulatedError { throw JournalError.io("cannot sync \(path)", simulatedError) }
                try file.syncData(path: path)
            } catch {
                failure = error
            }
            try? file.close()
            self.state.withLock { state in
                state.syncing = false
                state.failure = state.failure ?? failure
            }
        }
    }

    /// The failure of an ended sync, once.
    func takeFailure() -> JournalError? {
        state.withLock { state in
            defer { state.failure = nil }
            return state.failure
        }
    }

    /// Waits until the sync that runs, if any, has ended.
    func waitUntilIdle() {
        queue.sync {}
    }
}
