import FlowClientTesting
@testable import FlowDaemon
import Foundation
import Logging
import Testing
import ZeroMQ

/// An `ipc://` socket file removed while flowd runs is bound again on the same socket: new clients connect, and the
/// connections made before stay (docs/LIMITS.md, "Socket files removed").
@Suite(.timeLimit(.minutes(1)))
struct SocketFileWatchTests {
    @Test func aRemovedFileIsBoundAgainAndTheConnectionsMadeBeforeStay() throws {
        let bound = try Bound()
        defer { bound.close() }
        let (folder, endpoint, context, router, logger, recorder) =
            (bound.folder, bound.endpoint, bound.context, bound.router, bound.logger, bound.recorder)
        var watch = try #require(SocketFileWatch(name: "control", endpoint: endpoint))
        let before = try Self.socket(.dealer, context)
        defer { before.close() }
        try before.connect(endpoint)
        try before.send(ZMQMessage([Array("before".utf8)]))
        #expect(try router.receive().frames.last == Array("before".utf8))
        #expect(!Self.check(&watch, router, logger))

        #expect(unlink(folder + "/control.sock") == 0)
        #expect(Self.check(&watch, router, logger))
        #expect(FileManager.default.fileExists(atPath: folder + "/control.sock"))
        let mode = try FileManager.default.attributesOfItem(atPath: folder + "/control.sock")[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let after = try Self.socket(.dealer, context)
        defer { after.close() }
        try after.connect(endpoint)
        try after.send(ZMQMessage([Array("after".utf8)]))
        #expect(try router.receive().frames.last == Array("after".utf8))
        try before.send(ZMQMessage([Array("before, again".utf8)]))
        #expect(try router.receive().frames.last == Array("before, again".utf8))
        #expect(!Self.check(&watch, router, logger))
        let lines = recorder.lines.withLock { $0 }
        #expect(lines.map(\.level) == [.warning])
        #expect(lines.first?.metadata["socket"] == "control")

        // A cleaner that takes the folder too: it is made again, this user's only.
        try FileManager.default.removeItem(atPath: folder)
        #expect(Self.check(&watch, router, logger))
        let folderMode = try FileManager.default.attributesOfItem(atPath: folder)[.posixPermissions] as? Int
        #expect(folderMode == 0o700)
        let third = try Self.socket(.dealer, context)
        defer { third.close() }
        try third.connect(endpoint)
        try third.send(ZMQMessage([Array("third".utf8)]))
        #expect(try router.receive().frames.last == Array("third".utf8))
    }

    /// A file another process bound at the path is not taken back: logged once, at error.
    @Test func aFileAnotherSocketBoundIsLoggedOnceAndLeft() throws {
        let bound = try Bound()
        defer { bound.close() }
        let (endpoint, context, router, logger, recorder) =
            (bound.endpoint, bound.context, bound.router, bound.logger, bound.recorder)
        var watch = try #require(SocketFileWatch(name: "control", endpoint: endpoint))
        let other = try Self.socket(.router, context)
        defer { other.close() }
        try other.bind(endpoint)  // libzmq unlinks the path first
        #expect(!Self.check(&watch, router, logger))
        #expect(!Self.check(&watch, router, logger))
        #expect(recorder.lines.withLock { $0 }.map(\.level) == [.error])

        let client = try Self.socket(.dealer, context)
        defer { client.close() }
        try client.connect(endpoint)
        try client.send(ZMQMessage([Array("hello".utf8)]))
        #expect(try other.receive().frames.last == Array("hello".utf8))
    }

    @Test func onlyIPCEndpointsWithAFileAreWatched() {
        #expect(SocketFileWatch(name: "control", endpoint: "tcp://127.0.0.1:5555") == nil)
        #expect(SocketFileWatch(name: "control", endpoint: "ipc://@flowd") == nil)
        #expect(SocketFileWatch(name: "control", endpoint: "ipc://*") == nil)
        #expect(SocketFileWatch(name: "control", endpoint: "ipc:///run/flowd/control.sock")?.path
            == "/run/flowd/control.sock")
    }

    /// A ROUTER bound to `control.sock` in a folder of its own, and a logger that records.
    private struct Bound {
        let folder = NSTemporaryDirectory() + "flowd-sockets-\(UUID().uuidString)"
        var endpoint: String { "ipc://\(folder)/control.sock" }
        let context: ZMQContext
        let router: ZMQSocket
        let recorder = LogRecorder()
        var logger: Logger { Logger(label: "watch") { [recorder] _ in RecordingHandler(recorder) } }

        init() throws {
            try Flowd.prepareRuntimeDirectory(folder)
            context = try ZMQContext()
            router = try SocketFileWatchTests.socket(.router, context)
            try router.bind("ipc://\(folder)/control.sock")
        }

        func close() {
            router.close()
            context.shutdown()
            try? FileManager.default.removeItem(atPath: folder)
        }
    }

    private static func check(_ watch: inout SocketFileWatch, _ socket: ZMQSocket, _ logger: Logger) -> Bool {
        watch.check(rebinding: socket, logger: logger)
    }

    fileprivate static func socket(_ type: ZMQSocketType, _ context: ZMQContext) throws -> ZMQSocket {
        let socket = try ZMQSocket(type, context: context, options: ZMQSocketOptions(linger: .zero))
        try socket.setOption(.receiveTimeout, to: 30_000)
        try socket.setOption(.sendTimeout, to: 30_000)
        return socket
    }
}
