import Foundation
import Testing

extension FlowdIntegrationTests {
    /// `flowctl end-session` against flowd as a process: the session is ended and gone from `flowctl sessions`;
    /// ending it again is refused with `unknownSession` and exit code 1.
    @Test func flowctlEndSessionEndsASessionOnceAndThenRefusesIt() async throws {
        try await withCluster { cluster in
            _ = try await cluster.startFlowd()
            _ = try await cluster.flowctlSucceeding(["session", "create", "kiosk-9"])
            #expect(try await cluster.sessionSeqs().keys.sorted() == ["default", "kiosk-9"])

            let ended = try await cluster.flowctlSucceeding(["end-session", "kiosk-9"])
            #expect(ended.stdout.count == 1)
            #expect(ended.stdout.first?.hasPrefix("ended session kiosk-9 seq=") == true, "\(ended)")
            #expect(ended.stdout.first?.contains(" presenter=- attachments=") == true, "\(ended)")
            #expect(try await cluster.sessionSeqs().keys.sorted() == ["default"])

            let again = try await cluster.flowctl(["end-session", "kiosk-9"])
            #expect(again.exit == .exited(1), "\(again)")
            #expect(again.stdout == [])
            #expect(
                again.stderr == ["flowctl: flowd refused END_SESSION: unknownSession: no session 'kiosk-9'"], "\(again)"
            )
            let health = try await cluster.health()
            let counters = health["counters"] as? [String: Any]
            #expect(counters?["sessions_ended"] as? [String: Int] == ["operator": 1], "\(health)")
        }
    }

    @Test func flowctlSessionsPagesWithAfterLimitAndPrefixAndListsEveryPageWithout() async throws {
        try await withCluster { cluster in
            _ = try await cluster.startFlowd()
            for id in ["kiosk-1", "kiosk-2", "kiosk-3", "lobby"] {
                _ = try await cluster.flowctlSucceeding(["session", "create", id])
            }
            let ids = { (lines: [String]) in lines.map { String($0.prefix { $0 != " " }) } }
            let all = try await cluster.flowctlSucceeding(["sessions"])
            #expect(ids(all.stdout) == ["default", "kiosk-1", "kiosk-2", "kiosk-3", "lobby"], "\(all)")
            let kiosks = try await cluster.flowctlSucceeding(["sessions", "--prefix", "kiosk-"])
            #expect(ids(kiosks.stdout) == ["kiosk-1", "kiosk-2", "kiosk-3"], "\(kiosks)")
            let first = try await cluster.flowctlSucceeding(["sessions", "--prefix", "kiosk-", "--limit", "2"])
            #expect(ids(first.stdout) == ["kiosk-1", "kiosk-2", "(more:"], "\(first)")
            #expect(first.stdout.last == "(more: --after kiosk-2)", "\(first)")
            let second = try await cluster.flowctlSucceeding(["sessions", "--prefix", "kiosk-", "--after", "kiosk-2"])
            #expect(ids(second.stdout) == ["kiosk-3"], "\(second)")
        }
    }
}
