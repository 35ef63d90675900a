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
            let config = cluster.runtimeDirectory + "/flowd-grace.json"
            try Data(#"{"daemon": {"restart_grace_ms": 60000}}"#.utf8).write(to: URL(fileURLWithPath: config))
            let arguments = ["--state-dir", cluster.runtimeDirectory + "/state", "--config", config]
            var daemon = try await cluster.startFlowd(arguments)
            var (first, second) = try await startTwoLoginServicesWithFiveSessions(cluster, daemon)

            // flowd dies with both connected (a BYE would take a process off the names it keeps), then they stop.
            await daemon.process.kill9()
            _ = await first.stop()
            _ = await second.stop()
            daemon = try await cluster.startFlowd(arguments)
            first = try cluster.startLoginService(["--name", "login-a"])
            try await daemon.process.waitForError("login-a back") {
                $0.contains("peer joined") && $0.contains("name=login-a")
            }
            second = try cluster.startLoginService(["--name", "login-b"])
            try await waitForShares(first, 8, second, 7)
            let a = attachments(loggedBy: first)
            let b = attachments(loggedBy: second)
            #expect(a.count == 8 && b.count == 7, "a: \(a), b: \(b)")
            #expect(Set(a).isDisjoint(with: b), "each attachment to one process")
            let back = daemon.process.stderr.lines.contains { $0.contains("every stepper process of the last run is back") }
            #expect(back, "the grace ended at login-b's HELLO")
        }
    }
}
