import FlowCore
import FlowDaemon
import FlowWire
import FlowdTesting
import Foundation
import Testing
import ZeroMQ

// MARK: - A daemon with an allow-list

/// The keys of the allow-list the tests use.
private enum Keys {
    static let movies = publicKey()
    static let settings = publicKey()
    static let tui = publicKey()
    static let kioskTUI = publicKey()
    static let admin = publicKey()
    static let stranger = publicKey()

    private static func publicKey() -> ZMQCurveKey {
        // Made once per test process; key generation does not fail with Debian's libzmq (CURVE built in).
        try! ZMQCurve.generateKeyPair().publicKey
    }
}

/// `movies` (stepper: `home`/`detail`, may emit `openDetail` and `back`), `settings` (stepper: `settings`, any step),
/// `tui` (presenter of `default` and `kiosk`), `kiosk-tui` (presenter of any session), `admin` (operator).
private func testPolicy() throws -> AccessPolicy {
    try AccessPolicy(clients: [
        AllowedClient(
            name: "movies", publicKey: Keys.movies.z85, role: .stepper, steps: ["openDetail", "back"],
            kinds: ["home", "detail"]
        ),
        AllowedClient(
            name: "settings", publicKey: Keys.settings.z85, role: .stepper, steps: ["*"], kinds: ["settings"]),
        AllowedClient(name: "tui", publicKey: Keys.tui.z85, role: .presenter, sessions: ["default", "kiosk"]),
        AllowedClient(name: "kiosk-tui", publicKey: Keys.kioskTUI.z85, role: .presenter),
        AllowedClient(name: "admin", publicKey: Keys.admin.z85, role: .operator),
    ])
}

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
    func send(_ message: WireMessage, from peer: PeerAddress, key: String?) -> [Delivery] {
        harness.receive(message, from: peer, userID: key).sent
    }

    /// A new allow-list, as `flowd` hands it over on SIGHUP.
    @discardableResult
    func replacePolicy(with policy: AccessPolicy) -> [Delivery] { harness.handle(.accessPolicyChanged(policy)).sent }

    /// `message` from `peer` as a transport without authentication gives it.
    @discardableResult
    func sendUnauthenticated(_ message: WireMessage, from peer: PeerAddress) -> [Delivery] {
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
    daemon.hello(Peers.movies, .stepper, name: "movies", key: Keys.movies.z85, serves: ["home", "detail"])
    daemon.hello(Peers.tui, .presenter, name: "tui", key: Keys.tui.z85)
    daemon.send(.sync(Sync(req: 2, session: "default", lastSeq: 0, create: false)), from: Peers.tui, key: Keys.tui.z85)
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
        from: Peers.tui, key: Keys.tui.z85
    )
    return daemon
}

private func stepMessage(_ name: String, attachment: Int = 2, req: UInt64 = 31) -> WireMessage {
    .step(StepMessage(req: req, session: "default", attachment: attachment, step: Step(name)))
}

/// ``testPolicy()`` with `change` applied to its entries.
private func testPolicy(changing change: (inout [AllowedClient]) -> Void) throws -> AccessPolicy {
    var clients = try testPolicy().clients
    change(&clients)
    return try AccessPolicy(clients: clients)
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
        let report = WireMessage.report(
            Report(req: 4, session: "default", reports: [PresentableReport(presentable: "home", state: .visible)]))
        #expect(
            daemon.send(report, from: Peers.tui, key: Keys.tui.z85) == [
                Delivery(Peers.tui, refused(4, .notWelcome, .report))
            ])
        #expect(
            daemon.hello(Peers.tui, .presenter, name: "tui", key: Keys.tui.z85) == [
                Delivery(Peers.tui, refused(1, .forbidden, .hello))
            ])
        // `movies` is still in: its step is judged (not refused), and dropped because nobody shows `home` now.
        let step = daemon.send(stepMessage("openDetail"), from: Peers.movies, key: Keys.movies.z85)
        #expect(step == [Delivery(Peers.movies, ok(31, dropped("notVisible")))])
        guard case .object(let counters) = daemon.core.counters.json else {
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
            clients[index].publicKey = Keys.stranger.z85
        }
        daemon.replacePolicy(with: rotated)
        #expect(daemon.core.peerCounts == [.stepper: 1])
        #expect(
            daemon.hello(Peers.tui, .presenter, name: "tui", key: Keys.tui.z85) == [
                Delivery(Peers.tui, refused(1, .forbidden, .hello))
            ])
        let welcomed = daemon.hello(Peers.tuiRestarted, .presenter, name: "tui", key: Keys.stranger.z85)
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
            daemon.send(stepMessage("openDetail"), from: Peers.movies, key: Keys.movies.z85) == [
                Delivery(Peers.movies, refused(31, .notWelcome, .step))
            ])
        let welcomed = daemon.hello(Peers.movies, .stepper, name: "movies", key: Keys.movies.z85, serves: ["home"])
        #expect(welcomed.first == Delivery(Peers.movies, welcome(peer: "p3")), "a new peer")
        #expect(welcomed.count == 2, "the home attachment again")
        #expect(
            daemon.send(stepMessage("openDetail", req: 32), from: Peers.movies, key: Keys.movies.z85) == [
                Delivery(Peers.movies, refused(32, .forbidden, .step))
            ])
    }

    /// The same allow-list read again forgets nobody, and without CURVE there is no allow-list to replace.
    @Test func anUnchangedAllowListForgetsNobodyAndADaemonWithoutKeysIgnoresOne() throws {
        let daemon = try homeShown()
        #expect(daemon.replacePolicy(with: try testPolicy()) == [])
        #expect(daemon.core.peerCounts == [.stepper: 1, .presenter: 1])
        #expect(daemon.core.counters.peersRevoked == 0)
        let step = daemon.send(stepMessage("openDetail"), from: Peers.movies, key: Keys.movies.z85)
        #expect(step.last == Delivery(Peers.movies, ok(31, accepted)))

        let plain = DaemonHarness()
        let changed = plain.handle(.accessPolicyChanged(try testPolicy()))
        #expect(changed.sent.isEmpty && changed.events.isEmpty && changed.local.isEmpty)
        #expect(plain.core.accessPolicy == nil)
        #expect(plain.core.counters.peersRevoked == nil)
    }

    @Test func aConnectionWithoutAnAllowedKeyGetsNoWelcomeAndNothingIn() throws {
        let daemon = SecureDaemon(policy: try testPolicy())
        let hello = WireMessage.hello(Hello(req: 1, role: .operator, name: "x", instance: "i", heartbeatMs: 1000))
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
            daemon.hello(Peers.movies, .presenter, name: "movies", key: Keys.movies.z85) == [
                Delivery(Peers.movies, refused(1, .forbidden, .hello))
            ])
        #expect(
            daemon.hello(Peers.tui, .operator, name: "tui", key: Keys.tui.z85) == [
                Delivery(Peers.tui, refused(1, .forbidden, .hello))
            ])
        #expect(
            daemon.hello(Peers.flowctl, .stepper, name: "admin", key: Keys.admin.z85, serves: ["home"]) == [
                Delivery(Peers.flowctl, refused(1, .forbidden, .hello))
            ])
        #expect(daemon.core.peerCounts.isEmpty)
        #expect(
            daemon.hello(Peers.flowctl, .operator, name: "flowctl-1", key: Keys.admin.z85) == [
                Delivery(Peers.flowctl, welcome(peer: "p1"))
            ])
    }

    @Test func aStepperKeyServesOnlyItsDeclaredKinds() throws {
        let daemon = SecureDaemon(policy: try testPolicy())
        #expect(
            daemon.hello(Peers.movies, .stepper, name: "movies", key: Keys.movies.z85, serves: ["home", "settings"]) == [
                Delivery(Peers.movies, refused(1, .forbidden, .hello))
            ])
        // Its own kinds: welcomed, and given the `home` attachment.
        let welcomed = daemon.hello(Peers.movies, .stepper, name: "movies", key: Keys.movies.z85, serves: ["home"])
        #expect(welcomed.first == Delivery(Peers.movies, welcome(peer: "p1")))
        #expect(welcomed.count == 2)
    }

    @Test func aStepperKeyCannotReportVisibilityNorSync() throws {
        let daemon = try homeShown()
        let report = WireMessage.report(
            Report(req: 5, session: "default", reports: [PresentableReport(presentable: "home", state: .dismissed)])
        )
        #expect(
            daemon.send(report, from: Peers.movies, key: Keys.movies.z85) == [
                Delivery(Peers.movies, refused(5, .forbidden, .report))
            ])
        #expect(
            daemon.send(
                .sync(Sync(req: 6, session: "default", lastSeq: 0, create: false)), from: Peers.movies,
                key: Keys.movies.z85) == [Delivery(Peers.movies, refused(6, .forbidden, .sync))])
        // The report changed nothing: `home` is still visible, so its stepper's step goes through.
        let step = daemon.send(stepMessage("openDetail"), from: Peers.movies, key: Keys.movies.z85)
        #expect(step.last == Delivery(Peers.movies, ok(31, accepted)))
    }

    @Test func aPresenterKeyCannotEmitAServicesSteps() throws {
        let daemon = try homeShown()
        #expect(
            daemon.send(stepMessage("openDetail"), from: Peers.tui, key: Keys.tui.z85) == [
                Delivery(Peers.tui, refused(31, .forbidden, .step))
            ])
        #expect(daemon.core.counters.stepsAccepted == 0)
        #expect(daemon.core.seq(of: "default") == 2)
    }

    @Test func aStepperKeyEmitsOnlyTheStepsDeclaredForIt() throws {
        let daemon = try homeShown()
        // `openSettings` is a step the application knows, on an attachment `movies` holds, but not one of its key's.
        #expect(
            daemon.send(stepMessage("openSettings"), from: Peers.movies, key: Keys.movies.z85) == [
                Delivery(Peers.movies, refused(31, .forbidden, .step))
            ])
        #expect(daemon.core.seq(of: "default") == 2, "nothing navigated")
        let accepted = daemon.send(stepMessage("openDetail", req: 32), from: Peers.movies, key: Keys.movies.z85)
        #expect(accepted.last == Delivery(Peers.movies, ok(32, FlowDaemonTests.accepted)))
        #expect(daemon.core.seq(of: "default") == 3)
        #expect(daemon.core.counters.errors == ["forbidden": 1])
    }

    @Test func aPresenterKeyHostsOnlyItsSessions() throws {
        let daemon = SecureDaemon(policy: try testPolicy())
        daemon.hello(Peers.tui, .presenter, name: "tui", key: Keys.tui.z85)
        #expect(
            daemon.send(
                .sync(Sync(req: 2, session: "other", lastSeq: 0, create: true)), from: Peers.tui,
                key: Keys.tui.z85) == [Delivery(Peers.tui, refused(2, .forbidden, .sync))])
        #expect(daemon.core.sessionIDs == ["default"], "the refused SYNC created nothing")
        let synced = daemon.send(
            .sync(Sync(req: 3, session: "kiosk", lastSeq: 0, create: true)), from: Peers.tui,
            key: Keys.tui.z85)
        #expect(synced.first == Delivery(Peers.tui, ok(3, ["seq": 2, "mode": "snapshot"])))
        // A presenter key without a list hosts any session.
        daemon.hello(Peers.kiosk, .presenter, name: "kiosk", key: Keys.kioskTUI.z85)
        let other = daemon.send(
            .sync(Sync(req: 2, session: "other", lastSeq: 0, create: true)), from: Peers.kiosk,
            key: Keys.kioskTUI.z85)
        #expect(other.first == Delivery(Peers.kiosk, ok(2, ["seq": 2, "mode": "snapshot"])))
    }

    @Test func operatorActionsNeedTheOperatorKey() throws {
        let daemon = try homeShown()
        let deepLink = WireMessage.deepLink(DeepLinkRequest(req: 7, session: "default", step: Step("back")))
        #expect(
            daemon.send(deepLink, from: Peers.movies, key: Keys.movies.z85) == [
                Delivery(Peers.movies, refused(7, .forbidden, .deepLink))
            ])
        #expect(
            daemon.send(deepLink, from: Peers.tui, key: Keys.tui.z85) == [
                Delivery(Peers.tui, refused(7, .forbidden, .deepLink))
            ])
        #expect(
            daemon.send(.createSession(SessionRequest(req: 8, session: "x")), from: Peers.tui, key: Keys.tui.z85) == [
                Delivery(Peers.tui, refused(8, .forbidden, .createSession))
            ])
        daemon.hello(Peers.flowctl, .operator, name: "flowctl-1", key: Keys.admin.z85)
        let navigated = daemon.send(deepLink, from: Peers.flowctl, key: Keys.admin.z85)
        #expect(navigated.last == Delivery(Peers.flowctl, ok(7, ["navigations": 1])))
    }

    @Test func anotherKeyCannotTakeOverAPresentersNameOrSession() throws {
        let daemon = try homeShown()
        // `kiosk-tui` says HELLO with the name `tui`: it does not replace the real `tui`, nor take its session.
        #expect(
            daemon.hello(Peers.kiosk, .presenter, name: "tui", key: Keys.kioskTUI.z85) == [
                Delivery(Peers.kiosk, welcome(peer: "p3"))
            ])
        #expect(daemon.core.peerCounts[.presenter] == 2)
        #expect(
            daemon.send(
                .sync(Sync(req: 2, session: "default", lastSeq: 0, create: false)), from: Peers.kiosk,
                key: Keys.kioskTUI.z85) == [Delivery(Peers.kiosk, refused(2, .sessionHosted, .sync))])
        // The real `tui`, restarted on a new connection, takes over at once.
        daemon.hello(Peers.tuiRestarted, .presenter, name: "tui", key: Keys.tui.z85)
        #expect(daemon.core.peerCounts[.presenter] == 2, "the old tui connection was replaced")
        let synced = daemon.send(
            .sync(Sync(req: 2, session: "default", lastSeq: 0, create: false)),
            from: Peers.tuiRestarted, key: Keys.tui.z85)
        #expect(synced.first == Delivery(Peers.tuiRestarted, ok(2, ["seq": 2, "mode": "snapshot"])))
    }

    @Test func aRoutingIDTakenByAnotherKeyDoesNotInheritThePeer() throws {
        let daemon = try homeShown()
        daemon.hello(Peers.flowctl, .operator, name: "flowctl-1", key: Keys.admin.z85)
        // The operator's connection is gone and a stepper key's connection got the same routing ID.
        let deepLink = WireMessage.deepLink(DeepLinkRequest(req: 9, session: "default", step: Step("back")))
        #expect(
            daemon.send(deepLink, from: Peers.flowctl, key: Keys.movies.z85) == [
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
        daemon.hello(Peers.flowctl, .operator, name: "flowctl-1", key: Keys.admin.z85)
        let health = daemon.send(.health(PlainRequest(req: 2)), from: Peers.flowctl, key: Keys.admin.z85)
        guard case .ok(let reply)? = health.first?.message, case .object(let fields) = reply.result,
            case .object(let counters)? = fields["counters"]
        else {
            Issue.record("no HEALTH result: \(health)")
            return
        }
        #expect(counters["auth_denied"] == 2)
        // Without CURVE the counter is not there at all.
        #expect(DaemonCounters().json.objectValue?["auth_denied"] == nil)
    }
}

/// The ZAP handler (ZeroMQ RFC 27) over the allow-list.
struct ZAPHandlerTests {
    private func request(
        domain: String, mechanism: String = "CURVE", key: [UInt8]?, version: String = "1.0"
    ) -> [[UInt8]] {
        var frames: [[UInt8]] = [
            Array("zap-peer".utf8), [], Array(version.utf8), Array("42".utf8), Array(domain.utf8),
            Array("127.0.0.1".utf8), [], Array(mechanism.utf8),
        ]
        if let key { frames.append(key) }
        return frames
    }

    private func status(_ reply: [[UInt8]]) -> String { String(decoding: reply[4], as: UTF8.self) }

    @Test func anAllowedKeyGets200WithItsKeyAsUserID() throws {
        let policy = try testPolicy()
        let (reply, decision) = try #require(
            ZAPHandler.answer(request(domain: "flowd", key: Keys.movies.bytes), policy: policy))
        #expect(reply.count == 8)
        #expect(reply[0] == Array("zap-peer".utf8) && reply[1].isEmpty)
        #expect(reply[2] == Array("1.0".utf8) && reply[3] == Array("42".utf8))
        #expect(status(reply) == "200")
        #expect(reply[6] == Array(Keys.movies.z85.utf8))
        #expect(decision.allowed && decision.client == "movies" && decision.publicKey == Keys.movies.z85)
    }

    @Test func anUnknownKeyGets400AndNoUserID() throws {
        let (reply, decision) = try #require(
            ZAPHandler.answer(request(domain: "flowd", key: Keys.stranger.bytes), policy: try testPolicy())
        )
        #expect(status(reply) == "400")
        #expect(reply[6].isEmpty)
        #expect(!decision.allowed && decision.client == nil)
    }

    @Test func onlyOperatorKeysMayWatchTheEventsByDefault() throws {
        let policy = try testPolicy()
        let operatorReply = try #require(
            ZAPHandler.answer(request(domain: "flowd.events", key: Keys.admin.bytes), policy: policy))
        #expect(status(operatorReply.reply) == "200")
        let presenterReply = try #require(
            ZAPHandler.answer(request(domain: "flowd.events", key: Keys.tui.bytes), policy: policy))
        #expect(status(presenterReply.reply) == "400")
        #expect(presenterReply.decision.client == "tui")
        // An unknown domain lets nobody in.
        let unknown = try #require(ZAPHandler.answer(request(domain: "other", key: Keys.admin.bytes), policy: policy))
        #expect(status(unknown.reply) == "400")
        // The roles are configurable.
        let open = try AccessPolicy(clients: policy.clients, eventsRoles: [.operator, .presenter])
        #expect(
            status(
                try #require(ZAPHandler.answer(request(domain: "flowd.events", key: Keys.tui.bytes), policy: open))
                    .reply) == "200")
    }

    @Test func otherMechanismsAndMalformedRequestsAreRefused() throws {
        let policy = try testPolicy()
        let plain = try #require(
            ZAPHandler.answer(request(domain: "flowd", mechanism: "NULL", key: nil), policy: policy))
        #expect(status(plain.reply) == "400")
        let version = try #require(
            ZAPHandler.answer(request(domain: "flowd", key: Keys.admin.bytes, version: "2.0"), policy: policy))
        #expect(status(version.reply) == "500")
        let shortKey = try #require(ZAPHandler.answer(request(domain: "flowd", key: [1, 2, 3]), policy: policy))
        #expect(status(shortKey.reply) == "400")
        #expect(ZAPHandler.answer([[1], [], Array("1.0".utf8)], policy: policy) == nil)
    }
}

/// The allow-list and the `security` settings.
struct AccessPolicyTests {
    @Test func anAllowListThatCannotBeTrustedIsRefused() throws {
        let key = Keys.movies.z85
        let cases: [[AllowedClient]] = [
            [AllowedClient(name: "s", publicKey: key, role: .stepper, kinds: ["home"])],  // no steps
            [AllowedClient(name: "s", publicKey: key, role: .stepper, steps: ["a"])],  // no kinds
            [AllowedClient(name: "p", publicKey: key, role: .presenter, steps: ["a"])],  // steps on a presenter
            [AllowedClient(name: "o", publicKey: key, role: .operator, sessions: ["default"])],
            [AllowedClient(name: "bad name", publicKey: key, role: .operator)],
            [AllowedClient(name: "o", publicKey: "not a key", role: .operator)],
            [
                AllowedClient(name: "a", publicKey: key, role: .operator),
                AllowedClient(name: "b", publicKey: key, role: .operator),
            ],
            [
                AllowedClient(name: "a", publicKey: key, role: .operator),
                AllowedClient(name: "a", publicKey: Keys.admin.z85, role: .operator),
            ],
        ]
        for clients in cases {
            #expect(throws: AccessPolicyError.self, "\(clients)") { try AccessPolicy(clients: clients) }
        }
    }

    @Test func theSecuritySectionDecodesFromJSON() throws {
        let json = """
            {"secret_key_file": "flowd.key", "allow_plaintext_tcp": false, "events_roles": ["operator", "presenter"],
             "clients": [{"name": "movies", "public_key": "\(Keys.movies.z85)", "role": "stepper",
                          "steps": ["openDetail"], "kinds": ["home"]},
                         {"name": "tui", "public_key": "\(Keys.tui.z85)", "role": "presenter",
                          "sessions": ["default"]}]}
            """
        let section = try JSONDecoder().decode(FlowdConfigFile.Security.self, from: Data(json.utf8))
        #expect(section.secretKeyFile == "flowd.key")
        #expect(section.eventsRoles == [.operator, .presenter])
        #expect(section.clients?.map(\.name) == ["movies", "tui"])
        #expect(section.clients?.first?.steps == ["openDetail"])
        #expect(section.clients?.last?.sessions == ["default"])
    }

    @Test func tcpWithoutKeysIsRefusedUnlessPlaintextIsAllowed() throws {
        let tcp = ["tcp://0.0.0.0:5560", "ipc:///run/flowd/events.sock"]
        #expect(throws: FlowdSecurityError.self) {
            try FlowdSecuritySettings.resolve(
                nil, configPath: nil, keyFile: nil, clientsFile: nil, allowPlaintextTCP: false, endpoints: tcp
            )
        }
        #expect(
            try FlowdSecuritySettings.resolve(
                nil, configPath: nil, keyFile: nil, clientsFile: nil, allowPlaintextTCP: true, endpoints: tcp
            ) == nil
        )
        var section = FlowdConfigFile.Security()
        section.allowPlaintextTCP = true
        #expect(
            try FlowdSecuritySettings.resolve(
                section, configPath: nil, keyFile: nil, clientsFile: nil, allowPlaintextTCP: false, endpoints: tcp
            ) == nil
        )
        // ipc:// alone needs no keys (the socket files are the user's own).
        #expect(
            try FlowdSecuritySettings.resolve(
                nil, configPath: nil, keyFile: nil, clientsFile: nil, allowPlaintextTCP: false,
                endpoints: ["ipc:///tmp/a.sock", "ipc:///tmp/b.sock"]
            ) == nil
        )
    }

    @Test func theSecretKeyFileIsReadRelativeToTheConfigAndMustBePrivate() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("flowd-sec-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let pair = try ZMQCurve.generateKeyPair()
        let keyPath = folder.appendingPathComponent("flowd.key").path
        // `#` starts Z85 keys too: only `# ` lines are comments.
        try "# the daemon's key\n\n  \(pair.secretKey.z85)  \n".write(
            toFile: keyPath, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: keyPath)
        var section = FlowdConfigFile.Security()
        section.secretKeyFile = "flowd.key"
        section.clients = [AllowedClient(name: "admin", publicKey: Keys.admin.z85, role: .operator)]
        let security = try #require(
            try FlowdSecuritySettings.resolve(
                section, configPath: folder.appendingPathComponent("flowd.json").path, keyFile: nil, clientsFile: nil,
                allowPlaintextTCP: false, endpoints: ["tcp://127.0.0.1:5560"]
            )
        )
        #expect(security.keyPair == pair)
        #expect(security.policy.client(publicKey: Keys.admin.bytes)?.name == "admin")

        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: keyPath)
        #expect(throws: FlowdSecurityError.self) {
            try FlowdSecuritySettings.resolve(
                nil, configPath: nil, keyFile: keyPath, clientsFile: nil, allowPlaintextTCP: false, endpoints: []
            )
        }
        // Clients without a daemon key are a mistake, not plaintext.
        #expect(throws: FlowdSecurityError.self) {
            try FlowdSecuritySettings.resolve(
                section.clearingKey, configPath: nil, keyFile: nil, clientsFile: nil, allowPlaintextTCP: true,
                endpoints: []
            )
        }
    }
}

extension FlowdConfigFile.Security {
    fileprivate var clearingKey: Self {
        var copy = self
        copy.secretKeyFile = nil
        return copy
    }
}

extension JSONValue {
    fileprivate var objectValue: [String: JSONValue]? {
        if case .object(let members) = self { return members }
        return nil
    }
}
