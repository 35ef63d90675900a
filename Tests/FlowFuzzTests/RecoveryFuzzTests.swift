import FlowCore
import FlowDaemon
import FlowWire
import Logging
import Synchronization
import TestFlows
import Testing

/// Issue 5's durability, fuzzed: a journaling `DaemonCore` fed a long random session (presenters syncing, reporting
/// and acting, steppers stepping and sending steps again, operators creating sessions and deep-linking,
/// adaptations completing, peers leaving, dying and timing out, time passing, and mutated frames), restarted from its
/// own journal at random points, must keep every session exactly.
///
/// Two cores get the same inputs: the reference runs throughout; the subject is restarted from its journal
/// (``DaemonCore/journalHistory``) at each restart point, while the reference loses all its peers there (a restarted
/// daemon has none). At each restart point the recovered core must have the reference's sessions (tree, UI, seq) and
/// daemon ID, and ask to run again exactly the adaptations still pending; between restart points both must answer
/// every input the same (every message, event and local stepper output, the `WELCOME`'s peer number and `HEALTH`'s
/// counters aside) and journal the same records.
///
/// Steps are sent again across restarts too: the answer must be the first verdict, whatever it was (a drop before
/// any flow saw it included: RecoveryDivergenceTests).
struct RecoveryFuzzTests {
    static let inputCount = 30_000
    static let restartCount = 20

    @Test func aJournalingDaemonRestartedAtRandomPointsOfAFuzzedSessionKeepsEverySession() async throws {
        let seed = FuzzSeed.value
        let summary = try await onDedicatedThread("fuzz-recovery") {
            var fuzz = RecoveryFuzz(seed: seed)
            return fuzz.run(inputs: Self.inputCount, restarts: Self.restartCount)
        }
        print(
            "recovery fuzz: seed \(FuzzSeed.hex(seed)), \(summary.inputs) inputs, \(summary.restarts) restarts in "
                + "\(String(format: "%.1f", summary.seconds)) s; journal records \(summary.records) "
                + "(at the last restart \(summary.recordsAtLastRestart)); sessions \(summary.sessions); "
                + "navigations \(summary.navigations); steps accepted \(summary.stepsAccepted), dropped "
                + "\(summary.stepsDropped), duplicates \(summary.duplicates); adaptations pending at restarts "
                + "\(summary.pendingAdaptsAtRestarts); presentables visible when restarted \(summary.visibleAtRestarts)"
        )
        print(
            "  compactions before restarts \(summary.compactions): sessions saved as data \(summary.sessionsSaved), "
                + "kept as history \(summary.sessionsKeptAsHistory); sliced between inputs "
                + "\(summary.slicedCompactions), saving \(summary.sessionsSavedInSlices)")
        print("  records journaled by kind: \(summary.recordKinds.sorted { $0.key < $1.key })")
        print("  refused (since the last restart): \(summary.errors.sorted { $0.key < $1.key })")
        print("  steps dropped (since the last restart): \(summary.dropReasons.sorted { $0.key < $1.key })")
        #expect(
            summary.failureCount == 0, "\(summary.failureCount) failures:\n\(summary.failures.joined(separator: "\n"))"
        )
        #expect(summary.inputs == Self.inputCount)
        #expect(summary.restarts == Self.restartCount)
        #expect(summary.statesCompared > Self.restartCount * 2)
        // The session did things worth recovering.
        #expect(summary.sessions >= 3)
        #expect(summary.navigations > 1000)
        #expect(summary.duplicates > 100)
        #expect(summary.pendingAdaptsAtRestarts > 0)
        // Most restarts start from state snapshots; some sessions wait for an adaptation then and stay history.
        #expect(summary.compactions > Self.restartCount / 4)
        #expect(summary.sessionsSaved > Self.restartCount / 4)
        #expect(summary.slicedCompactions > 0 && summary.sessionsSavedInSlices > 0)
        #expect(summary.visibleAtRestarts > 0)
        for kind in [
            "session", "step", "lost", "adapted", "deep_link", "report.visible", "report.hidden", "report.dismissed", "adopted",
        ] {
            #expect(summary.recordKinds[kind, default: 0] > 0, "no \(kind) record")
        }
    }
}
