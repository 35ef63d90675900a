public import FlowWire
public import ZeroMQ

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

// MARK: - The allow-list

/// One client key the daemon lets in (an entry of the config file's `security.clients`), and what it may do.
///
/// The ZAP handler admits a connection only when its CURVE public key is one of these; the connection's messages then
/// carry the entry's ``name`` (`User-Id`), and ``DaemonCore`` holds the peer to the entry: its `HELLO` must claim
/// ``role``, a stepper may serve only ``kinds`` and emit only ``steps``, a presenter may host only ``sessions``.
/// `"*"` in a list allows everything.
public struct AllowedClient: Sendable, Hashable, Codable {
    /// The key's name: the `User-Id` of its connections, in logs (`[A-Za-z0-9._-]{1,64}`, unique).
    public var name: String
    /// The client's CURVE public key, Z85 (40 characters, unique).
    public var publicKey: String
    /// The only role the key may take in `HELLO`.
    public var role: PeerRole
    /// Steppers: the step names the key may emit (required).
    public var steps: [String]?
    /// Steppers: the stepper kinds the key may serve (`HELLO.serves`, required).
    public var kinds: [String]?
    /// Presenters: the sessions the key may host (`SYNC`, including creating them); `nil`: any.
    public var sessions: [String]?

    public init(
        name: String, publicKey: String, role: PeerRole, steps: [String]? = nil, kinds: [String]? = nil,
        sessions: [String]? = nil
    ) {
        self.name = name
        self.publicKey = publicKey
        self.role = role
        self.steps = steps
        self.kinds = kinds
        self.sessions = sessions
    }

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case name, role, steps, kinds, sessions
        case publicKey = "public_key"
    }

    /// Whether the key may emit a step named `step`.
    package func mayEmit(_ step: String) -> Bool { Self.allows(steps, step) }

    /// Whether the key may serve the stepper kind `kind`.
    package func mayServe(_ kind: String) -> Bool { Self.allows(kinds, kind) }

    /// Whether the key may host the session `session`.
    package func mayHost(_ session: String) -> Bool { sessions.map { Self.allows($0, session) } ?? true }

    private static func allows(_ list: [String]?, _ value: String) -> Bool {
        guard let list else { return false }
        return list.contains(value) || list.contains("*")
    }
}

/// The allow-list of client keys, checked: what the ZAP handler and ``DaemonCore`` consult.
public struct AccessPolicy: Sendable, Hashable {
    /// The ZAP domain of the control socket.
    package static let controlDomain = "flowd"
    /// The ZAP domain of the events socket.
    package static let eventsDomain = "flowd.events"

    /// The allowed clients, in the order given.
    public let clients: [AllowedClient]
    /// The roles whose keys may subscribe to the events socket (default: operators only).
    public let eventsRoles: Set<PeerRole>
    private let byName: [String: AllowedClient]
    private let byKey: [[UInt8]: String]

    /// Checks and indexes an allow-list.
    ///
    /// - Throws: ``AccessPolicyError`` for a name that breaks its pattern, a key that is not 40 Z85 characters, a name
    ///   or key given twice, a stepper without `steps` or `kinds`, or `steps`/`kinds` on another role.
    public init(clients: [AllowedClient], eventsRoles: Set<PeerRole> = [.operator]) throws(AccessPolicyError) {
        var byName: [String: AllowedClient] = [:]
        var byKey: [[UInt8]: String] = [:]
        for client in clients {
            guard WireProtocol.isValidName(client.name) else {
                throw AccessPolicyError("client name '\(client.name)' is not [A-Za-z0-9._-]{1,64}")
            }
            guard byName[client.name] == nil else { throw AccessPolicyError("client '\(client.name)' is listed twice") }
            let key: ZMQCurveKey
            do {
                key = try ZMQCurveKey(z85: client.publicKey)
            } catch {
                throw AccessPolicyError("client '\(client.name)': public_key is not a 40-character Z85 key")
            }
            if let other = byKey[key.bytes] {
                throw AccessPolicyError("clients '\(other)' and '\(client.name)' have the same public key")
            }
            switch client.role {
            case .stepper:
                guard let steps = client.steps, let kinds = client.kinds else {
                    throw AccessPolicyError(
                        "stepper '\(client.name)' needs \"steps\" and \"kinds\" (the step names and stepper kinds "
                            + "its key may use; [\"*\"] for any)"
                    )
                }
                if let bad = steps.first(where: { $0 != "*" && !WireProtocol.isValidStepName($0) }) {
                    throw AccessPolicyError("stepper '\(client.name)': step name '\(bad)' is not valid")
                }
                if let bad = kinds.first(where: { $0 != "*" && !WireProtocol.isValidKind($0) }) {
                    throw AccessPolicyError("stepper '\(client.name)': stepper kind '\(bad)' is not valid")
                }
            case .presenter, .operator:
                if client.steps != nil || client.kinds != nil {
                    throw AccessPolicyError(
                        "client '\(client.name)' has the role \(client.role.rawValue): only steppers have \"steps\" and "
                            + "\"kinds\""
                    )
                }
            }
            if client.sessions != nil, client.role != .presenter {
                throw AccessPolicyError("client '\(client.name)': only presenters have \"sessions\"")
            }
            if let bad = client.sessions?.first(where: { $0 != "*" && !WireProtocol.isValidName($0) }) {
                throw AccessPolicyError("presenter '\(client.name)': session '\(bad)' is not valid")
            }
            byName[client.name] = client
            byKey[key.bytes] = client.name
        }
        self.clients = clients
        self.eventsRoles = eventsRoles
        self.byName = byName
        self.byKey = byKey
    }

    /// The entry named `name` (a connection's `User-Id`).
    package func client(named name: String) -> AllowedClient? { byName[name] }

    /// The entry of the 32-byte public key `key`.
    package func client(publicKey key: [UInt8]) -> AllowedClient? { byKey[key].flatMap { byName[$0] } }

    /// The entry of a connection's `User-Id`: its public key in Z85, as ``ZAPHandler`` returns it.
    package func client(userID: String) -> AllowedClient? {
        guard let key = try? ZMQCurveKey(z85: userID) else { return nil }
        return client(publicKey: key.bytes)
    }
}

/// An allow-list that cannot be used.
public struct AccessPolicyError: Error, Sendable, Hashable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

// MARK: - The daemon's CURVE setup

/// CURVE on the daemon's sockets: its key pair and whom it lets in (``DaemonServer/Configuration/security``).
///
/// With it, the control ROUTER and the events XPUB are CURVE servers (ZAP domains ``AccessPolicy/controlDomain`` and
/// ``AccessPolicy/eventsDomain``), a ZAP handler on the daemon's I/O thread admits only the allow-list's keys, and
/// every message reaches the core with its key's name.
public struct DaemonSecurity: Sendable, Hashable {
    /// The daemon's long-term key pair; clients need its public key (their `ZMQ_CURVE_SERVERKEY`).
    public var keyPair: ZMQCurveKeyPair
    /// The allowed client keys and their rights.
    public var policy: AccessPolicy

    public init(keyPair: ZMQCurveKeyPair, policy: AccessPolicy) {
        self.keyPair = keyPair
        self.policy = policy
    }
}

// MARK: - ZAP

/// The ZAP handler's decisions (ZeroMQ RFC 27), as a pure function of the request and the allow-list; the
/// ``DaemonServer`` runs it on its I/O thread behind a ROUTER bound at `inproc://zeromq.zap.01`.
package enum ZAPHandler: Sendable {
    /// The ZAP endpoint libzmq asks, in the server socket's context.
    package static let endpoint = "inproc://zeromq.zap.01"

    /// What the handler decided about one connection.
    package struct Decision: Sendable, Hashable {
        /// Whether the connection may in (`200`).
        package var allowed: Bool
        /// The allowed key's name, or `nil`.
        package var client: String?
        /// The ZAP domain asked about.
        package var domain: String
        /// The peer's address (`127.0.0.1`, or `localhost:<uid>:<gid>:<pid>` over ipc).
        package var address: String
        /// The client's public key (Z85), when the request carried one.
        package var publicKey: String?
        /// Why (the reply's status text).
        package var reason: String
    }

    /// Answers one ZAP request as a ROUTER received it: `[routing id, "", "1.0", request id, domain, address,
    /// identity, mechanism, credentials…]`.
    ///
    /// A CURVE client whose key is allowed on `domain` gets `200` with its public key (Z85) as user id, which every
    /// message of the connection then carries (the key, not the name: a key taken off the allow-list or replaced under
    /// the same name is recognised on connections admitted before); anyone else `400` (libzmq then drops the
    /// connection without telling the client). A request that is not ZAP 1.0 gets `500` when it can be
    /// answered at all.
    ///
    /// - Returns: the reply's frames (with the routing id) and the decision, or `nil` for a message that cannot be
    ///   answered (too few frames).
    package static func answer(_ frames: [[UInt8]], policy: AccessPolicy) -> (reply: [[UInt8]], decision: Decision)? {
        guard frames.count >= 8, frames[1].isEmpty else { return nil }
        let requestID = frames[3]
        let text = { (index: Int) in String(decoding: frames[index], as: UTF8.self) }
        var decision = Decision(allowed: false, client: nil, domain: text(4), address: text(5), reason: "")
        let status: String
        if text(2) != "1.0" {
            status = "500"
            decision.reason = "unsupported ZAP version"
        } else if text(7) != "CURVE" || frames.count < 9 || frames[8].count != ZMQCurveKey.byteCount {
            status = "400"
            decision.reason = "CURVE required"
        } else {
            decision.publicKey = try? ZMQCurve.z85Encode(frames[8])
            if let client = policy.client(publicKey: frames[8]) {
                let mayIn =
                    decision.domain == AccessPolicy.controlDomain
                    || (decision.domain == AccessPolicy.eventsDomain && policy.eventsRoles.contains(client.role))
                decision.client = client.name
                decision.allowed = mayIn
                decision.reason = mayIn ? "OK" : "a \(client.role.rawValue) key may not use \(decision.domain)"
            } else {
                decision.reason = "key not allowed"
            }
            status = decision.allowed ? "200" : "400"
        }
        let reply: [[UInt8]] = [
            frames[0], [], Array("1.0".utf8), requestID, Array(status.utf8), Array(decision.reason.utf8),
            decision.allowed ? Array((decision.publicKey ?? "").utf8) : [], [],
        ]
        return (reply, decision)
    }
}

// MARK: - Configuration

extension FlowdConfigFile {
    /// The config file's `security` section: CURVE and the allow-list (docs/SECURITY.md). Every field may be left out.
    ///
    /// ```json
    /// "security": {
    ///   "secret_key_file": "/etc/flowd/keys/flowd.key",
    ///   "clients": [
    ///     {"name": "login-service", "public_key": "…40 Z85 characters…", "role": "stepper",
    ///      "steps": ["loginIsRequired", "userIsLoggedIn"], "kinds": ["login.app", "login.form"]},
    ///     {"name": "tui", "public_key": "…", "role": "presenter", "sessions": ["default"]},
    ///     {"name": "admin", "public_key": "…", "role": "operator"}
    ///   ],
    ///   "events_roles": ["operator"],
    ///   "allow_plaintext_tcp": false
    /// }
    /// ```
    ///
    /// Relative paths are relative to the config file's folder.
    package struct Security: Codable, Sendable, Hashable {
        /// The daemon's CURVE secret key file; CURVE is on when it is named.
        package var secretKeyFile: String?
        /// The allowed client keys.
        package var clients: [AllowedClient]?
        /// A JSON file holding more allowed client keys (an array of ``AllowedClient``).
        package var clientsFile: String?
        /// The roles whose keys may subscribe to the events socket; default `["operator"]`.
        package var eventsRoles: [PeerRole]?
        /// Whether `tcp://` endpoints may run without CURVE (default `false`: flowd refuses to start).
        package var allowPlaintextTCP: Bool?

        package init() {}

        package enum CodingKeys: String, CodingKey, CaseIterable {
            case clients
            case secretKeyFile = "secret_key_file"
            case clientsFile = "clients_file"
            case eventsRoles = "events_roles"
            case allowPlaintextTCP = "allow_plaintext_tcp"
        }
    }
}

/// Why flowd will not start with the security settings it was given.
package struct FlowdSecurityError: Error, Sendable, Hashable, CustomStringConvertible {
    package let description: String
    init(_ description: String) { self.description = description }
}

/// Turns the `security` section and the flags into a ``DaemonSecurity`` (or none), and refuses unsafe setups.
package enum FlowdSecuritySettings: Sendable {
    /// The daemon's security.
    ///
    /// - Parameters:
    ///   - section: the config file's `security` section, if any.
    ///   - configPath: the config file's path (its folder anchors the section's relative paths).
    ///   - keyFile: `--key-file` (overrides `secret_key_file`).
    ///   - clientsFile: `--clients-file` (overrides `clients_file`).
    ///   - allowPlaintextTCP: `--allow-plaintext-tcp` (or'ed with `allow_plaintext_tcp`).
    ///   - endpoints: the endpoints flowd will bind.
    /// - Returns: `nil` when no secret key is named (no CURVE).
    /// - Throws: ``FlowdSecurityError`` when a `tcp://` endpoint would run without CURVE and plaintext is not
    ///   explicitly allowed, when the secret key file is unreadable, malformed or open to others, or when the
    ///   allow-list is not valid.
    package static func resolve(
        _ section: FlowdConfigFile.Security?, configPath: String?, keyFile: String?, clientsFile: String?,
        allowPlaintextTCP: Bool, endpoints: [String]
    ) throws(FlowdSecurityError) -> DaemonSecurity? {
        let section = section ?? FlowdConfigFile.Security()
        let anchor = configPath.map(PathParts.folder(of:))
        let secretKeyFile = keyFile ?? section.secretKeyFile.map { relative($0, to: anchor) }
        guard let secretKeyFile else {
            let plaintextAllowed = allowPlaintextTCP || section.allowPlaintextTCP == true
            if let tcp = endpoints.first(where: { $0.hasPrefix("tcp://") }), !plaintextAllowed {
                throw FlowdSecurityError(
                    "flowd refuses to listen on \(tcp) without CURVE: name the daemon's secret key (--key-file, or "
                        + "security.secret_key_file in the config file; `flowctl keygen` makes one) and the allowed "
                        + "client keys (security.clients), or allow unauthenticated, unencrypted connections with "
                        + "--allow-plaintext-tcp (security.allow_plaintext_tcp)"
                )
            }
            // An allow-list, even an empty one (which lets nobody in), means keys were meant: without the daemon's
            // key it would be ignored and every connection let in.
            if section.clients != nil || section.clientsFile != nil || clientsFile != nil {
                throw FlowdSecurityError(
                    "an allow-list is given (security.clients, a clients file) but no secret key is named "
                        + "(--key-file or security.secret_key_file)"
                )
            }
            return nil
        }
        guard ZMQCurve.isAvailable else { throw FlowdSecurityError("this libzmq has no CURVE support") }
        if ZMQCurveKeyFile.isExposedToOthers(secretKeyFile) {
            throw FlowdSecurityError(
                "the secret key file \(secretKeyFile) can be read by other users: chmod 600 it (or 640 for a group)"
            )
        }
        let keyPair: ZMQCurveKeyPair
        do {
            keyPair = try ZMQCurveKeyFile.keyPair(secretKeyFile: secretKeyFile)
        } catch {
            throw FlowdSecurityError("\(error)")
        }
        return DaemonSecurity(
            keyPair: keyPair, policy: try accessPolicy(section, configPath: configPath, clientsFile: clientsFile)
        )
    }

    /// The allow-list of the `security` section: its `clients` and those of the clients file (`clientsFile`, the
    /// `--clients-file` flag, wins over the section's `clients_file`), with its `events_roles`. What flowd reads again
    /// on SIGHUP.
    ///
    /// - Throws: ``FlowdSecurityError`` when the clients file cannot be read or the allow-list is not valid.
    package static func accessPolicy(
        _ section: FlowdConfigFile.Security?, configPath: String?, clientsFile: String?
    ) throws(FlowdSecurityError) -> AccessPolicy {
        let section = section ?? FlowdConfigFile.Security()
        var clients = section.clients ?? []
        if let listFile = clientsFile ?? section.clientsFile.map({ relative($0, to: configPath.map(PathParts.folder(of:))) }) {
            clients += try readClients(listFile)
        }
        do {
            return try AccessPolicy(clients: clients, eventsRoles: Set(section.eventsRoles ?? [.operator]))
        } catch {
            throw FlowdSecurityError("the allowed clients are not valid: \(error)")
        }
    }

    private static func readClients(_ path: String) throws(FlowdSecurityError) -> [AllowedClient] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw FlowdSecurityError("the clients file \(path) cannot be read")
        }
        do {
            return try JSONDecoder().decode([AllowedClient].self, from: data)
        } catch {
            throw FlowdSecurityError(
                "the clients file \(path) is not a JSON array of clients: "
                    + JSONDecodingProblem.describe(error, in: Array(data)))
        }
    }

    private static func relative(_ path: String, to folder: String?) -> String {
        guard let folder, !path.hasPrefix("/") else { return path }
        return folder.hasSuffix("/") ? folder + path : folder + "/" + path
    }
}
