import Foundation
import Testing

extension FlowdIntegrationTests {
    /// docs/PROTOCOL.md §5: two login services (names of their own) under one daemon share the sessions'
    /// attachments. Every session of the movie flows has three of their kinds (`login.app`, then `login.form` and
    /// `login.logout` as the flows go on): the default session's go to the first process, alone then; the second
    /// joins holding none, so it takes the next three, and from then on each attachment goes to the one holding
    /// fewer, ties to `login-a`: 8 and 7 of 15, whatever the order in which the sessions' attachments come.
    @Test func twoServiceProcessesOfOneKindShareTheAttachments() async throws {
        try await withCluster { cluster in
            let daemon = try await cluster.startFlowd()
            let (first, second) = try await startTwoLoginServicesWithFiveSessions(cluster, daemon)
            let a = attachments(loggedBy: first)
            let b = attachments(loggedBy: second)
            #expect(a.count == 8 && b.count == 7, "a: \(a), b: \(b)")
            #expect(Set(a).isDisjoint(with: b), "each attachment to one process")
        }
    }

    /// login-a, then login-b once login-a has the default session's attachments, then 4 sessions more; returns once
    /// login-a logged 8 attachments and login-b 7.
    func startTwoLoginServicesWithFiveSessions(
        _ cluster: Cluster, _ daemon: Daemon
    ) async throws -> (ManagedProcess, ManagedProcess) {
        let first = try cluster.startLoginService(["--name", "login-a"])
        try await waitForAttachments(of: first, kinds: ["login.app", "login.form", "login.logout"])
        let joined = daemon.process.stderr.count
        let second = try cluster.startLoginService(["--name", "login-b"])
        try await daemon.process.waitForError(from: joined, "login-b to join") {
            $0.contains("peer joined") && $0.contains("name=login-b")
        }
        for index in 1...4 { _ = try await cluster.flowctlSucceeding(["session", "create", "kiosk-\(index)"]) }
        try await waitForShares(first, 8, second, 7)
        return (first, second)
    }

    /// Waits until `first` and `second` logged `firstCount` and `secondCount` attachments.
    func waitForShares(
        _ first: ManagedProcess, _ firstCount: Int, _ second: ManagedProcess, _ secondCount: Int
    ) async throws {
        for (service, count) in [(first, firstCount), (second, secondCount)] {
            var from = 0
            for _ in 0..<count {
                from = 1 + (try await service.waitForError(from: from, "an attachment") { $0.hasSuffix(" attached") })
            }
        }
    }
}
