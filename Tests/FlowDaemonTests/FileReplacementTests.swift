@testable import FlowDaemon
import Foundation
import Testing

/// `FileReplacement.replace`: the new bytes, mode 0600, and nothing left under the temporary name, whatever was there
/// before or whatever fails.
struct FileReplacementTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("file-replacement-\(UUID().uuidString)")

    init() throws { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }

    private func cleanUp() { try? FileManager.default.removeItem(at: folder) }
    private func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

    @Test(arguments: [false, true])
    func theFileIsReplacedWholeAndTheTemporaryNameLeftEmpty(synced: Bool) throws {
        defer { cleanUp() }
        let path = folder.appendingPathComponent("names").path
        let temporary = path + ".tmp"
        try Data("old and longer".utf8).write(to: URL(fileURLWithPath: path))
        // What a crash left under the temporary name: a longer file, then a fifo (opening it would block).
        try Data(repeating: 0x41, count: 100).write(to: URL(fileURLWithPath: temporary))
        try FileReplacement.replace(path, with: Array("new".utf8), writingAside: temporary, synced: synced)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data("new".utf8))
        #expect(!exists(temporary))
        #expect(mkfifo(temporary, 0o600) == 0)
        try FileReplacement.replace(path, with: Array("newer".utf8), writingAside: temporary, synced: synced)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data("newer".utf8))
        #expect(!exists(temporary))
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
    }

    @Test func aRenameThatFailsIsAnIOErrorAndRemovesTheTemporaryFile() throws {
        defer { cleanUp() }
        // A directory with a file in it cannot be renamed over.
        let path = folder.appendingPathComponent("apps").path
        try FileManager.default.createDirectory(atPath: path + "/kept", withIntermediateDirectories: true)
        let temporary = folder.appendingPathComponent("apps.tmp").path
        #expect(throws: JournalError(.io, "")) {
            try FileReplacement.replace(path, with: Array("x".utf8), writingAside: temporary, synced: true)
        }
        #expect(!exists(temporary))
        #expect(exists(path + "/kept"), "the target as it was")
    }
}
