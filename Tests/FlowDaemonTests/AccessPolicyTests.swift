import FlowDaemon
import Foundation
import Testing
import ZeroMQ

/// The allow-list and the `security` settings.
struct AccessPolicyTests {
    @Test func anAllowListThatCannotBeTrustedIsRefused() throws {
        let key = AllowListKeys.movies.z85
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
                AllowedClient(name: "a", publicKey: AllowListKeys.admin.z85, role: .operator),
            ],
        ]
        for clients in cases {
            #expect(throws: AccessPolicyError.self, "\(clients)") { try AccessPolicy(clients: clients) }
        }
    }

    @Test func theSecuritySectionDecodesFromJSON() throws {
        let json = """
            {"secret_key_file": "flowd.key", "allow_plaintext_tcp": false, "events_roles": ["operator", "presenter"],
             "clients": [{"name": "movies", "public_key": "\(AllowListKeys.movies.z85)", "role": "stepper",
                          "steps": ["openDetail"], "kinds": ["home"]},
                         {"name": "tui", "public_key": "\(AllowListKeys.tui.z85)", "role": "presenter",
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
        section.clients = [AllowedClient(name: "admin", publicKey: AllowListKeys.admin.z85, role: .operator)]
        let security = try #require(
            try FlowdSecuritySettings.resolve(
                section, configPath: folder.appendingPathComponent("flowd.json").path, keyFile: nil, clientsFile: nil,
                allowPlaintextTCP: false, endpoints: ["tcp://127.0.0.1:5560"]
            )
        )
        #expect(security.keyPair == pair)
        #expect(security.policy.client(publicKey: AllowListKeys.admin.bytes)?.name == "admin")

        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: keyPath)
        #expect(throws: FlowdSecurityError.self) {
            try FlowdSecuritySettings.resolve(
                nil, configPath: nil, keyFile: keyPath, clientsFile: nil, allowPlaintextTCP: false, endpoints: []
            )
        }
        // Clients without a daemon key are a mistake, not plaintext; so is an empty allow-list, which lets nobody in
        // with a key and would let everyone in without one.
        #expect(throws: FlowdSecurityError.self) {
            try FlowdSecuritySettings.resolve(
                section.clearingKey, configPath: nil, keyFile: nil, clientsFile: nil, allowPlaintextTCP: true,
                endpoints: []
            )
        }
        var empty = section.clearingKey
        empty.clients = []
        #expect(throws: FlowdSecurityError.self) {
            try FlowdSecuritySettings.resolve(
                empty, configPath: nil, keyFile: nil, clientsFile: nil, allowPlaintextTCP: false, endpoints: []
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
