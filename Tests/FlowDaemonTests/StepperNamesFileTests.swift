import FlowClientTesting
@testable import FlowDaemon
import Foundation
import Logging
import Testing

/// docs/RELIABILITY.md, the state directory's `stepper-names`: whatever is found under its name, flowd starts (a file
/// it cannot read holds nothing back, logged), and a write a crash cut short leaves nothing that the next one does not
/// replace.
@Suite(.timeLimit(.minutes(1)))
struct StepperNamesFileTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stepper-names-\(UUID().uuidString)")
    let recorder = LogRecorder()
    let file: StepperNamesFile

    init() throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        file = StepperNamesFile(stateDirectory: folder.path, logger: recorder.logger(label: "stepper-names"))
    }

    private func cleanUp() { try? FileManager.default.removeItem(at: folder) }

    private func unreadable() -> Int { recorder.lines(Self.unreadableMessage).count }
    private static let unreadableMessage =
        "stepper names of the last run cannot be read; restored attachments are offered at once"

    @Test func contentsThatAreNotTheFilesAreReadAsNoNamesAndLogged() throws {
        defer { cleanUp() }
        let contents: [[UInt8]] = [
            [], Array(#"{"kinds": {"login.app": ["login-a", "log"#.utf8), [0xFF, 0xFE, 0x00, 0x7B], Array("{}".utf8),
            Array(#"{"kinds": {"login.app": "login-a"}}"#.utf8), Array(#"{"kinds": {"login.app": [1, 2]}}"#.utf8),
        ]
        for (index, bytes) in contents.enumerated() {
            try Data(bytes).write(to: URL(fileURLWithPath: file.path))
            #expect(file.read() == [:], "contents \(index)")
            #expect(unreadable() == index + 1, "contents \(index) logged")
        }
    }

    /// A fifo must not block the start (nothing ever writes it); a directory cannot be read either.
    @Test func aFifoOrADirectoryInItsPlaceIsReadAsNoNamesWithoutWaiting() throws {
        defer { cleanUp() }
        #expect(mkfifo(file.path, 0o600) == 0)
        #expect(file.read() == [:])
        try FileManager.default.removeItem(atPath: file.path)
        try FileManager.default.createDirectory(atPath: file.path, withIntermediateDirectories: false)
        #expect(file.read() == [:])
        #expect(unreadable() == 2)
    }

    /// Names the daemon would never write (not a valid name, a kind the application lacks) are read as they are: they
    /// hold a kind for one grace at most (``RestartGrace``), which no name it lacks can outlast.
    @Test func namesNoProcessCanHaveAreReadAsTheyAre() throws {
        defer { cleanUp() }
        try Data(#"{"kinds": {"": ["", "a\u0000b"], "no.such.kind": ["x", "y"]}}"#.utf8)
            .write(to: URL(fileURLWithPath: file.path))
        #expect(file.read() == ["": ["", "a\u{0}b"], "no.such.kind": ["x", "y"]])
        var grace = RestartGrace(expected: file.read(), now: 0, graceMs: 3000)
        #expect(grace.holds("no.such.kind") && grace.end(ifDueAt: 3000) != nil && !grace.holds("no.such.kind"))
    }

    /// A flowd killed between writing the temporary file and renaming it leaves `stepper-names.tmp`: the next write
    /// replaces it (whatever it is: a fifo there would block an open for writing) and nothing else is left beside.
    @Test func aWriteReplacesWhatAnInterruptedOneLeftAndLeavesOnlyTheFile() throws {
        defer { cleanUp() }
        var file = self.file
        file.write(["login.app": ["login-a", "login-b"]])
        try Data("{\"kinds\": {\"login.app\": [\"log".utf8).write(to: URL(fileURLWithPath: file.temporaryPath))
        file.write(["login.app": ["login-a"]])
        #expect(file.read() == ["login.app": ["login-a"]])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == [StepperNamesFile.name])
        #expect(mkfifo(file.temporaryPath, 0o600) == 0)
        file.write(["login.app": ["login-b"]])
        #expect(file.read() == ["login.app": ["login-b"]])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == [StepperNamesFile.name])
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        #expect(mode == 0o600, "as the journal's files")
    }

    /// A write that cannot be made (here a directory where the temporary file or the file goes) is logged (the 1st,
    /// 10th, 100th…) and keeps the file there was: the next start reads the names before it, one grace at most.
    @Test func aWriteThatFailsIsLoggedAndKeepsTheFileBefore() throws {
        defer { cleanUp() }
        var file = self.file
        file.write(["login.app": ["login-a", "login-b"]])
        try FileManager.default.createDirectory(atPath: file.temporaryPath, withIntermediateDirectories: false)
        file.write(["login.app": ["login-a"]])
        #expect(file.read() == ["login.app": ["login-a", "login-b"]])
        try FileManager.default.removeItem(atPath: file.temporaryPath)
        try FileManager.default.removeItem(atPath: file.path)
        try FileManager.default.createDirectory(atPath: file.path, withIntermediateDirectories: false)
        for _ in 1...100 { file.write(["login.app": ["login-a"]]) }
        // A full disk fails every join's write: the 1st, 10th and 100th of 101 failures are logged.
        #expect(file.failures == 101)
        #expect(recorder.lines("stepper names cannot be saved").count == 3)
    }
}
