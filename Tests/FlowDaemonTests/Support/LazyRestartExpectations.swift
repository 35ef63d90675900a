import FlowCore
import FlowDaemon
import FlowWire
import FlowdTesting
import Testing

/// What a restart that leaves sessions pending must show against one that made them at start.
extension DaemonHarness {
    /// Requests that read or change `session`, each sent first while it is pending, by name.
    static func firstUses(of session: String) -> [(String, ClientMessage)] {
        [
            ("SESSIONS", .sessions(SessionsRequest(req: 5))),
            ("TREE", .tree(SessionRequest(req: 5, session: session))),
            ("END_SESSION", .endSession(SessionRequest(req: 5, session: session))),
            ("DEEPLINK", .deepLink(DeepLinkRequest(req: 5, session: session, step: Step("openDetail", payload: 3)))),
            ("DESCRIBE", .describe(DescribeRequest(req: 5, session: session))),
        ]
    }

    /// `message` from `peer` gets the same replies and events from `lazy` as from `eager`.
    static func expectSameOutcome(
        of message: ClientMessage, from peer: PeerAddress, eager: DaemonHarness, lazy: DaemonHarness, _ name: String
    ) {
        let eagerOutcome = eager.receive(message, from: peer)
        let lazyOutcome = lazy.receive(message, from: peer)
        #expect(lazyOutcome.sent == eagerOutcome.sent, "\(name)")
        #expect(lazyOutcome.events == eagerOutcome.events, "\(name)")
    }

    /// Once `lazy` made its pending sessions: the same sessions, states and next snapshot's bytes as `eager`.
    static func expectSameSessionsOnceMade(eager: DaemonHarness, lazy: DaemonHarness, _ name: String) {
        lazy.daemon.makePendingSessions()
        #expect(lazy.core.sessionIDs == eager.core.sessionIDs, "\(name)")
        for id in eager.core.sessionIDs { #expect(lazy.state(of: id) == eager.state(of: id), "\(name): \(id)") }
        eager.core.compactJournal()
        lazy.core.compactJournal()
        #expect(lazy.core.journalSnapshotPayload == eager.core.journalSnapshotPayload, "\(name)")
    }

    /// A stepper process `peer` serving `serves` connects to both; `lazy` makes its pending sessions one a turn: the
    /// same `ATTACH`es, holdings and states as `eager`. Returns how many turns it took.
    @discardableResult
    static func expectSameAttachesMadeInTheBackground(
        eager: DaemonHarness, lazy: DaemonHarness, stepper peer: PeerAddress, serves: [String]
    ) -> Int {
        let eagerAttaches = eager.hello(peer, .stepper, name: "movies", serves: serves).to(peer)
        var lazyAttaches = lazy.hello(peer, .stepper, name: "movies", serves: serves).to(peer)
        var turns = 0
        while lazy.core.pendingSessionCount > 0 {
            lazy.daemon.makePendingSessions(limit: 1)
            lazyAttaches += lazy.tick(at: UInt64(100 * (turns + 1))).to(peer)
            turns += 1
        }
        let attaches = { (messages: [DaemonMessage]) in
            messages.filter { if case .attach = $0 { true } else { false } }.map { "\($0)" }.sorted()
        }
        #expect(!attaches(eagerAttaches).isEmpty)
        #expect(attaches(lazyAttaches) == attaches(eagerAttaches))
        #expect(lazy.core.holdingsMismatches.isEmpty)
        for id in eager.core.sessionIDs { #expect(lazy.state(of: id) == eager.state(of: id), "session \(id)") }
        return turns
    }
}
