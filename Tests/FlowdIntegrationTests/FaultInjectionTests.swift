import Foundation
import Testing

extension FlowdIntegrationTests {
    /// Fault injection with real processes: the movie demo's journey (``MovieJourney``) played while processes are
    /// killed with SIGKILL at random points and started again, held against the same journey played without faults.
    ///
    /// Each run checks that it converges to the reference's final state (the same flow tree and the same command
    /// sequence number: no step lost, none applied twice), that no operation the daemon acknowledged was lost, that the
    /// watch printed no navigation more often than the reference, and that no presenter applied a command twice. The
    /// random choices come from a seed printed with every failure and in the summary line (`FLOWD_FAULT_SEED` replays
    /// them); the outcome does not depend on the timing, only the counts do.
    ///
    /// The summary lines feed docs/RELIABILITY.md: `swift test --filter FaultInjectionTests`. Nested in
    /// ``FlowdIntegrationTests`` so that it runs serialized with the other process tests (the machine has few cores).
    @Suite(.serialized)
    struct FaultInjectionTests {
        /// flowd killed 10–20 times at random points of the journey (within operations, 0–300 ms after one was
        /// issued, and between them), restarted on its state folder each time.
        @Test func flowdKilledAtRandomPointsOfAJourneyLosesNoAcknowledgedStepAndRepeatsNoNavigation() async throws {
            try await run(FaultPlan(faults: [.flowd], seed: FaultSeed.value()))
        }

        /// The presenter and the movie service killed mid-journey and restarted: the presenter resyncs (a snapshot),
        /// the service gets its attachments back, operations whose effect was lost are issued again, nothing happens
        /// twice.
        @Test func presentersAndSteppersKilledMidJourneyConvergeAndRepeatNothing() async throws {
            try await run(FaultPlan(faults: [.presenter, .movieService], seed: FaultSeed.value(), maxFaults: 12))
        }

        /// All three at once: flowd, the presenter and the movie service killed at random points of one journey.
        @Test func flowdPresentersAndSteppersKilledTogetherConvergeToTheReference() async throws {
            try await run(
                FaultPlan(faults: [.flowd, .presenter, .movieService], seed: FaultSeed.value(), maxFaults: 15)
            )
        }

        /// The processes' heartbeat in a faulty run: short, so that a killed process is found out quickly (the
        /// times in docs/RELIABILITY.md are with it). A live process counted dead on a loaded machine is one more
        /// fault the journey converges from.
        static let heartbeatMs = 200

        private func run(_ plan: FaultPlan) async throws {
            let reference = try await JourneyReferenceCache.reference()
            try await withCluster(heartbeatMs: Self.heartbeatMs) { cluster in
                let system = try await JourneySystem.start(in: cluster)
                let journey = FaultyJourney(system: system, reference: reference, plan: plan)
                let report = try await journey.run(MovieJourney.operations)
                print(report)
                if ProcessInfo.processInfo.environment["FLOWD_FAULT_TRAIL"] != nil {
                    print(journey.trail.map { "  \($0)" }.joined(separator: "\n"))
                    let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
                    print("  open file descriptors of the test process: \(descriptors)")
                }
                #expect(report.losses.isEmpty, "\(report.losses) — \(plan)")
                #expect(report.duplicates.isEmpty, "\(report.duplicates) — \(plan)")
                #expect(report.restarts.values.reduce(0, +) > 0, "no fault was injected — \(plan)")
                // Every flowd of the run compacts its journal into state snapshots as it goes (4 KiB compact_bytes).
                let compactions = system.daemons.reduce(0) { count, daemon in
                    count + daemon.process.stderr.lines.filter { $0.contains("journal compacted into a snapshot") }.count
                }
                print("  state snapshots written: \(compactions)")
                #expect(compactions > 0, "no snapshot was written — \(plan)")
                if !plan.faults.contains(.movieService) {
                    // Steppers that live through the run see every step of the journey acknowledged, some twice (an
                    // action issued again). A stepper killed after sending a STEP never logs its acknowledgement.
                    #expect(report.acknowledgedSteps >= reference.acknowledgedSteps, "\(report) — \(plan)")
                }
            }
        }
    }
}
