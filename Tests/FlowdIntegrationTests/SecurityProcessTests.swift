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
            let keys = try SecureKeys(in: cluster)
            let daemon = try await keys.startFlowd(clients: [keys.operatorClient])
            let stranger = try keys.makeKeyFile("stranger")

            let dealer = try CurveDealer(endpoint: daemon.control, curve: keys.curve(for: stranger))
            try dealer.send(
                .hello(Hello(req: 1, role: .operator, name: "stranger", instance: "x", heartbeatMs: 60_000)))
            try await daemon.process.waitForError("the ZAP refusal of the stranger's key") {
                $0.contains("connection refused by ZAP") && $0.contains("key=\(stranger.publicKey.z85) ")
            }
            #expect(try dealer.receive(within: 1000) == nil, "no WELCOME, nor anything else")

            let refused = try await cluster.flowctl(
                ["health", "--timeout", "1"] + daemon.connectionArguments
                    + keys.clientArguments(stranger, name: "stranger")
            )
            #expect(refused.exit == .exited(2), "\(refused)")
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
            let keys = try SecureKeys(in: cluster)
            let daemon = try await keys.startFlowd(clients: [keys.operatorClient])

            let dealer = try CurveDealer(endpoint: daemon.control, curve: nil)
            try dealer.send(.hello(Hello(req: 1, role: .operator, name: "plain", instance: "x", heartbeatMs: 60_000)))
            let events = try dealer.waitForConnectionEvent([.handshakeFailed, .disconnected, .handshakeSucceeded])
            #expect(
                events.last.map { !$0.kind.isDisjoint(with: [.handshakeFailed, .disconnected]) } == true, "\(events)")
            #expect(try dealer.receive(within: 1000) == nil)

            let plain = try await cluster.flowctl(["health", "--timeout", "1"] + daemon.connectionArguments)
            #expect(plain.exit == .exited(2), "\(plain)")
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
            let keys = try SecureKeys(in: cluster)
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
            #expect(try stepper.request(hello(1, .operator, "probe-stepper")) == .forbidden)
            #expect(
                try stepper.request(hello(2, .stepper, "probe-stepper", serves: ["login.form", "movies.detail"]))
                    == .forbidden)
            #expect(try stepper.hello(hello(3, .stepper, "probe-stepper", serves: ["login.form"])))
            let report = Report(
                req: 4, session: "default", reports: [PresentableReport(presentable: "app", state: .visible)])
            #expect(try stepper.request(.report(report)) == .forbidden)
            #expect(
                try stepper.request(.sync(Sync(req: 5, session: "default", lastSeq: 0, create: false))) == .forbidden)
            #expect(
                try stepper.request(
                    .deepLink(DeepLinkRequest(req: 6, session: "default", step: Step("logoutIsRequired"))))
                    == .forbidden)
            // A step the application knows, but not one declared for this key.
            #expect(
                try stepper.request(
                    .step(StepMessage(req: 7, session: "default", attachment: 1, step: Step("onboardingIsComplete"))))
                    == .forbidden)
            // A declared step passes the key's check (and is then refused for the attachment it names).
            #expect(
                try stepper.request(
                    .step(StepMessage(req: 8, session: "default", attachment: 999, step: Step("userIsLoggedIn"))))
                    == .unknownAttachment)

            let presenter = try CurveDealer(endpoint: daemon.control, curve: keys.curve(for: presenterKeys))
            #expect(try presenter.request(hello(1, .stepper, "probe-presenter")) == .forbidden)
            #expect(try presenter.hello(hello(2, .presenter, "probe-presenter")))
            #expect(
                try presenter.request(
                    .step(StepMessage(req: 3, session: "default", attachment: 1, step: Step("userIsLoggedIn"))))
                    == .forbidden)
            #expect(
                try presenter.request(
                    .deepLink(DeepLinkRequest(req: 4, session: "default", step: Step("userIsLoggedIn")))) == .forbidden)
            #expect(
                try presenter.request(.sync(Sync(req: 5, session: "kiosk", lastSeq: 0, create: true))) == .forbidden)
            #expect(
                try presenter.request(.sync(Sync(req: 6, session: "default", lastSeq: 0, create: false))) == nil, "OK")

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
            let keys = try SecureKeys(in: cluster)
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
            let keys = try SecureKeys(in: cluster)
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
            let keys = try SecureKeys(in: cluster)
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

            let keys = try SecureKeys(in: cluster)
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

// MARK: - Keys and config

/// The keys of one test, in `<runtime>/keys`: the daemon's and an operator's made by `flowctl keygen`, others made
/// here; and flowd's config file naming them.
private struct SecureKeys {
    let cluster: Cluster
    let folder: String
    let daemonKeyFile: String
    let serverKeyFile: String
    let operatorKeys: ZMQCurveKeyPair

    /// The login service's rights: the steps it emits and the kinds it serves.
    static let loginStepperRights =
        #""steps": ["onboardingIsRequired", "onboardingIsComplete", "userIsLoggedIn"], "#
        + #""kinds": ["login.app", "login.form", "login.apiKey", "login.logout"]"#

    init(in cluster: Cluster) throws {
        self.cluster = cluster
        folder = cluster.runtimeDirectory + "/keys"
        try FileManager.default.createDirectory(
            atPath: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700]
        )
        daemonKeyFile = folder + "/flowd.key"
        serverKeyFile = folder + "/flowd.pub"
        operatorKeys = try ZMQCurve.generateKeyPair()
        _ = try Self.keygen(cluster: cluster, prefix: folder + "/flowd")
        try writeKeyFile(operatorKeys, name: "admin")
    }

    /// Runs `flowctl keygen --out <prefix>` synchronously (it needs no daemon) and checks what it wrote.
    private static func keygen(cluster: Cluster, prefix: String) throws -> String {
        let process = Process()
        process.executableURL = cluster.binDirectory.appendingPathComponent("flowctl")
        process.arguments = ["keygen", "--out", prefix]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        process.waitUntilExit()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        guard process.terminationStatus == 0, let line = text.split(separator: "\n").first,
            line.hasPrefix("public-key: ")
        else { throw HarnessError("flowctl keygen failed: \(text)") }
        let attributes = try FileManager.default.attributesOfItem(atPath: prefix + ".key")
        guard attributes[.posixPermissions] as? Int == 0o600 else {
            throw HarnessError(
                "flowctl keygen wrote \(prefix).key with mode \(String(describing: attributes[.posixPermissions]))")
        }
        return String(line.dropFirst("public-key: ".count))
    }

    /// The allow-list entry of the operator key.
    var operatorClient: String { Self.client("admin", operatorKeys, role: "operator") }

    /// An allow-list entry (JSON).
    static func client(_ name: String, _ keys: ZMQCurveKeyPair, role: String, extra: String? = nil) -> String {
        #"{"name": "\#(name)", "public_key": "\#(keys.publicKey.z85)", "role": "\#(role)""#
            + (extra.map { ", " + $0 } ?? "") + "}"
    }

    /// Writes `<name>.key` (mode 0600) for `keys`.
    func writeKeyFile(_ keys: ZMQCurveKeyPair, name: String) throws {
        let path = "\(folder)/\(name).key"
        guard
            FileManager.default.createFile(
                atPath: path, contents: Data("# \(name)\n\(keys.secretKey.z85)\n".utf8),
                attributes: [.posixPermissions: 0o600]
            )
        else { throw HarnessError("cannot write \(path)") }
    }

    /// A new key pair with its key file `<name>.key`.
    func makeKeyFile(_ name: String) throws -> ZMQCurveKeyPair {
        let keys = try ZMQCurve.generateKeyPair()
        try writeKeyFile(keys, name: name)
        return keys
    }

    /// `--key-file … --server-key …` for a client whose key file is `<name>.key`.
    func clientArguments(_ keys: ZMQCurveKeyPair, name: String) -> [String] {
        ["--key-file", "\(folder)/\(name).key", "--server-key", serverKeyFile]
    }

    /// The operator's `flowctl` arguments.
    var operatorArguments: [String] { clientArguments(operatorKeys, name: "admin") }

    /// CURVE client settings for a raw socket with `keys`.
    func curve(for keys: ZMQCurveKeyPair) throws -> ZMQCurveSecurity {
        let serverKey = try ZMQCurveKey(
            z85: try String(contentsOfFile: serverKeyFile, encoding: .utf8)
                .split(separator: "\n").last.map(String.init) ?? "")
        return .client(keyPair: keys, serverKey: serverKey)
    }

    /// flowd's config file: its secret key file and the allow-list.
    var configFile: String { "\(folder)/flowd.json" }

    /// Writes flowd's config file with the allow-list `clients`.
    func writeConfig(clients: [String]) throws {
        let json = """
            {"security": {"secret_key_file": "flowd.key", "clients": [
              \(clients.joined(separator: ",\n  "))
            ]}}
            """
        try json.write(toFile: configFile, atomically: true, encoding: .utf8)
    }

    /// Starts the demo's clients on `daemon`, each with its key file: `flowctl watch` (the operator's key), the login
    /// service (`login-service.key`) and the presenter (`presenter.key`, named `presenter`); returns once the
    /// presenter shows the login form.
    func startDemo(
        on daemon: Daemon, loginKeys: ZMQCurveKeyPair, presenterKeys: ZMQCurveKeyPair
    ) async throws -> (watch: Watch, login: ManagedProcess, presenter: Presenter) {
        let watch = try await cluster.startWatch(
            session: "default", connection: daemon.connectionArguments + operatorArguments)
        let login = try cluster.startLoginService(
            ["--control", daemon.control] + clientArguments(loginKeys, name: "login-service"))
        try await watch.waitFor(DemoSystem.onboardingLog.last!)
        let presenter = try cluster.startPresenter(
            ["--control", daemon.control] + clientArguments(presenterKeys, name: "presenter"), name: "presenter"
        )
        try await presenter.waitFor("report onboarding.login visible")
        return (watch, login, presenter)
    }

    /// Starts flowd over TCP with CURVE (its secret key file) and the allow-list `clients` in its config file.
    func startFlowd(clients: [String]) async throws -> Daemon {
        try writeConfig(clients: clients)
        let config = configFile
        let daemon = try await cluster.startFlowd([
            "--config", config, "--control", "tcp://127.0.0.1:*", "--events", "tcp://127.0.0.1:*",
        ])
        let ready = daemon.process.stderr.lines.first { $0.contains("flowd ready") } ?? ""
        guard Cluster.metadata("curve", in: ready) == "on" else {
            throw HarnessError("flowd runs without CURVE: \(ready)")
        }
        return daemon
    }
}

private func hello(_ req: UInt64, _ role: PeerRole, _ name: String, serves: [String] = []) -> WireMessage {
    .hello(Hello(req: req, role: role, name: name, instance: "probe", heartbeatMs: 60_000, serves: serves))
}

// MARK: - A raw CURVE DEALER

/// A bare `DEALER` (or `SUB`) with CURVE client keys, or none: blocking, with bounded receives, and a monitor of its
/// connection.
///
/// Not `Sendable`: libzmq sockets belong to one thread; use it from one test.
private final class CurveDealer {
    private let context: ZMQContext
    private let socket: ZMQSocket
    private let monitor: ZMQSocket
    private let codec = WireCodec()

    init(endpoint: String, curve: ZMQCurveSecurity?, type: ZMQSocketType = .dealer) throws {
        context = try ZMQContext()
        // Messages are queued at once (no ZMQ_IMMEDIATE), so a HELLO waits for the handshake, which may never come.
        let options = ZMQSocketOptions(
            linger: .zero, maxMessageSize: nil, heartbeat: nil, immediateOnDealers: false, curve: curve
        )
        socket = try ZMQSocket(type, context: context, options: options)
        try socket.setOption(.receiveTimeout, to: 30_000)
        try socket.setOption(.sendTimeout, to: 30_000)
        if type == .sub { try socket.setOption(.subscribe, to: []) }
        let monitorEndpoint = "inproc://curve-dealer-monitor-\(UUID().uuidString)"
        try socket.startMonitor(at: monitorEndpoint)
        monitor = try ZMQSocket(.pair, context: context, options: ZMQSocketOptions(linger: .zero, heartbeat: nil))
        try monitor.setOption(.receiveTimeout, to: 30_000)
        try monitor.connect(monitorEndpoint)
        try socket.connect(endpoint)
    }

    deinit {
        try? socket.stopMonitor()
        socket.close()
        monitor.close()
    }

    func send(_ message: WireMessage) throws {
        try socket.send(ZMQMessage(codec.encode(message)))
    }

    /// The next message other than `HEARTBEAT`, `ATTACH` and `DETACH`, waiting at most `milliseconds`; `nil` if none
    /// came.
    func receive(within milliseconds: Int32 = 30_000) throws -> WireMessage? {
        try socket.setOption(.receiveTimeout, to: milliseconds)
        defer { try? socket.setOption(.receiveTimeout, to: 30_000) }
        while true {
            guard let message = try receiveFrames() else { return nil }
            let decoded = try codec.decode(message.frames)
            switch decoded {
            case .heartbeat, .attach, .detach: continue
            default: return decoded
            }
        }
    }

    /// The next message within the receive timeout, or `nil`.
    private func receiveFrames() throws(ZMQError) -> ZMQMessage? {
        do throws(ZMQError) {
            return try socket.receive()
        } catch {
            if error.code == .wouldBlock { return nil }
            throw error
        }
    }

    /// Sends a request and returns the code of its `ERROR`, or `nil` for an `OK` (fails on anything else, or silence).
    func request(_ message: WireMessage) throws -> WireError.Code? {
        try send(message)
        switch try receive() {
        case .error(let error)?:
            guard error.req == message.req else { throw HarnessError("an ERROR for another request: \(error)") }
            return error.code
        case .ok(let reply)? where reply.req == message.req:
            return nil
        case .welcome(let welcome)?:
            throw HarnessError("expected OK or ERROR, got WELCOME \(welcome)")
        case let other:
            throw HarnessError("expected OK or ERROR for \(message.type), got \(String(describing: other))")
        }
    }

    /// Says `HELLO`; whether the daemon answered `WELCOME`.
    func hello(_ message: WireMessage) throws -> Bool {
        try send(message)
        guard case .welcome? = try receive() else { return false }
        return true
    }

    /// Reads monitor events until one of `kinds` arrives; returns the events read, the matching one last.
    func waitForConnectionEvent(_ kinds: ZMQMonitorEvent.Kind) throws -> [ZMQMonitorEvent] {
        var events: [ZMQMonitorEvent] = []
        while true {
            guard let event = ZMQMonitorEvent(try monitor.receive()) else { continue }
            events.append(event)
            if !event.kind.isDisjoint(with: kinds) { return events }
        }
    }
}
