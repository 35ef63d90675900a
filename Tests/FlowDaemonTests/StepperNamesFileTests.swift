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

    /// A write applies the names gained and lost since the last one: the file holds exactly what the changes add up
    /// to, kinds and names sorted, a kind whose last name went gone, and names needing JSON escapes read back as they
    /// were.
    @Test func changesAddUpToTheFileAKindWithoutNamesGone() throws {
        defer { cleanUp() }
        var file = self.file
        typealias Change = KeptStepperNames.Change
        file.write([
            Change(kind: "login.app", name: "login-b", kept: true), Change(kind: "login.app", name: "login-a", kept: true),
            Change(kind: "home", name: "q\"uote\\", kept: true), Change(kind: "home", name: "login-a", kept: true),
        ])
        #expect(
            try String(contentsOf: URL(fileURLWithPath: file.path), encoding: .utf8)
                == #"{"kinds":{"home":["login-a","q\"uote\\"],"login.app":["login-a","login-b"]}}"#)
        file.write([Change(kind: "login.app", name: "login-a", kept: false)])
        #expect(file.read() == ["home": ["login-a", "q\"uote\\"], "login.app": ["login-b"]])
        file.write([Change(kind: "home", name: "q\"uote\\", kept: false), Change(kind: "home", name: "login-a", kept: false)])
        #expect(file.read() == ["login.app": ["login-b"]])
        file.write([Change(kind: "login.app", name: "login-b", kept: false)])
        #expect(try String(contentsOf: URL(fileURLWithPath: file.path), encoding: .utf8) == #"{"kinds":{}}"#)
    }

    /// Names inserted and removed in any order leave the bytes `JSONEncoder` writes for the same names, sorted.
    @Test func theEncodedNamesAreTheSortedJSONOfWhatIsLeft() throws {
        defer { cleanUp() }  // the suite's init made the folder
        var generator = SystemRandomNumberGenerator()
        var encoded = EncodedStepperNames()
        var expected: [String: Set<String>] = [:]
        for _ in 0..<2000 {
            let kind = "kind-\(Int.random(in: 0..<3, using: &generator))"
            let name = "p\(Int.random(in: 0..<40, using: &generator))"
            if Bool.random(using: &generator) {
                encoded.insert(name, for: kind)
                expected[kind, default: []].insert(name)
            } else {
                encoded.remove(name, from: kind)
                expected[kind]?.remove(name)
                if expected[kind]?.isEmpty == true { expected[kind] = nil }
            }
        }
        // Many changes to a kind at once rebuild it: the same bytes.
        var rebuilt = EncodedStepperNames()
        rebuilt.apply(expected.flatMap { kind, names in
            names.map { KeptStepperNames.Change(kind: kind, name: $0, kept: true) }
                + (0..<EncodedStepperNames.rebuiltAbove).map { KeptStepperNames.Change(kind: kind, name: "gone-\($0)", kept: false) }
        })
        #expect(rebuilt.bytes() == encoded.bytes())
        var whole = EncodedStepperNames(expected.mapValues { Array($0) + Array($0) })
        #expect(whole.bytes() == encoded.bytes())
        struct Contents: Encodable { var kinds: [String: [String]] }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        #expect(encoded.bytes() == Array(try encoder.encode(Contents(kinds: expected.mapValues { $0.sorted() }))))
    }

    /// A file larger than ``StepperNamesFile/maxBytes`` is not read (nothing held back), logged with its size: a start
    /// does not spend seconds on it.
    @Test func aFileOverTheBoundIsNotReadAndLogged() throws {
        defer { cleanUp() }
        var bytes = Array(#"{"kinds": {"login.app": ["login-a", "login-b"]}}"#.utf8)
        bytes += [UInt8](repeating: UInt8(ascii: " "), count: StepperNamesFile.maxBytes - bytes.count)
        try Data(bytes).write(to: URL(fileURLWithPath: file.path))
        #expect(file.read() == ["login.app": ["login-a", "login-b"]], "at the bound: read")
        bytes.append(UInt8(ascii: " "))
        try Data(bytes).write(to: URL(fileURLWithPath: file.path))
        #expect(file.read() == [:])
        let logged = recorder.lines(
            "stepper names of the last run are too many to read; restored attachments are offered at once")
        #expect(logged.count == 1)
        #expect(unreadable() == 0)
    }

    /// A name is kept while one reason holds (two connections of one name, a name that left, one awaited), and what
    /// a turn kept and released again (a process replaced by its restart) is no change to write.
    @Test func aNameIsKeptWhileOneReasonHoldsAndAChangeUndoneIsNone() {
        defer { cleanUp() }  // the suite's init made the folder
        var kept = KeptStepperNames(recordingChanges: true)
        kept.keep("login-a", for: "login.app")
        kept.keep("login-a", for: "login.app")
        #expect(kept.takeChanges() == [KeptStepperNames.Change(kind: "login.app", name: "login-a", kept: true)])
        kept.release("login-a", for: "login.app")
        #expect(kept.takeChanges().isEmpty && kept.byKind == ["login.app": ["login-a"]])
        kept.release("login-a", for: "login.app")
        kept.keep("login-a", for: "login.app")
        #expect(kept.takeChanges().isEmpty, "released and kept again in one turn")
        kept.release("login-a", for: "login.app")
        kept.release("login-a", for: "login.app")  // no reason left: nothing to release
        #expect(kept.takeChanges() == [KeptStepperNames.Change(kind: "login.app", name: "login-a", kept: false)])
        #expect(kept.byKind.isEmpty)
        var unrecorded = KeptStepperNames(recordingChanges: false)
        unrecorded.keep("login-a", for: "login.app")
        #expect(unrecorded.takeChanges().isEmpty && unrecorded.byKind == ["login.app": ["login-a"]])
    }

    /// A log line names how many names a grace awaits and the first ten, sorted, whatever the file held.
    @Test func aGracesLogLineNamesTenNamesAtMost() {
        defer { cleanUp() }  // the suite's init made the folder
        #expect(RestartGrace.logged(["a": ["x", "y"], "b": ["y"]]) == "2: x,y")
        let many = Set((0..<5000).map { "p\(10000 + $0)" })
        #expect(RestartGrace.logged(["a": many]) == "5000: " + (10000..<10010).map { "p\($0)" }.joined(separator: ",") + ",…")
    }
}
