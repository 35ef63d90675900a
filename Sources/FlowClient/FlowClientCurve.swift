public import FlowWire
public import ZeroMQ
internal import LibC

/// CURVE towards a daemon that runs with keys (`docs/SECURITY.md`): the client's key pair and the daemon's public key.
///
/// Set it as ``FlowClientConfiguration/curve``; every socket the client makes (the control `DEALER`, the events `SUB`)
/// is then a CURVE client. The daemon lets the connection in only when the client's public key is on its allow-list,
/// and holds it to that entry's role. A connection the daemon refuses, or one to the wrong server key, never completes:
/// requests time out (``FlowClientError/Code/timedOut``) and the client keeps trying, as with an absent daemon.
public struct FlowClientCurve: Hashable, Sendable, CustomStringConvertible {
    /// The client's long-term key pair (its public key is what the daemon's allow-list names).
    public var keyPair: ZMQCurveKeyPair
    /// The daemon's public key.
    public var serverKey: ZMQCurveKey

    public init(keyPair: ZMQCurveKeyPair, serverKey: ZMQCurveKey) {
        self.keyPair = keyPair
        self.serverKey = serverKey
    }

    /// The environment variable naming the client's secret key file.
    public static let keyFileVariable = "FLOWD_KEY_FILE"
    /// The environment variable holding the daemon's public key (Z85) or naming a file that holds it.
    public static let serverKeyVariable = "FLOWD_SERVER_KEY"

    /// The CURVE settings of command-line flags, falling back to `FLOWD_KEY_FILE` and `FLOWD_SERVER_KEY`.
    ///
    /// - Parameters:
    ///   - keyFile: the client's secret key file (`--key-file`), as `flowctl keygen` writes it.
    ///   - serverKey: the daemon's public key (`--server-key`): 40 Z85 characters, or the path of a file holding them
    ///     (such as the daemon's `.pub` file).
    /// - Returns: `nil` when neither is given anywhere (plaintext).
    /// - Throws: ``FlowClientError/Code/invalidConfiguration`` when only one is given, or a key cannot be read.
    public static func resolve(
        keyFile: String?, serverKey: String?,
        environment: [String: String] = FlowdEndpoints.currentEnvironment()
    ) throws(FlowClientError) -> FlowClientCurve? {
        let keyFile = keyFile ?? environment[keyFileVariable].flatMap { $0.isEmpty ? nil : $0 }
        let serverKey = serverKey ?? environment[serverKeyVariable].flatMap { $0.isEmpty ? nil : $0 }
        switch (keyFile, serverKey) {
        case (nil, nil):
            return nil
        case (let keyFile?, let serverKey?):
            return FlowClientCurve(
                keyPair: try loadKeyPair(secretKeyFile: keyFile), serverKey: try loadPublicKey(serverKey))
        case (nil, _):
            throw FlowClientError(
                .invalidConfiguration, "a server key needs the client's own key too (--key-file or \(keyFileVariable))"
            )
        case (_, nil):
            throw FlowClientError(
                .invalidConfiguration,
                "a key file needs the daemon's public key too (--server-key or \(serverKeyVariable))"
            )
        }
    }

    /// The key pair of a secret key file (the public key is computed from the secret one).
    ///
    /// - Throws: ``FlowClientError/Code/invalidConfiguration`` when the file cannot be read or holds no Z85 secret key.
    public static func loadKeyPair(secretKeyFile path: String) throws(FlowClientError) -> ZMQCurveKeyPair {
        do {
            return try ZMQCurveKeyFile.keyPair(secretKeyFile: path)
        } catch {
            throw FlowClientError(.invalidConfiguration, error.description)
        }
    }

    /// A public key given as 40 Z85 characters, or as the path of a file holding them.
    ///
    /// - Throws: ``FlowClientError/Code/invalidConfiguration`` when it is neither.
    public static func loadPublicKey(_ textOrPath: String) throws(FlowClientError) -> ZMQCurveKey {
        if let key = try? ZMQCurveKey(z85: textOrPath) { return key }
        let text: String
        do {
            text = try ZMQCurveKeyFile.read(textOrPath)
        } catch {
            throw FlowClientError(.invalidConfiguration, error.description)
        }
        do {
            return try ZMQCurveKey(z85: text)
        } catch {
            throw FlowClientError(.invalidConfiguration, "\(textOrPath) does not hold a 40-character Z85 public key")
        }
    }

    /// Makes a new key pair and, with `prefix`, writes `<prefix>.key` (the secret key, mode 0600, never overwritten)
    /// and `<prefix>.pub` (the public key, mode 0644).
    ///
    /// - Throws: ``FlowClientError/Code/invalidConfiguration`` when libzmq has no CURVE or a file cannot be written
    ///   (the secret key file exists already, say).
    public static func generate(writingTo prefix: String? = nil) throws(FlowClientError) -> ZMQCurveKeyPair {
        let pair: ZMQCurveKeyPair
        do {
            pair = try ZMQCurve.generateKeyPair()
        } catch {
            throw FlowClientError(.invalidConfiguration, "cannot make a CURVE key pair: \(error)")
        }
        if let prefix {
            try write(
                "# flowd CURVE secret key (Z85). Keep it private: whoever holds it is this client.\n"
                    + pair.secretKey.z85 + "\n",
                to: prefix + ".key", mode: 0o600, exclusive: true
            )
            try write(
                "# flowd CURVE public key (Z85): give it to the daemon's allow-list (clients use a daemon's as "
                    + "--server-key).\n" + pair.publicKey.z85 + "\n",
                to: prefix + ".pub", mode: 0o644, exclusive: false
            )
        }
        return pair
    }

    private static func write(_ text: String, to path: String, mode: mode_t, exclusive: Bool) throws(FlowClientError) {
        do {
            try ZMQCurveKeyFile.write(text, to: path, mode: mode, exclusive: exclusive)
        } catch {
            throw FlowClientError(.invalidConfiguration, error.description)
        }
    }

    /// Shows the public keys only.
    public var description: String {
        "FlowClientCurve(client: \(keyPair.publicKey.z85), server: \(serverKey.z85))"
    }
}
