import FlowCore
import FlowDaemon
import FlowWire
import FlowdTesting
import Foundation
import Testing
import ZeroMQ

// MARK: - A daemon with an allow-list

/// A ``DaemonHarness`` whose daemon holds an ``AccessPolicy``: every message arrives as the transport gives it, with
/// its connection's `User-Id` (the public key, Z85, the ZAP handler returned), or none; each call returns what the
/// daemon sent (error texts blanked).
private struct SecureDaemon {
    let harness: DaemonHarness
    var core: DaemonCore {
        get { harness.core }
        nonmutating set { harness.core = newValue }
    }

    init(policy: AccessPolicy) { harness = DaemonHarness(accessPolicy: policy) }

    /// `message` from `peer` whose connection is `key`'s.
    @discardableResult
    func send(_ message: ClientMessage, from peer: PeerAddress, key: String?) -> [Delivery] {
        harness.receive(message, from: peer, userID: key).sent
    }

    /// A new allow-list, as `flowd` hands it over on SIGHUP.
    @discardableResult
    func replacePolicy(with policy: AccessPolicy) -> [Delivery] { harness.handle(.accessPolicyChanged(policy)).sent }

    /// `message` from `peer` as a transport without authentication gives it.
    @discardableResult
    func sendUnauthenticated(_ message: ClientMessage, from peer: PeerAddress) -> [Delivery] {
        harness.receive(message, from: peer).sent
    }

    @discardableResult
    func hello(_ peer: PeerAddress, _ role: PeerRole, name: String, key: String?, serves: [String] = []) -> [Delivery] {
        send(
            .hello(Hello(req: 1, role: role, name: name, instance: "run", heartbeatMs: 1000, serves: serves)),
            from: peer, key: key
        )
    }
}

/// The daemon with `movies` (serving `home` and `detail`) and `tui` (hosting `default`, showing `home`) in.
private func homeShown() throws -> SecureDaemon {
    let daemon = SecureDaemon(policy: try testPolicy())
    daemon.hello(Peers.movies, .stepper, name: "movies", key: AllowListKeys.movies.z85, serves: ["home", "detail"])
    daemon.hello(Peers.tui, .presenter, name: "tui", key: AllowListKeys.tui.z85)
    daemon.send(.sync(Sync(req: 2, session: "default", lastSeq: 0, create: false)), from: Peers.tui, key: AllowListKeys.tui.z85)
    daemon.send(
        .report(
            Report(
                req: 3, session: "default",
                reports: [
                    PresentableReport(presentable: "app", state: .visible),
                    PresentableReport(presentable: "home", state: .visible),
                ]
            )
        ),
        from: Peers.tui, key: AllowListKeys.tui.z85
    )
    return daemon
}

private func stepMessage(_ name: String, attachment: Int = 2, req: UInt64 = 31) -> ClientMessage {
    .step(StepMessage(req: req, session: "default", attachment: attachment, step: Step(name)))
}

// MARK: - Tests

/// docs/SECURITY.md: the daemon holds every peer to its key's allow-list entry.
struct SecurityTests {
    // MARK: Changing the allow-list (SIGHUP)

    /// `tui` taken off the allow-list: its peer is forgotten at once (its screens count as not visible, the session
    /// has no host), its next message gets `notWelcome` and its `HELLO` again `forbidden`; `movies`, unchanged, keeps
    /// its connection and attachments.
    @Test func aKeyTakenOffTheAllowListIsForgottenAndCannotSayHelloAgain() throws {
        let daemon = try homeShown()
        let revoked = try testPolicy { $0.removeAll { $0.name == "tui" } }
        #expect(daemon.replacePolicy(with: revoked) == [])
        #expect(daemon.core.peerCounts == [.stepper: 1])
        #expect(daemon.core.counters.peersRevoked == 1)
        #expect(daemon.core.accessPolicy == revoked)
        let report = ClientMessage.report(
            Report(req: 4, session: "default", reports: [PresentableReport(presentable: "home", state: .visible)]))
        #expect(
            daemon.send(report, from: Peers.tui, key: AllowListKeys.tui.z85) == [
                Delivery(Peers.tui, refused(4, .notWelcome, .report))
            ])
        #expect(
            daemon.hello(Peers.tui, .presenter, name: "tui", key: AllowListKeys.tui.z85) == [
                Delivery(Peers.tui, refused(1, .forbidden, .hello))
            ])
        // `movies` is still in: its step is judged (not refused), and dropped because nobody shows `home` now.
        let step = daemon.send(stepMessage("openDetail"), from: Peers.movies, key: AllowListKeys.movies.z85)
        #expect(step == [Delivery(Peers.movies, ok(31, dropped("notVisible")))])
        guard case .object(let counters) = daemon.core.counters.json(hibernatedNow: 0) else {
            Issue.record("the counters are not a JSON object")
            return
        }
        #expect(counters["peers_revoked"] == .int(1))
    }

    /// A key replaced under the same name (the old one leaked): the connection admitted with the old key is forgotten
    /// and its `HELLO` is `forbidden` (the daemon knows a connection by its key, not by the name); the new key gets in.
    @Test func aKeyReplacedUnderTheSameNameLocksOutTheOldConnection() throws {
        let daemon = try homeShown()
        let rotated = try testPolicy { clients in
            let index = clients.firstIndex { $0.name == "tui" }!
            clients[index].publicKey = AllowListKeys.stranger.z85
        }
        daemon.replacePolicy(with: rotated)
        #expect(daemon.core.peerCounts == [.stepper: 1])
        #expect(
            daemon.hello(Peers.tui, .presenter, name: "tui", key: AllowListKeys.tui.z85) == [
                Delivery(Peers.tui, refused(1, .forbidden, .hello))
            ])
        let welcomed = daemon.hello(Peers.tuiRestarted, .presenter, name: "tui", key: AllowListKeys.stranger.z85)
        #expect(welcomed == [Delivery(Peers.tuiRestarted, welcome(peer: "p3"))])
    }

    /// `movies` may no longer emit `openDetail`: its peer is forgotten (its attachments wait for a stepper), says
    /// `HELLO` again, is welcomed under the new entry, gets its attachments back, and `openDetail` is now `forbidden`.
    @Test func aKeyWhoseRightsChangedSaysHelloAgainUnderItsNewEntry() throws {
        let daemon = try homeShown()
        let narrowed = try testPolicy { clients in
            let index = clients.firstIndex { $0.name == "movies" }!
            clients[index].steps = ["back"]
        }
        daemon.replacePolicy(with: narrowed)
        #expect(daemon.core.peerCounts == [.presenter: 1])
        #expect(
            daemon.send(stepMessage("openDetail"), from: Peers.movies, key: AllowListKeys.movies.z85) == [
                Delivery(Peers.movies, refused(31, .notWelcome, .step))
            ])
        let welcomed = daemon.hello(Peers.movies, .stepper, name: "movies", key: AllowListKeys.movies.z85, serves: ["home"])
        #expect(welcomed.first == Delivery(Peers.movies, welcome(peer: "p3")), "a new peer")
        #expect(welcomed.count == 2, "the home attachment again")
        #expect(
            daemon.send(stepMessage("openDetail", req: 32), from: Peers.movies, key: AllowListKeys.movies.z85) == [
                Delivery(Peers.movies, refused(32, .forbidden, .step))
            ])
    }

    /// The same allow-list read again forgets nobody, and without CURVE there is no allow-list to replace.
    @Test func anUnchangedAllowListForgetsNobodyAndADaemonWithoutKeysIgnoresOne() throws {
        let daemon = try homeShown()
        #expect(daemon.replacePolicy(with: try testPolicy()) == [])
        #expect(daemon.core.peerCounts == [.stepper: 1, .presenter: 1])
        #expect(daemon.core.counters.peersRevoked == 0)
        let step = daemon.send(stepMessage("openDetail"), from: Peers.movies, key: AllowListKeys.movies.z85)
        #expect(step.last == Delivery(Peers.movies, ok(31, accepted)))

        let plain = DaemonHarness()
        let changed = plain.handle(.accessPolicyChanged(try testPolicy()))
        #expect(changed.sent.isEmpty && changed.events.isEmpty && changed.local.isEmpty)
        #expect(plain.core.accessPolicy == nil)
        #expect(plain.core.counters.peersRevoked == nil)
    }

    @Test func aConnectionWithoutAnAllowedKeyGetsNoWelcomeAndNothingIn() throws {
        let daemon = SecureDaemon(policy: try testPolicy())
        let hello = ClientMessage.hello(Hello(req: 1, role: .operator, name: "x", instance: "i", heartbeatMs: 1000))
        #expect(
            daemon.sendUnauthenticated(hello, from: Peers.stranger) == [
                Delivery(Peers.stranger, refused(1, .forbidden, .hello))
            ])
        #expect(
            daemon.send(hello, from: Peers.stranger, key: "nobody") == [
                Delivery(Peers.stranger, refused(1, .forbidden, .hello))
            ])
        // Still not welcome: nothing else gets in either.
        #expect(
            daemon.send(
                .deepLink(DeepLinkRequest(req: 2, session: "default", step: Step("back"))),
                from: Peers.stranger, key: "nobody") == [Delivery(Peers.stranger, refused(2, .notWelcome, .deepLink))])
        #expect(daemon.core.peerCounts.isEmpty)
        #expect(daemon.core.counters.errors == ["forbidden": 2, "notWelcome": 1])
    }

    @Test func aHelloMustClaimTheRoleOfItsKey() throws {
        let daemon = SecureDaemon(policy: try testPolicy())
        #expect(
            daemon.hello(Peers.movies, .presenter, name: "movies", key: AllowListKeys.movies.z85) == [
                Delivery(Peers.movies, refused(1, .forbidden, .hello))
            ])
        #expect(
            daemon.hello(Peers.tui, .operator, name: "tui", key: AllowListKeys.tui.z85) == [
                Delivery(Peers.tui, refused(1, .forbidden, .hello))
            ])
        #expect(
            daemon.hello(Peers.flowctl, .stepper, name: "admin", key: AllowListKeys.admin.z85, serves: ["home"]) == [
                Delivery(Peers.flowctl, refused(1, .forbidden, .hello))
            ])
        #expect(daemon.core.peerCounts.isEmpty)
        #expect(
            daemon.hello(Peers.flowctl, .operator, name: "flowctl-1", key: AllowListKeys.admin.z85) == [
                Delivery(Peers.flowctl, welcome(peer: "p1"))
            ])
    }

    @Test func aStepperKeyServesOnlyItsDeclaredKinds() throws {
        let daemon = SecureDaemon(policy: try testPolicy())
        #expect(
            daemon.hello(Peers.movies, .stepper, name: "movies", key: AllowListKeys.movies.z85, serves: ["home", "settings"]) == [
                Delivery(Peers.movies, refused(1, .forbidden, .hello))
            ])
        // Its own kinds: welcomed, and given the `home` attachment.
        let welcomed = daemon.hello(Peers.movies, .stepper, name: "movies", key: AllowListKeys.movies.z85, serves: ["home"])
        #expect(welcomed.first == Delivery(Peers.movies, welcome(peer: "p1")))
        #expect(welcomed.count == 2)
    }

    @Test func aStepperKeyCannotReportVisibilityNorSync() throws {
        let daemon = try homeShown()
        let report = ClientMessage.report(
            Report(req: 5, session: "default", reports: [PresentableReport(presentable: "home", state: .dismissed)])
        )
        #expect(
            daemon.send(report, from: Peers.movies, key: AllowListKeys.movies.z85) == [
                Delivery(Peers.movies, refused(5, .forbidden, .report))
            ])
        #expect(
            daemon.send(
                .sync(Sync(req: 6, session: "default", lastSeq: 0, create: false)), from: Peers.movies,
                key: AllowListKeys.movies.z85) == [Delivery(Peers.movies, refused(6, .forbidden, .sync))])
        // The report changed nothing: `home` is still visible, so its stepper's step goes through.
        let step = daemon.send(stepMessage("openDetail"), from: Peers.movies, key: AllowListKeys.movies.z85)
        #expect(step.last == Delivery(Peers.movies, ok(31, accepted)))
    }

    @Test func aPresenterKeyCannotEmitAServicesSteps() throws {
        let daemon = try homeShown()
        #expect(
            daemon.send(stepMessage("openDetail"), from: Peers.tui, key: AllowListKeys.tui.z85) == [
                Delivery(Peers.tui, refused(31, .forbidden, .step))
            ])
        #expect(daemon.core.counters.stepsAccepted == 0)
        #expect(daemon.core.seq(of: "default") == 2)
    }

    @Test func aStepperKeyEmitsOnlyTheStepsDeclaredForIt() throws {
        let daemon = try homeShown()
        // `openSettings` is a step the application knows, on an attachment `movies` holds, but not one of its key's.
        #expect(
            daemon.send(stepMessage("openSettings"), from: Peers.movies, key: AllowListKeys.movies.z85) == [
                Delivery(Peers.movies, refused(31, .forbidden, .step))
            ])
        #expect(daemon.core.seq(of: "default") == 2, "nothing navigated")
        let accepted = daemon.send(stepMessage("openDetail", req: 32), from: Peers.movies, key: AllowListKeys.movies.z85)
        #expect(accepted.last == Delivery(Peers.movies, ok(32, FlowDaemonTests.accepted)))
        #expect(daemon.core.seq(of: "default") == 3)
        #expect(daemon.core.counters.errors == ["forbidden": 1])
    }

    /// PROTOCOL.md §3's order: the sender (`forbidden`, a key's step names included) before the journal.
    @Test func aStepTheKeyMayNotEmitIsForbiddenEvenWhileTheJournalIsUnavailable() throws {
        let daemon = try homeShown()
        daemon.core.journalAvailable = false
        #expect(
            daemon.send(stepMessage("openSettings"), from: Peers.movies, key: AllowListKeys.movies.z85) == [
                Delivery(Peers.movies, refused(31, .forbidden, .step))
            ])
        #expect(
            daemon.send(stepMessage("openDetail", req: 32), from: Peers.movies, key: AllowListKeys.movies.z85) == [
                Delivery(Peers.movies, refused(32, .journalUnavailable, .step))
            ])
    }

    @Test func aPresenterKeyHostsOnlyItsSessions() throws {
        let daemon = SecureDaemon(policy: try testPolicy())
        daemon.hello(Peers.tui, .presenter, name: "tui", key: AllowListKeys.tui.z85)
        #expect(
            daemon.send(
                .sync(Sync(req: 2, session: "other", lastSeq: 0, create: true)), from: Peers.tui,
                key: AllowListKeys.tui.z85) == [Delivery(Peers.tui, refused(2, .forbidden, .sync))])
        #expect(daemon.core.sessionIDs == ["default"], "the refused SYNC created nothing")
        let synced = daemon.send(
            .sync(Sync(req: 3, session: "kiosk", lastSeq: 0, create: true)), from: Peers.tui,
            key: AllowListKeys.tui.z85)
        #expect(synced.first == Delivery(Peers.tui, ok(3, ["seq": 2, "mode": "snapshot"])))
        // A presenter key without a list hosts any session.
        daemon.hello(Peers.kiosk, .presenter, name: "kiosk", key: AllowListKeys.kioskTUI.z85)
        let other = daemon.send(
            .sync(Sync(req: 2, session: "other", lastSeq: 0, create: true)), from: Peers.kiosk,
            key: AllowListKeys.kioskTUI.z85)
        #expect(other.first == Delivery(Peers.kiosk, ok(2, ["seq": 2, "mode": "snapshot"])))
    }

    @Test func operatorActionsNeedTheOperatorKey() throws {
        let daemon = try homeShown()
        let deepLink = ClientMessage.deepLink(DeepLinkRequest(req: 7, session: "default", step: Step("back")))
        #expect(
            daemon.send(deepLink, from: Peers.movies, key: AllowListKeys.movies.z85) == [
                Delivery(Peers.movies, refused(7, .forbidden, .deepLink))
            ])
        #expect(
            daemon.send(deepLink, from: Peers.tui, key: AllowListKeys.tui.z85) == [
                Delivery(Peers.tui, refused(7, .forbidden, .deepLink))
            ])
        #expect(
            daemon.send(.createSession(SessionRequest(req: 8, session: "x")), from: Peers.tui, key: AllowListKeys.tui.z85) == [
                Delivery(Peers.tui, refused(8, .forbidden, .createSession))
            ])
        daemon.hello(Peers.flowctl, .operator, name: "flowctl-1", key: AllowListKeys.admin.z85)
        let navigated = daemon.send(deepLink, from: Peers.flowctl, key: AllowListKeys.admin.z85)
        #expect(navigated.last == Delivery(Peers.flowctl, ok(7, ["navigations": 1])))
    }

    @Test func anotherKeyCannotTakeOverAPresentersNameOrSession() throws {
        let daemon = try homeShown()
        // `kiosk-tui` says HELLO with the name `tui`: it does not replace the real `tui`, nor take its session.
        #expect(
            daemon.hello(Peers.kiosk, .presenter, name: "tui", key: AllowListKeys.kioskTUI.z85) == [
                Delivery(Peers.kiosk, welcome(peer: "p3"))
            ])
        #expect(daemon.core.peerCounts[.presenter] == 2)
        #expect(
            daemon.send(
                .sync(Sync(req: 2, session: "default", lastSeq: 0, create: false)), from: Peers.kiosk,
                key: AllowListKeys.kioskTUI.z85) == [Delivery(Peers.kiosk, refused(2, .sessionHosted, .sync))])
        // The real `tui`, restarted on a new connection, takes over at once.
        daemon.hello(Peers.tuiRestarted, .presenter, name: "tui", key: AllowListKeys.tui.z85)
        #expect(daemon.core.peerCounts[.presenter] == 2, "the old tui connection was replaced")
        let synced = daemon.send(
            .sync(Sync(req: 2, session: "default", lastSeq: 0, create: false)),
            from: Peers.tuiRestarted, key: AllowListKeys.tui.z85)
        #expect(synced.first == Delivery(Peers.tuiRestarted, ok(2, ["seq": 2, "mode": "snapshot"])))
    }

    @Test func aRoutingIDTakenByAnotherKeyDoesNotInheritThePeer() throws {
        let daemon = try homeShown()
        daemon.hello(Peers.flowctl, .operator, name: "flowctl-1", key: AllowListKeys.admin.z85)
        // The operator's connection is gone and a stepper key's connection got the same routing ID.
        let deepLink = ClientMessage.deepLink(DeepLinkRequest(req: 9, session: "default", step: Step("back")))
        #expect(
            daemon.send(deepLink, from: Peers.flowctl, key: AllowListKeys.movies.z85) == [
                Delivery(Peers.flowctl, refused(9, .notWelcome, .deepLink))
            ])
        #expect(daemon.core.peerCounts[.operator] == nil, "the operator peer is forgotten")
        #expect(daemon.core.seq(of: "default") == 2)
    }

    @Test func refusedConnectionsAreCountedInHealth() throws {
        let daemon = SecureDaemon(policy: try testPolicy())
        #expect(daemon.core.counters.authDenied == 0)
        daemon.core.countAuthenticationDenied()
        daemon.core.countAuthenticationDenied()
        daemon.hello(Peers.flowctl, .operator, name: "flowctl-1", key: AllowListKeys.admin.z85)
        let health = daemon.send(.health(PlainRequest(req: 2)), from: Peers.flowctl, key: AllowListKeys.admin.z85)
        guard case .ok(let reply)? = health.first?.message, case .object(let fields) = reply.result,
            case .object(let counters)? = fields["counters"]
        else {
            Issue.record("no HEALTH result: \(health)")
            return
        }
        #expect(counters["auth_denied"] == 2)
        // Without CURVE the counter is not there at all.
        #expect(DaemonCounters().json(hibernatedNow: 0).objectValue?["auth_denied"] == nil)
    }
}

extension JSONValue {
    fileprivate var objectValue: [String: JSONValue]? {
        if case .object(let members) = self { return members }
        return nil
    }
}
