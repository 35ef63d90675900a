import FlowCore
import FlowDaemon
import FlowWire
import FlowdTesting
import Foundation
import TestFlows
import Testing

/// What a session holds against its bounds, as `SESSIONS` reports it (docs/PROTOCOL.md §7.3, docs/LIMITS.md): the
/// numbers at each change (step, back, a person's dismissal), and the same numbers after a restart by journal replay
/// and by snapshot, and after a hibernation.
struct SessionUsageTests {
    private func harness(outbox: Int = 1024, outboxBytes: Int = 1 << 20, hibernateAfterS: Int = 0) -> DaemonHarness {
        var configuration = DaemonConfiguration()
        configuration.outboxLimit = outbox
        configuration.outboxBytesLimit = outboxBytes
        configuration.hibernateAfterS = hibernateAfterS
        let h = DaemonHarness(configuration: configuration, journaling: true)
        h.hello(Peers.flowctl, .operator, name: "flowctl", heartbeatMs: 60_000, at: 0)
        return h
    }

    /// The session's summary in a `SESSIONS` page.
    private func summary(_ h: DaemonHarness, _ session: String = "default") throws -> SessionSummary? {
        let sent = h.receive(.sessions(SessionsRequest(req: 900, prefix: session)), from: Peers.flowctl)
            .to(Peers.flowctl)
        guard case .ok(let reply)? = sent.first, sent.count == 1 else {
            Issue.record("not one OK: \(sent)")
            return nil
        }
        return try reply.result(as: SessionList.self).sessions.first { $0.id == session }
    }

    private func usage(_ h: DaemonHarness, _ session: String = "default") throws -> SessionUsage? {
        try summary(h, session)?.usage
    }

    /// The default session's screens and their bytes, walked in its UI model (LIMITS' formula, screen by screen).
    private func walkedUI(_ h: DaemonHarness) -> (screens: Int, bytes: Int) {
        guard let ui = h.core.ui(of: "default") else { return (-1, -1) }
        return (ui.count, ui.presentables.reduce(0) { $0 + ui.screen($1)!.estimatedBytes })
    }

    private func expectTheUI(_ usage: SessionUsage?, _ h: DaemonHarness, _ comment: Comment) {
        let walked = walkedUI(h)
        #expect(usage?.screens == walked.screens && usage?.uiBytes == walked.bytes, comment)
    }

    @Test func eachChangeMovesTheNumbersAsTheUIAndTheOutboxHoldThem() throws {
        let h = harness()
        // `app` (48) and `home` (66), the root's stepper and home's: what a new session holds.
        let first = try usage(h)
        #expect(first?.screens == 2 && first?.uiBytes == 114 && first?.attachments == 2, "\(String(describing: first))")
        #expect(first?.outboxCommands == Int(h.core.seq(of: "default") ?? 0))
        var outboxBytes = first?.outboxBytes ?? 0
        #expect(outboxBytes > 0)

        // Each detail adds a screen (67 bytes), its stepper, a command.
        for movie in 1...3 {
            h.deepLink(Peers.flowctl, Step("openDetail", payload: .int(movie)), req: UInt64(movie))
            let now = try usage(h)
            #expect(now?.screens == 2 + movie && now?.uiBytes == 114 + 67 * movie && now?.attachments == 2 + movie)
            #expect(now?.outboxCommands == Int(h.core.seq(of: "default") ?? 0))
            #expect((now?.outboxBytes ?? 0) > outboxBytes, "a command more")
            outboxBytes = now?.outboxBytes ?? 0
            expectTheUI(now, h, "after detail \(movie)")
            #expect(try summary(h)?.steppers == now?.attachments, "the same number as steppers")
        }

        // Back: the top detail and its stepper go; the pop is one command more in the outbox.
        h.deepLink(Peers.flowctl, Step("back"), req: 10)
        let back = try usage(h)
        #expect(back?.screens == 4 && back?.uiBytes == 248 && back?.attachments == 4, "\(String(describing: back))")
        #expect(back?.outboxCommands == Int(h.core.seq(of: "default") ?? 0))
        expectTheUI(back, h, "after back")

        // A person dismisses the top detail: the UI shrinks, the outbox does not (no command).
        h.presenter(Peers.tui, name: "tui")
        h.report(Peers.tui, [("app", .visible), ("home", .visible)])
        let beforeDismissal = try usage(h)
        h.report(Peers.tui, [(Screens.detail(2).id, .dismissed), (Screens.detail(1).id, .visible)], req: 11)
        let dismissed = try usage(h)
        #expect(dismissed?.screens == 3 && dismissed?.uiBytes == 181, "\(String(describing: dismissed))")
        #expect(dismissed?.outboxCommands == beforeDismissal?.outboxCommands)
        #expect(dismissed?.outboxBytes == beforeDismissal?.outboxBytes)
        expectTheUI(dismissed, h, "after the dismissal")
    }

    @Test func aRestartByReplayOrBySnapshotComesBackToTheSameNumbers() throws {
        let h = harness()
        for movie in 1...4 { h.deepLink(Peers.flowctl, Step("openDetail", payload: .int(movie)), req: UInt64(movie)) }
        h.core.compactJournal()
        let bySnapshot = try usage(h)
        for restarted in [try h.restarted(), try h.restarted(lazily: true)] {
            restarted.hello(Peers.flowctl, .operator, name: "flowctl")
            #expect(try usage(restarted) == bySnapshot, "the snapshot alone")
        }
        // Records after the snapshot: replayed on it.
        for movie in 5...7 { h.deepLink(Peers.flowctl, Step("openDetail", payload: .int(movie)), req: UInt64(movie)) }
        h.deepLink(Peers.flowctl, Step("back"), req: 20)
        let byReplay = try usage(h)
        #expect(byReplay != bySnapshot)
        for restarted in [try h.restarted(), try h.restarted(lazily: true)] {
            restarted.hello(Peers.flowctl, .operator, name: "flowctl")
            #expect(try usage(restarted) == byReplay, "the snapshot and the journal after it")
        }
    }

    @Test func aHibernatedSessionIsListedAsItWasWithoutBeingMade() throws {
        let h = harness(hibernateAfterS: 30)
        for movie in 1...5 { h.deepLink(Peers.flowctl, Step("openDetail", payload: .int(movie)), req: UInt64(movie)) }
        let awake = try summary(h)
        h.tick(at: 31_000)
        #expect(h.core.hibernatedSessionCount == 1)
        #expect(try summary(h) == awake)
        #expect(h.core.hibernatedSessionCount == 1, "not woken for its row")
        // Made again by a use: the same figures.
        h.receive(.tree(SessionRequest(req: 40, session: "default")), from: Peers.flowctl)
        #expect(h.core.hibernatedSessionCount == 0)
        #expect(try summary(h) == awake)
    }

    /// The journal's records with the `usage` field taken out of each `state` record: as a flowd before it wrote them.
    private func withoutUsage(_ records: [[UInt8]]) throws -> [[UInt8]] {
        let field = try Regex(#","usage":\{[^{}]*\}(,"v":[0-9]+\})$"#)
        return records.map { Array(String(decoding: $0, as: UTF8.self).replacing(field) { $0.output[1].substring! }.utf8) }
    }

    @Test func aSessionHibernatedWithItsUIUnreadIsListedFromItsRecordsUsage() throws {
        let h = harness(hibernateAfterS: 30)
        for movie in 1...5 { h.deepLink(Peers.flowctl, Step("openDetail", payload: .int(movie)), req: UInt64(movie)) }
        h.core.compactJournal()
        let before = try summary(h)
        let stripped = try withoutUsage(h.core.journalHistory)
        #expect(stripped != h.core.journalHistory && stripped.count == h.core.journalHistory.count)
        // Restarted lazily, made (its UI left unread) by a TREE, then idle: it hibernates with its UI unread. Its
        // record's usage gives the row; a record before the field does not, and the row makes it.
        for (journal, made) in [(h.core.journalHistory, false), (stripped, true)] {
            let restarted = try h.restarted(journal: journal, lazily: true)
            restarted.hello(Peers.flowctl, .operator, name: "flowctl", heartbeatMs: 60_000, at: 0)
            restarted.receive(.tree(SessionRequest(req: 41, session: "default")), from: Peers.flowctl)
            restarted.tick(at: 31_000)
            #expect(restarted.core.hibernatedSessionCount == 1)
            #expect(try summary(restarted) == before)
            #expect(restarted.core.hibernatedSessionCount == (made ? 0 : 1), "made for its row: \(made)")
        }
    }

    @Test func healthCountsPendingSessionsFromTheirRecordsWithoutMakingThem() throws {
        let h = harness()
        h.receive(.createSession(SessionRequest(req: 50, session: "kiosk")), from: Peers.flowctl)
        for movie in 1...3 { h.deepLink(Peers.flowctl, Step("openDetail", payload: .int(movie)), req: UInt64(movie)) }
        for movie in 1...6 {
            h.deepLink(Peers.flowctl, Step("openDetail", payload: .int(movie)), session: "kiosk", req: UInt64(10 + movie))
        }
        h.core.compactJournal()
        let largest = try #require(try health(h)?.sessionUsageMax)
        #expect(largest == (try usage(h, "kiosk")))
        let restarted = try h.restarted(lazily: true)
        restarted.hello(Peers.flowctl, .operator, name: "flowctl")
        #expect(restarted.core.pendingSessionCount == 2)
        #expect(try health(restarted)?.sessionUsageMax == largest)
        #expect(restarted.core.pendingSessionCount == 2, "not made for HEALTH")
        // Made with its UI unread (a TREE): counted as its record said, still unread.
        restarted.receive(.tree(SessionRequest(req: 41, session: "kiosk")), from: Peers.flowctl)
        #expect(restarted.core.pendingSessionCount == 1)
        #expect(try health(restarted)?.sessionUsageMax == largest)
        // A journal written before the field: pending sessions count 0 until made.
        let old = try h.restarted(journal: try withoutUsage(h.core.journalHistory), lazily: true)
        old.hello(Peers.flowctl, .operator, name: "flowctl")
        #expect(try health(old)?.sessionUsageMax == .zero)
        #expect(old.core.pendingSessionCount == 2)
        #expect(try usage(old, "kiosk") == largest, "made for its row: the same figures")
        #expect(try health(old)?.sessionUsageMax == largest)
    }

    @Test func theOutboxFiguresStayWithinItsBounds() throws {
        let h = harness(outbox: 4)
        for movie in 1...6 { h.deepLink(Peers.flowctl, Step("openDetail", payload: .int(movie)), req: UInt64(movie)) }
        let usage = try usage(h)
        #expect(usage?.outboxCommands == 4)
        #expect(Int(h.core.seq(of: "default") ?? 0) > 4)
        let bytes = harness(outboxBytes: 1024)
        for movie in 1...40 {
            bytes.deepLink(Peers.flowctl, Step("openDetail", payload: .int(movie)), req: UInt64(movie))
        }
        let byBytes = try self.usage(bytes)
        #expect((byBytes?.outboxBytes ?? .max) <= 1024 && (byBytes?.outboxCommands ?? 0) >= 1)
        #expect((byBytes?.outboxCommands ?? .max) < Int(bytes.core.seq(of: "default") ?? 0))
    }

    private func health(_ h: DaemonHarness) throws -> HealthReport? {
        let sent = h.receive(.health(PlainRequest(req: 901)), from: Peers.flowctl).to(Peers.flowctl)
        guard case .ok(let reply)? = sent.first, sent.count == 1 else {
            Issue.record("not one OK: \(sent)")
            return nil
        }
        return try reply.result(as: HealthReport.self)
    }

    @Test func healthHasTheBoundsAndTheLargestOfEachFigureOverTheSessions() throws {
        let h = harness(outbox: 6, hibernateAfterS: 30)
        let bounds = SessionUsage(screens: 20_000, uiBytes: 64 << 20, attachments: 20_000, outboxCommands: 6, outboxBytes: 1 << 20)
        #expect(try health(h)?.sessionBounds == bounds)
        #expect(try health(h)?.sessionUsageMax == usage(h))
        // Two sessions: the largest figures may be each another one's.
        h.receive(.createSession(SessionRequest(req: 50, session: "kiosk")), from: Peers.flowctl)
        for movie in 1...3 { h.deepLink(Peers.flowctl, Step("openDetail", payload: .int(movie)), req: UInt64(movie)) }
        for movie in 1...8 {
            h.deepLink(Peers.flowctl, Step("openDetail", payload: .int(movie)), session: "kiosk", req: UInt64(10 + movie))
        }
        h.deepLink(Peers.flowctl, Step("back"), session: "kiosk", req: 30)
        let one = try #require(try usage(h)), other = try #require(try usage(h, "kiosk"))
        #expect(try health(h)?.sessionUsageMax == one.maximum(other))
        #expect(one.maximum(other) == other, "kiosk holds more of each")
        // A hibernated session is not made for HEALTH: it counts what it held as it hibernated.
        h.tick(at: 31_000)
        #expect(h.core.hibernatedSessionCount == 2)
        #expect(try health(h)?.sessionUsageMax == one.maximum(other))
        #expect(h.core.hibernatedSessionCount == 2)
    }

    @Test func anUnrestorableSessionHasNoFiguresAndOldSummariesDecodeWithout() throws {
        let old = Data(#"{"id": "default", "flows": 9, "presenter": "tui", "seq": 57, "steppers": 4}"#.utf8)
        let decoded = try JSONDecoder().decode(SessionSummary.self, from: old)
        #expect(decoded.usage == nil && decoded.screens == nil)
        #expect(decoded.description == "default flows=9 presenter=tui seq=57 steppers=4")
        let unrestorable = SessionSummary(id: "k", flows: 0, presenter: nil, seq: 0, steppers: 0, unrestorable: true)
        let encoded = String(decoding: try JSONEncoder().encode(unrestorable), as: UTF8.self)
        #expect(!encoded.contains("screens") && !encoded.contains("ui_bytes"))
        let full = SessionSummary(
            id: "default", flows: 1, presenter: nil, seq: 3, steppers: 2,
            usage: SessionUsage(screens: 2, uiBytes: 114, attachments: 2, outboxCommands: 3, outboxBytes: 300))
        let round = try JSONDecoder().decode(SessionSummary.self, from: try JSONEncoder().encode(full))
        #expect(round == full)
        #expect(
            full.description
                == "default flows=1 presenter=- seq=3 steppers=2 screens=2 ui_bytes=114 attachments=2 "
                + "outbox_commands=3 outbox_bytes=300")
    }
}
