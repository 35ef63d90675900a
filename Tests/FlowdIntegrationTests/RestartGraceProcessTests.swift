import Foundation
import Testing

extension FlowdIntegrationTests {
    /// docs/PROTOCOL.md §5.1: after a restart, two login services (names of their own) share the restored
    /// attachments, where the first back took them all before. flowd is SIGKILLed with 15 attachments of their kinds
    /// (5 sessions of 3) and started again on its state; a new login-a says `HELLO` first, and gets none until login-b
    /// is back too (the state directory's `stepper-names` has both, connected when flowd died), then each goes to the
    /// one holding fewer, ties to login-a: 8 and 7. The grace is a minute, so only login-b's `HELLO` can end it within the test.
    @Test func twoServiceProcessesOfOneKindShareTheRestoredAttachmentsAfterARestart() async throws {
        try await withCluster { cluster in
            let arguments = try graceOfAMinute(cluster)
            let daemon = try await cluster.startFlowd(arguments)
            let (first, second) = try await startTwoLoginServicesWithFiveSessions(cluster, daemon)

            // flowd dies with both connected, then they stop.
            await daemon.process.kill9()
            _ = await first.stop()
            _ = await second.stop()
            let restarted = try await startAgainThenLoginAThenLoginB(cluster, arguments)
            let back = restarted.process.stderr.lines.contains {
                $0.contains("every stepper process of the last run is back")
            }
            #expect(back, "the grace ended at login-b's HELLO")
        }
    }

    /// docs/PROTOCOL.md §5.1: a planned restart, the way systemd does one with the shipped units (PartOf=): the two
    /// login services say `BYE` and exit, flowd gets SIGTERM, then flowd and the services start again. Their names
    /// stay in `stepper-names` after `BYE` (no other process of their kinds joined after them), so login-a, back
    /// first, waits for login-b, and they share: 8 and 7 (where login-a took all 15 before).
    @Test func aPlannedRestartWhereTheServicesStopFirstIsSharedToo() async throws {
        try await withCluster { cluster in
            let arguments = try graceOfAMinute(cluster)
            let daemon = try await cluster.startFlowd(arguments)
            let (first, second) = try await startTwoLoginServicesWithFiveSessions(cluster, daemon)

            for (service, name) in [(first, "login-a"), (second, "login-b")] {
                let from = daemon.process.stderr.count
                _ = await service.stop()  // SIGTERM: the service says BYE and exits
                try await daemon.process.waitForError(from: from, "\(name) to leave") {
                    $0.contains("peer left") && $0.contains("name=\(name)")
                }
            }
            let stopped = await daemon.process.stop()
            #expect(stopped == .exited(0), "flowd stops on SIGTERM")
            _ = try await startAgainThenLoginAThenLoginB(cluster, arguments)
        }
    }

    /// flowd's arguments for a state directory and a grace of a minute: only login-b's `HELLO` can end it in a test.
    private func graceOfAMinute(_ cluster: Cluster) throws -> [String] {
        let config = cluster.runtimeDirectory + "/flowd-grace.json"
        try Data(#"{"daemon": {"restart_grace_ms": 60000}}"#.utf8).write(to: URL(fileURLWithPath: config))
        return ["--state-dir", cluster.runtimeDirectory + "/state", "--config", config]
    }

    /// Starts flowd again on its state, then login-a, then (once login-a joined and `flowctl health` shows login-b
    /// awaited) login-b, and expects them to share the 15 restored attachments, 8 and 7; returns the restarted flowd.
    private func startAgainThenLoginAThenLoginB(_ cluster: Cluster, _ arguments: [String]) async throws -> Daemon {
        let daemon = try await cluster.startFlowd(arguments)
        let first = try cluster.startLoginService(["--name", "login-a"])
        try await daemon.process.waitForError("login-a back") {
            $0.contains("peer joined") && $0.contains("name=login-a")
        }
        // HEALTH shows the grace in progress (PROTOCOL §7 `restart_grace`): each kind login-a serves awaits login-b.
        let health = try await cluster.flowctlSucceeding(["health"])
        let grace = health.stdout.first { $0.hasPrefix("restart grace: ") }
        let awaited = ["login.apiKey", "login.app", "login.form", "login.logout"].map { "\($0)=login-b" }
        #expect(grace?.hasSuffix(" ms left, awaiting " + awaited.joined(separator: " ")) == true, "\(health)")
        let second = try cluster.startLoginService(["--name", "login-b"])
        try await waitForShares(first, 8, second, 7)
        let a = attachments(loggedBy: first)
        let b = attachments(loggedBy: second)
        #expect(a.count == 8 && b.count == 7, "a: \(a), b: \(b)")
        #expect(Set(a).isDisjoint(with: b), "each attachment to one process")
        return daemon
    }
}
