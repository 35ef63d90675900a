public import LibC

/// CURVE key files: the Z85 key on a line of its own; empty lines and comment lines (`#` alone, or `# ` and text;
/// `#` is a Z85 character but space is not) are skipped. A secret key file should have mode 0600 (0640 for a group of
/// services); a public key file may be shared. The daemon and its clients read and write them the same way.
public enum ZMQCurveKeyFile: Sendable {
    /// The key a key file holds: its first line that is not empty or a comment, trimmed.
    ///
    /// - Throws: ``ZMQCurveKeyFileError`` when the file cannot be read or holds no such line.
    public static func read(_ path: String) throws(ZMQCurveKeyFileError) -> String {
        guard let file = fopen(path, "r") else {
            throw ZMQCurveKeyFileError(path: path, reason: "cannot be read: \(String(cString: strerror(errno)))")
        }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 65536 {
            let count = fread(&buffer, 1, buffer.count, file)
            if count <= 0 { break }
            bytes += buffer.prefix(count)
        }
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        for line in String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isNewline) {
            let trimmed = String(String(line.drop(while: blank).reversed().drop(while: blank).reversed()))
            if trimmed.isEmpty || trimmed == "#" || trimmed.hasPrefix("# ") { continue }
            return trimmed
        }
        throw ZMQCurveKeyFileError(path: path, reason: "holds no key")
    }

    /// The key pair of a secret key file (the public key is computed from the secret one).
    ///
    /// - Throws: ``ZMQCurveKeyFileError`` when the file cannot be read or holds no Z85 secret key.
    public static func keyPair(secretKeyFile path: String) throws(ZMQCurveKeyFileError) -> ZMQCurveKeyPair {
        let text = try read(path)
        do {
            let secret = try ZMQCurveKey(z85: text)
            return ZMQCurveKeyPair(publicKey: try ZMQCurve.publicKey(for: secret), secretKey: secret)
        } catch {
            throw ZMQCurveKeyFileError(path: path, reason: "does not hold a 40-character Z85 secret key")
        }
    }

    /// Writes `text` to a new file created with `mode` (so a secret is never readable by others, not even briefly);
    /// with `exclusive`, an existing file is an error instead of being replaced.
    ///
    /// - Throws: ``ZMQCurveKeyFileError`` when the file cannot be created or written.
    public static func write(_ text: String, to path: String, mode: mode_t, exclusive: Bool) throws(ZMQCurveKeyFileError) {
        let flags = O_WRONLY | O_CREAT | (exclusive ? O_EXCL : O_TRUNC)
        let descriptor = open(path, flags, mode)
        guard descriptor >= 0 else {
            throw ZMQCurveKeyFileError(path: path, reason: "cannot be written: \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { posixWrite(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count else {
            throw ZMQCurveKeyFileError(path: path, reason: "cannot be written: \(String(cString: strerror(errno)))")
        }
    }

    /// Whether users other than the file's owner and group may read or write the file at `path`.
    public static func isExposedToOthers(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        return info.st_mode & 0o007 != 0
    }
}

/// A key file that could not be read, written or used.
public struct ZMQCurveKeyFileError: Error, Sendable, Hashable, CustomStringConvertible {
    public let path: String
    public let reason: String
    public var description: String { "key file \(path) \(reason)" }
}

/// `write(2)` (the name is taken inside ``ZMQCurveKeyFile``).
private func posixWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}
