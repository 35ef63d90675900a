internal import CZeroMQ

/// A 32-byte CurveZMQ key (public or secret).
///
/// Its `description` never shows the key, so a secret key cannot leak into a log by accident; use ``z85`` to write it.
public struct ZMQCurveKey: Hashable, Sendable, CustomStringConvertible {
    /// The key's length in bytes.
    public static let byteCount = 32

    /// The raw key.
    public let bytes: [UInt8]

    /// Wraps 32 raw bytes.
    ///
    /// - Throws: ``ZMQError/Code/invalidArgument`` unless `bytes` has 32 bytes.
    public init(bytes: [UInt8]) throws(ZMQError) {
        guard bytes.count == Self.byteCount else {
            throw ZMQError(.invalidArgument, call: "ZMQCurveKey(bytes:) with \(bytes.count) bytes")
        }
        self.bytes = bytes
    }

    /// Decodes the 40-character Z85 text form.
    ///
    /// - Throws: ``ZMQError/Code/invalidArgument`` unless `z85` is 40 valid Z85 characters.
    public init(z85: String) throws(ZMQError) {
        guard z85.utf8.count == 40 else {
            throw ZMQError(.invalidArgument, call: "ZMQCurveKey(z85:) with \(z85.utf8.count) characters")
        }
        try self.init(bytes: ZMQCurve.z85Decode(z85))
    }

    /// The 40-character Z85 text form.
    public var z85: String {
        // 32 bytes is a multiple of 4, so encoding cannot fail.
        (try? ZMQCurve.z85Encode(bytes)) ?? ""
    }

    public var description: String { "ZMQCurveKey(32 bytes)" }
}

/// A CurveZMQ key pair, from ``ZMQCurve/generateKeyPair()`` or a key file (``ZMQCurveKeyFile``). Its `description`
/// shows the public key only.
public struct ZMQCurveKeyPair: Hashable, Sendable, CustomStringConvertible {
    /// The key to give to peers (a server's is the clients' ``ZMQSocketOption/curveServerKey``).
    public let publicKey: ZMQCurveKey
    /// The key to keep: only ``ZMQSocketOption/curveSecretKey`` should see it.
    public let secretKey: ZMQCurveKey

    public var description: String { "ZMQCurveKeyPair(public: \(publicKey.z85))" }
}

/// CurveZMQ helpers: key generation and the Z85 text encoding (ZeroMQ RFC 32).
public enum ZMQCurve: Sendable {
    /// Whether this libzmq was built with CURVE support (`zmq_has("curve")`; Debian's is, with libsodium).
    public static var isAvailable: Bool { zmq_has("curve") == 1 }

    /// Generates a new key pair (`zmq_curve_keypair`).
    ///
    /// - Throws: ``ZMQError/Code/notSupported`` when libzmq has no CURVE support.
    public static func generateKeyPair() throws(ZMQError) -> ZMQCurveKeyPair {
        var publicText = [CChar](repeating: 0, count: 41)
        var secretText = [CChar](repeating: 0, count: 41)
        guard zmq_curve_keypair(&publicText, &secretText) == 0 else { throw ZMQError.last("zmq_curve_keypair") }
        return ZMQCurveKeyPair(
            publicKey: try ZMQCurveKey(z85: text(publicText)),
            secretKey: try ZMQCurveKey(z85: text(secretText))
        )
    }

    /// The public key that belongs to `secretKey` (`zmq_curve_public`).
    ///
    /// - Throws: ``ZMQError/Code/notSupported`` when libzmq has no CURVE support.
    public static func publicKey(for secretKey: ZMQCurveKey) throws(ZMQError) -> ZMQCurveKey {
        var publicText = [CChar](repeating: 0, count: 41)
        let secretText = Array(secretKey.z85.utf8CString)
        guard zmq_curve_public(&publicText, secretText) == 0 else { throw ZMQError.last("zmq_curve_public") }
        return try ZMQCurveKey(z85: text(publicText))
    }

    /// Encodes bytes as Z85 text (`zmq_z85_encode`).
    ///
    /// - Throws: ``ZMQError/Code/invalidArgument`` unless the byte count is a multiple of 4.
    public static func z85Encode(_ bytes: [UInt8]) throws(ZMQError) -> String {
        guard bytes.count % 4 == 0 else {
            throw ZMQError(.invalidArgument, call: "zmq_z85_encode(\(bytes.count) bytes, not a multiple of 4)")
        }
        var text = [CChar](repeating: 0, count: bytes.count / 4 * 5 + 1)
        let encoded = bytes.withUnsafeBufferPointer { buffer in
            zmq_z85_encode(&text, buffer.baseAddress, buffer.count)
        }
        guard encoded != nil else { throw ZMQError.last("zmq_z85_encode") }
        return self.text(text)
    }

    /// Decodes Z85 text (`zmq_z85_decode`).
    ///
    /// - Throws: ``ZMQError/Code/invalidArgument`` unless the length is a multiple of 5 and every character is in the
    ///   Z85 alphabet.
    public static func z85Decode(_ text: String) throws(ZMQError) -> [UInt8] {
        let characters = Array(text.utf8)
        guard characters.count % 5 == 0 else {
            throw ZMQError(
                .invalidArgument,
                call: "zmq_z85_decode(\(characters.count) characters, not a multiple of 5)"
            )
        }
        // Checked here too, so a bad character is reported the same way by every libzmq version.
        guard characters.allSatisfy(isZ85Character) else {
            throw ZMQError(.invalidArgument, call: "zmq_z85_decode(text with characters outside Z85)")
        }
        var bytes = [UInt8](repeating: 0, count: characters.count / 5 * 4)
        let cString = text.utf8CString
        let decoded = cString.withUnsafeBufferPointer { textBuffer in
            zmq_z85_decode(&bytes, textBuffer.baseAddress)
        }
        guard decoded != nil else { throw ZMQError(.invalidArgument, call: "zmq_z85_decode") }
        return bytes
    }

    /// The characters of a NUL-terminated C string buffer.
    private static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static let z85Alphabet = Set(
        "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#".utf8
    )

    private static func isZ85Character(_ character: UInt8) -> Bool { z85Alphabet.contains(character) }
}

/// The CURVE role a socket takes (``ZMQSocketOptions/curve``), set before it binds or connects.
///
/// Its `description` never shows a secret key (``ZMQCurveKey``'s own does not).
public enum ZMQCurveSecurity: Hashable, Sendable {
    /// A CURVE server (`ZMQ_CURVE_SERVER=1`, `ZMQ_CURVE_SECRETKEY`). With `zapDomain` (`ZMQ_ZAP_DOMAIN`), every
    /// handshake asks the context's ZAP handler (`inproc://zeromq.zap.01`) whether the client's public key may in; the
    /// user id the handler returns is on every message of that connection (`User-Id`, see
    /// ``ZMQSocket/tryReceive(withProperty:)``).
    case server(secretKey: ZMQCurveKey, zapDomain: String?)
    /// A CURVE client (`ZMQ_CURVE_SERVERKEY`, `ZMQ_CURVE_PUBLICKEY`, `ZMQ_CURVE_SECRETKEY`): the handshake only
    /// completes with the server that holds `serverKey`'s secret key.
    case client(keyPair: ZMQCurveKeyPair, serverKey: ZMQCurveKey)
}
