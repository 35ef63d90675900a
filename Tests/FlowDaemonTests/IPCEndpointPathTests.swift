@testable import FlowDaemon
import FlowWire
import Foundation
import Logging
import Testing
import TestFlows
import ZeroMQ

/// An `ipc://` endpoint is cut into its socket file, and a path into its folder, by one helper each
/// (``PathParts``): libzmq's wildcard `ipc://*` names no file until bound, relative paths stay relative.
@Suite(.timeLimit(.minutes(1)))
struct IPCEndpointPathTests {
    @Test func anEndpointsFileAndAPathsFolder() {
        #expect(PathParts.socketFile(ofEndpoint: "ipc:///run/flowd/control.sock") == "/run/flowd/control.sock")
        #expect(PathParts.socketFile(ofEndpoint: "ipc://run/control.sock") == "run/control.sock")
        #expect(PathParts.socketFile(ofEndpoint: "ipc://control.sock") == "control.sock")
        #expect(PathParts.socketFile(ofEndpoint: "ipc://*") == nil)
        #expect(PathParts.socketFile(ofEndpoint: "ipc://@flowd") == nil)
        #expect(PathParts.socketFile(ofEndpoint: "ipc://") == nil)
        #expect(PathParts.socketFile(ofEndpoint: "tcp://127.0.0.1:5560") == nil)
        #expect(PathParts.folder(of: "/run/flowd/control.sock") == "/run/flowd")
        #expect(PathParts.folder(of: "run/control.sock") == "run")
        #expect(PathParts.folder(of: "control.sock") == ".")
        #expect(PathParts.folder(of: "/control.sock") == "/")
        #expect(SocketFileWatch(name: "control", endpoint: "ipc://run/control.sock")?.path == "run/control.sock")
        #expect(SocketFileWatch(name: "control", endpoint: "ipc://*") == nil)
        #expect(SocketFolderCheck(endpoint: "ipc://*") == nil)
    }

    /// With `ipc://*` on both sockets flowd starts and serves; its ready endpoints name the files libzmq made (this
    /// user's only, watched for removal like named ones), and a stop leaves neither them nor their folders behind
    /// (before, flowd took the wildcard for a file named `*` in its working directory).
    @Test func aWildcardEndpointIsServedAndReportedAsTheFileItBound() async throws {
        let server = DaemonServer(
            application: TickerApplication(),
            configuration: DaemonServer.Configuration(
                controlEndpoint: "ipc://*", eventsEndpoint: "ipc://*", daemon: DaemonConfiguration()),
            logger: Logger(label: "IPCEndpointPathTests", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        let files = try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await server.run() }
            defer { server.stop() }
            let bound = try await server.waitUntilReady()
            let control = try #require(PathParts.socketFile(ofEndpoint: bound.control))
            let events = try #require(PathParts.socketFile(ofEndpoint: bound.events))
            #expect(control != events && control != "*")
            for file in [control, events] {
                let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
                #expect(mode == 0o600)
            }
            let welcomed = try await onDedicatedThread("wildcard") {
                let context = try ZMQContext()
                defer { context.shutdown() }
                let peer = try WirePeer(context: context, endpoint: bound.control)
                defer { peer.close() }
                return try peer.hello(role: .operator, name: "wildcard").daemon
            }
            #expect(!welcomed.isEmpty)
            return [control, events]
        }
        for file in files {
            #expect(!FileManager.default.fileExists(atPath: file))
            #expect(!FileManager.default.fileExists(atPath: PathParts.folder(of: file)))
        }
        #expect(!FileManager.default.fileExists(atPath: FileManager.default.currentDirectoryPath + "/*"))
    }
}
