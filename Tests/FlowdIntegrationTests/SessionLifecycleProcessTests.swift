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
            // Each line has the session's figures; none is near the default bounds, so none is marked.
            #expect(all.stdout.allSatisfy { $0.contains(" screens=") && $0.contains(" outbox_bytes=") }, "\(all)")
            #expect(!all.stdout.contains { $0.contains("<-") }, "\(all)")
        }
    }

    /// With `daemon.max_session_screens` at 1, every session is at its bound: `flowctl sessions` marks each line with
    /// the bound and the share of it the session holds (its screens, from `--json`, in hundreds), and `flowctl health`
    /// shows the largest figures against their bounds.
    @Test func flowctlSessionsMarksASessionNearABoundAndHealthShowsTheLargestFigures() async throws {
        try await withCluster { cluster in
            let config = "\(cluster.runtimeDirectory)/flowd.json"
            try #"{"daemon": {"max_session_screens": 1}}"#.write(toFile: config, atomically: true, encoding: .utf8)
            _ = try await cluster.startFlowd(["--config", config])
            _ = try await cluster.flowctlSucceeding(["session", "create", "kiosk-1"])
            let json = try await cluster.flowctlSucceeding(["sessions", "--json"])
            let summaries = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [[String: Any]] ?? []
            let screens = Dictionary(
                uniqueKeysWithValues: summaries.map { ($0["id"] as? String ?? "", $0["screens"] as? Int ?? -1) })
            #expect(screens.keys.sorted() == ["default", "kiosk-1"] && screens.values.allSatisfy { $0 >= 1 }, "\(json)")
            let table = try await cluster.flowctlSucceeding(["sessions"])
            #expect(table.stdout.count == 2, "\(table)")
            for line in table.stdout {
                let id = String(line.prefix { $0 != " " })
                #expect(
                    line.hasSuffix("  <- \((screens[id] ?? 0) * 100)% of daemon.max_session_screens (steps refused)"),
                    "\(line)")
            }
            let health = try await cluster.flowctlSucceeding(["health"])
            let largest = health.stdout.first { $0.hasPrefix("largest session figures: ") }
            #expect(largest?.hasPrefix("largest session figures: screens=\(screens.values.max() ?? 0)/1 ") == true, "\(health)")
            #expect(largest?.contains(" outbox_bytes=") == true && largest?.hasSuffix("/1048576") == true, "\(health)")
        }
    }
}
