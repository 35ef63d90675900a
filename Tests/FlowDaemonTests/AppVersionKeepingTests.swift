import FlowCore
@testable import FlowDaemon
import Foundation
import Logging
import Testing

/// A version read on SIGHUP is kept in the state directory by whichever of the I/O thread's turns takes the input (the
/// loop's top, or the settling of in-daemon steppers after a batch), before the core can name it in a record.
struct AppVersionKeepingTests {
    typealias Empty = AppVersionStoreTests.Empty

    private func server(stateDirectory: String, version: AppVersion) -> DaemonServer {
        let source = AppVersionSource(path: "\(stateDirectory)/app.flows.yaml") { _, _, _ in Empty() }
        return DaemonServer(
            application: Empty(),
            configuration: DaemonServer.Configuration(
                controlEndpoint: "ipc://\(stateDirectory)/control.sock", eventsEndpoint: "ipc://\(stateDirectory)/events.sock",
                journal: JournalConfiguration(directory: stateDirectory, fsync: .never)
            ),
            logger: Logger(label: "AppVersionKeepingTests", factory: { _ in SwiftLogNoOpLogHandler() }),
            appFile: (source, version)
        )
    }

    private func temporaryFolder() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("keep-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test func aVersionReadIsKeptWhenItsInputIsTaken() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let one = AppVersion(application: Empty(), text: Array("one".utf8))
        let two = AppVersion(application: Empty(), text: Array("two".utf8))
        let server = server(stateDirectory: folder, version: one)
        server.enqueue(.appVersionRead(two))

        let (inputs, stopping) = server.takeQueuedInputs()
        #expect(!stopping)
        #expect(inputs.count == 1)
        guard case .appVersionRead(let taken) = inputs.first else {
            Issue.record("expected the version read, got \(inputs)")
            return
        }
        #expect(taken.id == two.id)
        #expect(try AppVersionStore(stateDirectory: folder).text(of: two.id) == Array("two".utf8))
    }

    @Test func aVersionThatCannotBeKeptIsTakenAsARefusedReload() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let state = folder + "/state"
        try Data("not a folder".utf8).write(to: URL(fileURLWithPath: state))  // apps/ cannot be made under it
        let one = AppVersion(application: Empty(), text: Array("one".utf8))
        let two = AppVersion(application: Empty(), text: Array("two".utf8))
        let server = server(stateDirectory: state, version: one)
        server.enqueue(.appVersionRead(two))

        let (inputs, _) = server.takeQueuedInputs()
        guard case .appReloadRefused(let error) = inputs.first else {
            Issue.record("expected a refused reload, got \(inputs)")
            return
        }
        #expect(error.problems.contains { $0.contains("\(two.id): cannot be kept in the state directory") })
    }
}
