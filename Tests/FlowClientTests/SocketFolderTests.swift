import FlowClient
import FlowWire
import Foundation
import Testing
import ZeroMQ

/// Without CURVE a client does not connect to an `ipc://` socket in a folder another user owns (root's excepted):
/// that user could have put their own socket there (docs/SECURITY.md §3).
@Suite(.timeLimit(.minutes(1)))
struct SocketFolderTests {
    @Test func theVerdictFollowsTheFoldersOwnerAndMode() throws {
        let folder = NSTemporaryDirectory() + "flowd-sockets-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(SocketFolderCheck(endpoint: "tcp://127.0.0.1:5555") == nil)
        #expect(SocketFolderCheck(endpoint: "ipc://@flowd-control") == nil)
        #expect(SocketFolderCheck(endpoint: "ipc://\(folder)/control.sock") == .fine)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        #expect(chmod(folder, 0o750) == 0)
        #expect(SocketFolderCheck(endpoint: "ipc://\(folder)/control.sock") == .fine)
        #expect(chmod(folder, 0o755) == 0)
        #expect(SocketFolderCheck(endpoint: "ipc://\(folder)/control.sock") == .exposed(reason: "mode 755 lets others in"))
        #expect(SocketFolderCheck(folder: folder) == .exposed(reason: "mode 755 lets others in"))
    }

    /// Giving a folder away takes root; CI's tests run as root.
    @Test(.enabled(if: geteuid() == 0, "chown to another user takes root"))
    func aClientWithoutKeysRefusesAFolderAnotherUserOwns() async throws {
        let folder = NSTemporaryDirectory() + "flowd-sockets-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        #expect(chown(folder, 65534, 65534) == 0)
        let endpoints = FlowdEndpoints(runtimeDirectory: folder)
        #expect(SocketFolderCheck(endpoint: endpoints.control) == .foreignOwner(uid: 65534))

        let client = OperatorClient(
            name: "ops-foreign", configuration: FlowClientConfiguration(endpoints: endpoints, logger: testLogger))
        let refusal = await #expect(throws: FlowClientError(.invalidConfiguration, "")) { try await client.run() }
        #expect(refusal?.message.contains("belongs to uid 65534") == true)

        var events = FlowEvents(endpoint: endpoints.events, session: nil, logger: testLogger).makeAsyncIterator()
        await #expect(throws: FlowClientError(.invalidConfiguration, "")) { _ = try await events.next() }

        let keys = ZMQSocketOptions(
            curve: .client(keyPair: try ZMQCurve.generateKeyPair(), serverKey: try ZMQCurve.generateKeyPair().publicKey))
        #expect(FlowClientError.untrustedSocketFolder(endpoints.control, options: keys) == nil)
        #expect(FlowClientError.untrustedSocketFolder(endpoints.control, options: ZMQSocketOptions()) != nil)

        #expect(chown(folder, 0, 0) == 0)
        #expect(FlowClientError.untrustedSocketFolder(endpoints.control, options: ZMQSocketOptions()) == nil)
    }
}
