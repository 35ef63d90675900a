import FlowCore
import FlowDaemon
import FlowWire
import FlowdTesting
import Foundation
import TestFlows
import Testing

/// docs/RELIABILITY.md, `state` records' `usage`: a hint for `HEALTH` and `SESSIONS` while a session's UI is unread,
/// never a bound. A field that disagrees with the session is shown until the session's UI is read, then the session's
/// own figures; a field the header cannot read (a number past an `Int`) counts as none.
struct SessionUsageRecordFaultTests {
    private func harness() -> DaemonHarness {
        let h = DaemonHarness(configuration: DaemonConfiguration(), journaling: true)
        h.hello(Peers.flowctl, .operator, name: "flowctl", heartbeatMs: 60_000, at: 0)
        return h
    }

    private func ok<Result: WireResult>(
        _ h: DaemonHarness, _ request: ClientMessage, as: Result.Type
    ) throws -> Result? {
        let sent = h.receive(request, from: Peers.flowctl).to(Peers.flowctl)
        guard case .ok(let reply)? = sent.first, sent.count == 1 else {
            Issue.record("not one OK: \(sent)")
            return nil
        }
        return try reply.result(as: Result.self)
    }

    private func largest(_ h: DaemonHarness) throws -> SessionUsage? {
        try ok(h, .health(PlainRequest(req: 901)), as: HealthReport.self)?.sessionUsageMax
    }

    /// The journal with each `state` record's `usage` replaced by `usage` (the field's text).
    private func withUsage(_ usage: String, _ records: [[UInt8]]) throws -> [[UInt8]] {
        let field = try Regex(#","usage":\{[^{}]*\}(,"v":[0-9]+\})$"#)
        return records.map { record in
            let text = String(decoding: record, as: UTF8.self)
            return Array(text.replacing(field) { ",\"usage\":\(usage)" + $0.output[1].substring! }.utf8)
        }
    }

    @Test func aUsageThatDisagreesIsShownUntilTheUIIsReadThenTheSessionsOwn() throws {
        let h = harness()
        for movie in 1...3 { h.deepLink(Peers.flowctl, Step("openDetail", payload: .int(movie)), req: UInt64(movie)) }
        h.core.compactJournal()
        let truth = try #require(try largest(h))
        let giant = "999999999999999999"  // 18 digits: read, as any `Int` is
        let lie = #"{"attachments":7,"outbox_bytes":\#(giant),"outbox_commands":0,"screens":1,"ui_bytes":\#(giant)}"#
        let journal = try withUsage(lie, h.core.journalHistory)
        #expect(journal != h.core.journalHistory)
        let restarted = try h.restarted(journal: journal, lazily: true)
        restarted.hello(Peers.flowctl, .operator, name: "flowctl", heartbeatMs: 60_000, at: 0)
        let shown = try #require(try largest(restarted))
        #expect(shown.uiBytes == 999_999_999_999_999_999 && shown.outboxBytes == 999_999_999_999_999_999)
        #expect(restarted.core.pendingSessionCount == 1, "not made for HEALTH")
        // A step reads the UI: the figures are the session's again, and nothing was refused for the record's.
        restarted.deepLink(Peers.flowctl, Step("openDetail", payload: .int(4)), req: 10)
        let after = try #require(try largest(restarted))
        #expect(after.uiBytes < 1 << 20 && after.uiBytes >= truth.uiBytes && after.outboxBytes < 1 << 20)
        #expect((restarted.core.seq(of: "default") ?? 0) > (h.core.seq(of: "default") ?? .max), "the step was taken")
    }

    /// 20 and 21 digits, beyond an `Int`: not counted while pending, restored all the same.
    @Test func aUsageTheHeaderCannotReadCountsAsNoneAndTheSessionIsRestored() throws {
        let h = harness()
        for movie in 1...3 { h.deepLink(Peers.flowctl, Step("openDetail", payload: .int(movie)), req: UInt64(movie)) }
        h.core.compactJournal()
        let truth = try #require(try largest(h))
        for digits in [20, 21] {
            let figure = "1" + String(repeating: "0", count: digits - 1)
            let long = #"{"attachments":7,"outbox_bytes":1,"outbox_commands":0,"screens":1,"ui_bytes":\#(figure)}"#
            let restarted = try h.restarted(journal: try withUsage(long, h.core.journalHistory), lazily: true)
            restarted.hello(Peers.flowctl, .operator, name: "flowctl", heartbeatMs: 60_000, at: 0)
            #expect(try largest(restarted) == .zero, "a pending session without figures counts 0 until made")
            #expect(restarted.core.pendingSessionCount == 1)
            restarted.deepLink(Peers.flowctl, Step("openDetail", payload: .int(4)), req: 10)
            #expect((restarted.core.seq(of: "default") ?? 0) > (h.core.seq(of: "default") ?? .max), "\(digits) digits")
            #expect(try largest(restarted)?.uiBytes ?? 0 >= truth.uiBytes, "the session's own figures")
        }
    }
}
