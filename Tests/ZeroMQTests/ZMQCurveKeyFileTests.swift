import Foundation
import Testing
@testable import ZeroMQ

@Suite(.timeLimit(.minutes(1)))
struct ZMQCurveKeyFileTests {
    @Test func aKeyFileIsReadPastItsCommentsAndBlankLines() async throws {
        try await withTemporaryDirectory { folder in
            let pair = try ZMQCurve.generateKeyPair()
            let path = folder + "/a.key"
            try ZMQCurveKeyFile.write(
                "# a comment\n\n#\n  \(pair.secretKey.z85)\t\r\n\(pair.publicKey.z85)\n", to: path, mode: 0o600,
                exclusive: true
            )
            #expect(try ZMQCurveKeyFile.read(path) == pair.secretKey.z85)
            #expect(try ZMQCurveKeyFile.keyPair(secretKeyFile: path) == pair)
            #expect(!ZMQCurveKeyFile.isExposedToOthers(path))
        }
    }

    @Test func aSecretKeyFileIsNeverReplacedAndKeepsItsMode() async throws {
        try await withTemporaryDirectory { folder in
            let path = folder + "/b.key"
            try ZMQCurveKeyFile.write("first\n", to: path, mode: 0o600, exclusive: true)
            #expect(throws: ZMQCurveKeyFileError.self) {
                try ZMQCurveKeyFile.write("second\n", to: path, mode: 0o600, exclusive: true)
            }
            #expect(try ZMQCurveKeyFile.read(path) == "first")
            let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
            #expect(mode == 0o600)
            // A public key file may be replaced; one others may read is told apart (whatever the umask).
            let shared = folder + "/b.pub"
            try ZMQCurveKeyFile.write("old\n", to: shared, mode: 0o644, exclusive: false)
            try ZMQCurveKeyFile.write("new\n", to: shared, mode: 0o644, exclusive: false)
            #expect(try ZMQCurveKeyFile.read(shared) == "new")
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: shared)
            #expect(ZMQCurveKeyFile.isExposedToOthers(shared))
        }
    }

    @Test func unusableKeyFilesSayWhy() async throws {
        try await withTemporaryDirectory { folder in
            let missing = folder + "/missing.key"
            #expect(throws: ZMQCurveKeyFileError(path: missing, reason: "cannot be read: No such file or directory")) {
                try ZMQCurveKeyFile.read(missing)
            }
            let comments = folder + "/comments.key"
            try ZMQCurveKeyFile.write("# only a comment\n\n", to: comments, mode: 0o600, exclusive: true)
            #expect(throws: ZMQCurveKeyFileError(path: comments, reason: "holds no key")) {
                try ZMQCurveKeyFile.read(comments)
            }
            let wrong = folder + "/wrong.key"
            try ZMQCurveKeyFile.write("not-a-key\n", to: wrong, mode: 0o600, exclusive: true)
            #expect(
                throws: ZMQCurveKeyFileError(path: wrong, reason: "does not hold a 40-character Z85 secret key")
            ) {
                try ZMQCurveKeyFile.keyPair(secretKeyFile: wrong)
            }
            #expect("\(ZMQCurveKeyFileError(path: wrong, reason: "holds no key"))" == "key file \(wrong) holds no key")
        }
    }
}
