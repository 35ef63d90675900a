import FlowCore
import FlowWire
import Foundation
import ZeroMQ

/// The keys of one test, in `<runtime>/keys`: the daemon's and an operator's made by `flowctl keygen`, others made
/// here; and flowd's config file naming them.
struct SecureKeys {
    let cluster: Cluster
    let folder: String
    let daemonKeyFile: String
    let serverKeyFile: String
    let operatorKeys: ZMQCurveKeyPair

    /// The login service's rights: the steps it emits and the kinds it serves.
    static let loginStepperRights =
        #""steps": ["onboardingIsRequired", "onboardingIsComplete", "userIsLoggedIn"], "#
        + #""kinds": ["login.app", "login.form", "login.apiKey", "login.logout"]"#

    init(in cluster: Cluster) async throws {
        self.cluster = cluster
        folder = cluster.runtimeDirectory + "/keys"
        try FileManager.default.createDirectory(
            atPath: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700]
        )
        daemonKeyFile = folder + "/flowd.key"
        serverKeyFile = folder + "/flowd.pub"
        operatorKeys = try ZMQCurve.generateKeyPair()
        _ = try await Self.keygen(cluster: cluster, prefix: folder + "/flowd")
        try writeKeyFile(operatorKeys, name: "admin")
    }

    /// Runs `flowctl keygen --out <prefix>` (it needs no daemon) and checks what it wrote.
    private static func keygen(cluster: Cluster, prefix: String) async throws -> String {
        let result = try await cluster.flowctlSucceeding(["keygen", "--out", prefix])
        guard let line = result.stdout.first, line.hasPrefix("public-key: ") else {
            throw HarnessError("flowctl keygen printed no public key: \(result)")
        }
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
