import FlowCore
import FlowDaemon
import FlowWire
import FlowdTesting
import Testing

/// §7.3: `SESSIONS` pages through the sessions sorted by ID (`after`, `limit`, `prefix`, `next`) from an index kept
/// sorted, without walking them.
struct SessionPagingTests {
    /// `default`, `a-00`…`a-09` and `b-00`…`b-14`, created out of order.
    private func harness(maxSessions: Int = 64) -> DaemonHarness {
        var configuration = DaemonConfiguration()
        configuration.maxSessions = maxSessions
        let h = DaemonHarness(configuration: configuration)
        h.hello(Peers.flowctl, .operator, name: "flowctl")
        let ids = (0..<15).map { "b-\(twoDigits($0))" } + (0..<10).reversed().map { "a-\(twoDigits($0))" }
        for (index, id) in ids.enumerated() {
            h.receive(.createSession(SessionRequest(req: UInt64(100 + index), session: id)), from: Peers.flowctl)
        }
        return h
    }

    private func twoDigits(_ number: Int) -> String { number < 10 ? "0\(number)" : "\(number)" }

    private func page(
        _ h: DaemonHarness, after: String? = nil, limit: Int? = nil, prefix: String? = nil
    ) throws -> SessionList {
        let request = SessionsRequest(req: 7, after: after, limit: limit, prefix: prefix)
        let sent = h.receive(.sessions(request), from: Peers.flowctl).to(Peers.flowctl)
        guard case .ok(let reply)? = sent.first, sent.count == 1 else {
            Issue.record("not one OK: \(sent)")
            return SessionList(sessions: [])
        }
        return try reply.result(as: SessionList.self)
    }

    @Test func pagesFollowOneAnotherThroughEverySessionInOrder() throws {
        let h = harness()
        var listed: [String] = []
        var after: String?
        var pages = 0
        repeat {
            let list = try page(h, after: after, limit: 10)
            #expect(list.sessions.count == (list.next == nil ? 6 : 10))
            #expect(list.next == (list.next == nil ? nil : list.sessions.last?.id))
            listed += list.sessions.map(\.id)
            after = list.next
            pages += 1
        } while after != nil && pages < 10
        #expect(pages == 3)
        #expect(listed == h.core.sessionIDs)
        #expect(listed.first == "a-00" && listed.last == "default")
    }

    @Test func aPrefixSelectsAContiguousRunAndEndsWithoutNext() throws {
        let h = harness()
        let first = try page(h, limit: 10, prefix: "b-")
        #expect(first.sessions.map(\.id) == (0..<10).map { "b-\(twoDigits($0))" })
        #expect(first.next == "b-09")
        let second = try page(h, after: "b-09", limit: 10, prefix: "b-")
        #expect(second.sessions.map(\.id) == (10..<15).map { "b-\(twoDigits($0))" })
        #expect(second.next == nil)
        // Exactly `limit` sessions match: no `next`, since nothing after them matches.
        let exact = try page(h, limit: 10, prefix: "a-")
        #expect(exact.sessions.count == 10)
        #expect(exact.next == nil)
        #expect(try page(h, prefix: "c").sessions.isEmpty)
        // `after` before the prefix's run starts at the run; after it, nothing.
        #expect(try page(h, after: "a-05", limit: 2, prefix: "b-").sessions.map(\.id) == ["b-00", "b-01"])
        #expect(try page(h, after: "b-99", prefix: "b-").sessions.isEmpty)
    }

    @Test func aPageStartsAfterAnIDThatNoLongerExists() throws {
        let h = harness()
        h.receive(.endSession(SessionRequest(req: 50, session: "a-05")), from: Peers.flowctl)
        let list = try page(h, after: "a-05", limit: 3)
        #expect(list.sessions.map(\.id) == ["a-06", "a-07", "a-08"])
        #expect(list.next == "a-08")
        // A session created since falls into its place.
        h.receive(.createSession(SessionRequest(req: 51, session: "a-065")), from: Peers.flowctl)
        #expect(try page(h, after: "a-06", limit: 1).sessions.map(\.id) == ["a-065"])
    }

    @Test func aLimitBelowOneIsRefusedAndOneAboveTheMaximumIsTheMaximum() throws {
        let h = harness(maxSessions: 2100)
        #expect(
            h.receive(.sessions(SessionsRequest(req: 9, limit: 0)), from: Peers.flowctl).sent
                == [Delivery(Peers.flowctl, refused(9, .malformedBody, .sessions))]
        )
        for index in 0..<2000 {
            h.receive(.createSession(SessionRequest(req: UInt64(1000 + index), session: "k-\(index)")), from: Peers.flowctl)
        }
        #expect(h.core.sessionCount == 2026)
        let defaultPage = try page(h)
        #expect(defaultPage.sessions.count == SessionsRequest.defaultLimit)
        #expect(defaultPage.next == defaultPage.sessions.last?.id)
        let largest = try page(h, limit: 1_000_000)
        #expect(largest.sessions.count == SessionsRequest.maxLimit)
        #expect(largest.next == h.core.sessionIDs[SessionsRequest.maxLimit - 1])
    }

    @Test func aPageLooksUpItsOwnSessionsAndWalksNone() throws {
        let h = harness()
        let before = h.core.sessionVisits
        let list = try page(h, after: "a-03", limit: 4)
        #expect(list.sessions.map(\.id) == ["a-04", "a-05", "a-06", "a-07"])
        #expect(h.core.sessionVisits.walks == before.walks)
        #expect(h.core.sessionVisits.lookups - before.lookups == 4)
    }
}
