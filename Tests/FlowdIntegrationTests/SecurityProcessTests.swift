import FlowCore
import FlowWire
import Foundation
import Testing
import ZeroMQ

/// docs/SECURITY.md with real processes: `flowd` over `tcp://127.0.0.1` (ports chosen by the OS, read from its ready
/// line) with CURVE keys and an allow-list, reached by raw CURVE `DEALER`s, `flowctl`, the login service and the
/// presenter, each with a key of its own.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct FlowdSecurityTests {
    // MARK: - Getting in

    /// A key the allow-list does not name completes no handshake: its `HELLO` gets no answer, flowd logs and counts
    /// the refusal, and `flowctl` with that key cannot reach the daemon, while the operator's key can.
    @Test func aClientWithoutAnAllowedKeyGetsNothingIn() async throws {
        try await withCluster { cluster in
            let keys = try await SecureKeys(in: cluster)
            let daemon = try await keys.startFlowd(clients: [keys.operatorClient])
            let stranger = try keys.makeKeyFile("stranger")

            let dealer = try CurveDealer(endpoint: daemon.control, curve: keys.curve(for: stranger))
            try await dealer.send(
                .hello(Hello(req: 1, role: .operator, name: "stranger", instance: "x", heartbeatMs: 60_000)))
            try await daemon.process.waitForError("the ZAP refusal of the stranger's key") {
                $0.contains("connection refused by ZAP") && $0.contains("key=\(stranger.publicKey.z85) ")
            }
            #expect(try await dealer.receive(within: 1000) == nil, "no WELCOME, nor anything else")

            let refused = try await cluster.flowctl(
                ["health", "--timeout", "1"] + daemon.connectionArguments
                    + keys.clientArguments(stranger, name: "stranger")
            )
            #expect(refused.exit == .exited(2), "\(refused)")
            #expect(refused.stderr.contains { $0.contains("does its allow-list hold --key-file's key") }, "\(refused)")
            let health = try await cluster.health(daemon.connectionArguments + keys.operatorArguments)
            #expect((count(health, "auth_denied") ?? 0) >= 2)
            #expect((health["peers"] as? [String: Int])?["operator"] == 1, "only the health request's own flowctl")
            #expect(!daemon.process.stderr.lines.contains { $0.contains("name=stranger") }, "no peer named stranger")
        }
    }

    /// A client without CURVE (no keys at all) cannot talk to a CURVE endpoint: its handshake fails, its `HELLO`
    /// gets no answer, and `flowctl` without keys times out.
    @Test func plaintextToACurveEndpointFails() async throws {
        try await withCluster { cluster in
            let keys = try await SecureKeys(in: cluster)
            let daemon = try await keys.startFlowd(clients: [keys.operatorClient])

            let dealer = try CurveDealer(endpoint: daemon.control, curve: nil)
            try await dealer.send(
                .hello(Hello(req: 1, role: .operator, name: "plain", instance: "x", heartbeatMs: 60_000)))
            let events = try await dealer.waitForConnectionEvent([.handshakeFailed, .disconnected, .handshakeSucceeded])
            #expect(
                events.last.map { !$0.kind.isDisjoint(with: [.handshakeFailed, .disconnected]) } == true, "\(events)")
            #expect(try await dealer.receive(within: 1000) == nil)

            let plain = try await cluster.flowctl(["health", "--timeout", "1"] + daemon.connectionArguments)
            #expect(plain.exit == .exited(2), "\(plain)")
            #expect(plain.stderr.contains { $0.contains("needs --key-file and --server-key") }, "\(plain)")
            // Nothing plaintext reached the core: only the operator's requests are counted.
            let health = try await cluster.health(daemon.connectionArguments + keys.operatorArguments)
            #expect(count(health, "messages_in") == 2, "the operator's HELLO and HEALTH only")
        }
    }

    // MARK: - Roles

    /// Raw `DEALER`s with a stepper's and a presenter's key: each may say `HELLO` only in its key's role, the stepper
    /// only with its kinds, and each is refused (`forbidden`) what its role or key may not do: the stepper reporting
    /// visibility, syncing, deep-linking or emitting a step not declared for its key; the presenter emitting a
    /// service's step, deep-linking or hosting a session not listed for its key. `flowctl step` (a deep link) with the
    /// presenter's key is refused; with the operator's key it goes through.
    @Test func eachKeyIsHeldToItsRole() async throws {
        try await withCluster { cluster in
            let keys = try await SecureKeys(in: cluster)
            let stepperKeys = try ZMQCurve.generateKeyPair()
            let presenterKeys = try ZMQCurve.generateKeyPair()
            let daemon = try await keys.startFlowd(clients: [
                keys.operatorClient,
                SecureKeys.client(
                    "probe-stepper", stepperKeys, role: "stepper",
                    extra: #""steps": ["userIsLoggedIn"], "kinds": ["login.form"]"#
                ),
                SecureKeys.client(
                    "probe-presenter", presenterKeys, role: "presenter", extra: #""sessions": ["default"]"#),
            ])
            try keys.writeKeyFile(presenterKeys, name: "probe-presenter")

            let stepper = try CurveDealer(endpoint: daemon.control, curve: keys.curve(for: stepperKeys))
            #expect(try await stepper.request(hello(1, .operator, "probe-stepper")) == .forbidden)
            #expect(
                try await stepper.request(hello(2, .stepper, "probe-stepper", serves: ["login.form", "movies.detail"]))
                    == .forbidden)
            #expect(try await stepper.hello(hello(3, .stepper, "probe-stepper", serves: ["login.form"])))
            let report = Report(
                req: 4, session: "default", reports: [PresentableReport(presentable: "app", state: .visible)])
            #expect(try await stepper.request(.report(report)) == .forbidden)
            #expect(
                try await stepper.request(.sync(Sync(req: 5, session: "default", lastSeq: 0, create: false)))
                    == .forbidden)
            #expect(
                try await stepper.request(
                    .deepLink(DeepLinkRequest(req: 6, session: "default", step: Step("logoutIsRequired"))))
                    == .forbidden)
            // A step the application knows, but not one declared for this key.
            #expect(
                try await stepper.request(
                    .step(StepMessage(req: 7, session: "default", attachment: 1, step: Step("onboardingIsComplete"))))
                    == .forbidden)
            // A declared step passes the key's check (and is then refused for the attachment it names).
            #expect(
                try await stepper.request(
                    .step(StepMessage(req: 8, session: "default", attachment: 999, step: Step("userIsLoggedIn"))))
                    == .unknownAttachment)

            let presenter = try CurveDealer(endpoint: daemon.control, curve: keys.curve(for: presenterKeys))
            #expect(try await presenter.request(hello(1, .stepper, "probe-presenter")) == .forbidden)
            #expect(try await presenter.hello(hello(2, .presenter, "probe-presenter")))
            #expect(
                try await presenter.request(
                    .step(StepMessage(req: 3, session: "default", attachment: 1, step: Step("userIsLoggedIn"))))
                    == .forbidden)
            #expect(
                try await presenter.request(
                    .deepLink(DeepLinkRequest(req: 4, session: "default", step: Step("userIsLoggedIn")))) == .forbidden)
            #expect(
                try await presenter.request(.sync(Sync(req: 5, session: "kiosk", lastSeq: 0, create: true)))
                    == .forbidden)
            #expect(
                try await presenter.request(.sync(Sync(req: 6, session: "default", lastSeq: 0, create: false)))
                    == nil, "OK")

            let asPresenter = try await cluster.flowctl(
                ["step", "fakeStep"] + daemon.connectionArguments
                    + keys.clientArguments(presenterKeys, name: "probe-presenter")
            )
            #expect(asPresenter.exit == .exited(1), "\(asPresenter)")
            #expect(asPresenter.stderr.joined().contains("forbidden"), "\(asPresenter)")
            let asOperator = try await cluster.flowctlSucceeding(
                ["step", "fakeStep"] + daemon.connectionArguments + keys.operatorArguments
            )
            #expect(asOperator.output.hasPrefix("deep link fakeStep in session default:"))

            let health = try await cluster.health(daemon.connectionArguments + keys.operatorArguments)
            #expect(counts(health, "errors") == ["forbidden": 11, "unknownAttachment": 1])
            #expect(health["sessions"] as? Int == 1, "the refused SYNC created no session")
        }
    }

    // MARK: - The demo with keys

    /// The movie demo's login service, presenter and `flowctl watch` each with a key of its own: the onboarding runs
    /// as without CURVE; the watch (operator key) sees it; the presenter's key cannot watch.
    @Test func theDemoRunsWithAKeyPerProcess() async throws {
        try await withCluster { cluster in
            let keys = try await SecureKeys(in: cluster)
            let loginKeys = try keys.makeKeyFile("login-service")
            let presenterKeys = try keys.makeKeyFile("presenter")
            let daemon = try await keys.startFlowd(clients: [
                keys.operatorClient,
                SecureKeys.client("login-service", loginKeys, role: "stepper", extra: SecureKeys.loginStepperRights),
                SecureKeys.client("presenter", presenterKeys, role: "presenter", extra: #""sessions": ["default"]"#),
            ])
            let (watch, _, presenter) = try await keys.startDemo(
                on: daemon, loginKeys: loginKeys, presenterKeys: presenterKeys)
            let connection = daemon.connectionArguments + keys.operatorArguments
            let proceed = #"action onboarding.login proceed {"user":"demo","password":"demo"}"#
            #expect(try await presenter.run(proceed) == "ok \(proceed) delivered=1")
            try await presenter.waitFor("report onboarding.apikey visible")
            try await watch.waitFor("did navigate flow=OnboardingFlow step=userIsLoggedIn")

            // Each process got in with its own key, in its key's role.
            for (name, role) in [("login-service", "stepper"), ("presenter", "presenter")] {
                #expect(
                    daemon.process.stderr.lines.contains {
                        $0.contains("peer joined") && $0.contains("name=\(name) ") && $0.contains("role=\(role) ")
                    },
                    "\(daemon.process.diagnostics)"
                )
            }
            let health = try await cluster.health(connection)
            #expect(counts(health, "errors") == [:])
            #expect(count(health, "auth_denied") == 0)

            // The events socket lets operators' keys only: the presenter's key is refused there.
            let from = daemon.process.stderr.count
            let events = try CurveDealer(endpoint: daemon.events, curve: keys.curve(for: presenterKeys), type: .sub)
            try await daemon.process.waitForError(from: from, "the events socket refusing the presenter's key") {
                $0.contains("connection refused by ZAP") && $0.contains("domain=flowd.events")
                    && $0.contains("client=presenter ")
            }
            _ = events
        }
    }

    /// A login service whose key does not declare `userIsLoggedIn`: its step is refused (`forbidden`), nothing
    /// navigates, and the service carries on.
    @Test func aServiceCannotEmitAStepNotDeclaredForItsKey() async throws {
        try await withCluster { cluster in
            let keys = try await SecureKeys(in: cluster)
            let loginKeys = try keys.makeKeyFile("login-service")
            let presenterKeys = try keys.makeKeyFile("presenter")
            let daemon = try await keys.startFlowd(clients: [
                keys.operatorClient,
                SecureKeys.client(
                    "login-service", loginKeys, role: "stepper",
                    extra: #""steps": ["onboardingIsRequired", "onboardingIsComplete"], "kinds": ["*"]"#
                ),
                SecureKeys.client("presenter", presenterKeys, role: "presenter"),
            ])
            let (watch, login, presenter) = try await keys.startDemo(
                on: daemon, loginKeys: loginKeys, presenterKeys: presenterKeys)
            let connection = daemon.connectionArguments + keys.operatorArguments
            let proceed = #"action onboarding.login proceed {"user":"demo","password":"demo"}"#
            #expect(try await presenter.run(proceed) == "ok \(proceed) delivered=1")
            try await login.waitForError("the login service's refused step") {
                $0.contains("step not emitted") && $0.contains("forbidden")
            }
            let health = try await cluster.health(connection)
            #expect(counts(health, "errors") == ["forbidden": 1])
            #expect(!watch.lines.contains { $0.contains("userIsLoggedIn") })
            #expect(login.exit == nil, "the service keeps running")
        }
    }

    // MARK: - Changing the allow-list

    /// SIGHUP reads the allow-list again. A config file that does not parse is refused and the list in force kept.
    /// The presenter's key taken off the list is cut off at once: flowd forgets its peer, the presenter's next
    /// heartbeat gets `notWelcome`, and the new connection it opens to say `HELLO` again is refused by ZAP, as for any
    /// key not on the list (it gets nothing and keeps trying). The login service and the operator are not disturbed.
    @Test func sighupTakesARemovedKeysConnectionAwayAndKeepsTheOthers() async throws {
        try await withCluster { cluster in
            let keys = try await SecureKeys(in: cluster)
            let loginKeys = try keys.makeKeyFile("login-service")
            let presenterKeys = try keys.makeKeyFile("presenter")
            let login = SecureKeys.client(
                "login-service", loginKeys, role: "stepper", extra: SecureKeys.loginStepperRights)
            let daemon = try await keys.startFlowd(clients: [
                keys.operatorClient, login, SecureKeys.client("presenter", presenterKeys, role: "presenter"),
            ])
            let (watch, service, presenter) = try await keys.startDemo(
                on: daemon, loginKeys: loginKeys, presenterKeys: presenterKeys)
            let connection = daemon.connectionArguments + keys.operatorArguments

            // A config file that does not parse: nothing changes.
            try "{\"security\": ".write(toFile: keys.configFile, atomically: true, encoding: .utf8)
            var from = daemon.process.stderr.count
            daemon.process.signal(SIGHUP)
            try await daemon.process.waitForError(from: from, "the refused reload") {
                $0.contains("SIGHUP: the allow-list was not replaced") && $0.contains("is not a valid config")
            }
            let proceed = #"action onboarding.login proceed {"user":"demo","password":"demo"}"#
            #expect(try await presenter.run(proceed) == "ok \(proceed) delivered=1")
            try await watch.waitFor("did navigate flow=OnboardingFlow step=userIsLoggedIn")

            // The presenter's key taken off the list.
            try keys.writeConfig(clients: [keys.operatorClient, login])
            from = daemon.process.stderr.count
            daemon.process.signal(SIGHUP)
            try await daemon.process.waitForError(from: from, "the presenter's peer forgotten") {
                $0.contains("key revoked; peer forgotten") && $0.contains("name=presenter ")
            }
            #expect(
                daemon.process.stderr.lines.dropFirst(from).contains { $0.contains("SIGHUP: allow-list read again") })
            try await daemon.process.waitForError(from: from, "ZAP refusing the presenter's new connection") {
                $0.contains("connection refused by ZAP") && $0.contains("key=\(presenterKeys.publicKey.z85)")
            }

            let health = try await cluster.health(connection)
            #expect(count(health, "peers_revoked") == 1)
            #expect((count(health, "auth_denied") ?? 0) >= 1)
            let peers = health["peers"] as? [String: Int] ?? [:]
            #expect(peers["presenter"] ?? 0 == 0)
            #expect(peers["stepper"] == 1)
            #expect(service.exit == nil, "the login service keeps running")
            let sessions = try await cluster.flowctlSucceeding(["sessions", "--json"] + connection)
            let list = try JSONSerialization.jsonObject(with: Data(sessions.output.utf8)) as? [[String: Any]] ?? []
            #expect(list.compactMap { $0["id"] as? String } == ["default"])
            #expect(list.compactMap { $0["presenter"] as? String } == [], "nobody hosts the session: \(sessions)")
        }
    }

    // MARK: - Starting safely

    /// flowd will not listen on TCP without CURVE unless told to (`--allow-plaintext-tcp`), nor with a secret key file
    /// other users can read.
    @Test func flowdRefusesTCPWithoutKeysUnlessPlaintextIsAllowed() async throws {
        try await withCluster { cluster in
            let tcp = [
                "--control", "tcp://127.0.0.1:*", "--events", "tcp://127.0.0.1:*", "--runtime-dir",
                cluster.runtimeDirectory,
            ]
            let refused = try cluster.launch(Cluster.daemonExecutable, tcp, name: "flowd")
            let exit = await refused.waitForExit()
            #expect(exit != nil && exit != .exited(0))
            #expect(
                refused.stderr.lines.joined().contains("flowd refuses to listen on tcp://127.0.0.1:* without CURVE"))

            let keys = try await SecureKeys(in: cluster)
            chmod(keys.daemonKeyFile, 0o644)
            let exposed = try cluster.launch(
                Cluster.daemonExecutable, tcp + ["--key-file", keys.daemonKeyFile], name: "flowd"
            )
            #expect(await exposed.waitForExit() != .exited(0))
            #expect(exposed.stderr.lines.joined().contains("can be read by other users"), "\(exposed.diagnostics)")

            let daemon = try await cluster.startFlowd(["--allow-plaintext-tcp"] + tcp.dropLast(2))
            #expect(daemon.control.hasPrefix("tcp://127.0.0.1:"))
            _ = try await cluster.health(daemon.connectionArguments)
        }
    }

    /// The `ipc://` socket files are the daemon user's only (mode 0600).
    @Test func ipcSocketFilesAreForTheirUserOnly() async throws {
        try await withCluster { cluster in
            try await cluster.startFlowd()
            for name in ["control.sock", "events.sock"] {
                let attributes = try FileManager.default.attributesOfItem(atPath: "\(cluster.runtimeDirectory)/\(name)")
                #expect((attributes[.posixPermissions] as? Int) == 0o600, "\(name)")
            }
        }
    }
}

private func hello(_ req: UInt64, _ role: PeerRole, _ name: String, serves: [String] = []) -> ClientMessage {
    .hello(Hello(req: req, role: role, name: name, instance: "probe", heartbeatMs: 60_000, serves: serves))
}
