import FlowCore
@testable import FlowDaemon
import Foundation
import Logging
import Testing

/// The content ids of application versions (SHA-256) and their texts in the state directory.
struct AppVersionStoreTests {
    @Test func theContentIdIsSHA256sFirstTwelveHexDigits() {
        // FIPS 180-4's examples: the empty text, one block, two blocks.
        #expect(AppVersion.id(of: []) == "e3b0c44298fc")
        #expect(AppVersion.id(of: Array("abc".utf8)) == "ba7816bf8f01")
        let twoBlocks = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
        #expect(AppVersion.id(of: Array(twoBlocks.utf8)) == "248d6a61d206")
    }

    struct Empty: FlowApplication {
        func makeRoot(session: String) -> FlowRoot { FlowRoot(flow: NoFlow(), stepper: DefaultStepper()) }
    }

    final class NoFlow: Flow {
        let root = Screen(id: "none")
        func navigate(to step: Step, with navigator: Navigator) -> FlowContributors { .none }
    }

    @Test func versionsAreKeptWholeReadBackCheckedAndDeletedWhenNoLongerLive() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("apps-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = AppVersionStore(stateDirectory: folder + "/")
        let one = AppVersion(application: Empty(), text: Array("one".utf8))
        let two = AppVersion(application: Empty(), text: Array("two".utf8))
        #expect(try store.text(of: one.id) == nil)
        try store.keep(one)
        try store.keep(one)  // kept already: nothing to do
        try store.keep(two)
        #expect(store.filePath(one.id) == "\(folder)/apps/\(one.id).flows.yaml")
        #expect(try store.text(of: one.id) == Array("one".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder + "/apps").sorted()
            == ["\(one.id).flows.yaml", "\(two.id).flows.yaml"].sorted())

        try Data("changed".utf8).write(to: URL(fileURLWithPath: store.filePath(two.id)))
        #expect { try store.text(of: two.id) } throws: { ($0 as? JournalError)?.code == .corrupt }

        try Data("half".utf8).write(to: URL(fileURLWithPath: "\(folder)/apps/\(one.id).tmp"))
        store.removeAll(except: [one.id], logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder + "/apps") == ["\(one.id).flows.yaml"])
    }
}
