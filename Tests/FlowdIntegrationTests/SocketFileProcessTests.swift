import FlowWire
import Foundation
import Testing
import TestFlows
import ZeroMQ

/// The `ipc://` socket files removed while flowd runs (a cleaner of `/tmp`, an `rm`): flowd binds them again at its
/// next heartbeat, so new clients connect, and the clients connected before stay (docs/LIMITS.md).
@Suite(.serialized, .timeLimit(.minutes(3)))
struct SocketFileProcessTests {
    @Test func removedSocketFilesAreBoundAgainAndConnectedClientsStay() async throws {
        try await withCluster { cluster in
            let daemon = try await cluster.startFlowd()
            let before = try await RawOperator.connect(to: daemon.control, name: "before")
            defer { before.close() }

            for file in ["control.sock", "events.sock"] {
                #expect(unlink(cluster.runtimeDirectory + "/" + file) == 0)
            }
            for socket in ["control", "events"] {
                _ = try await daemon.process.waitForError("flowd to bind its \(socket) socket file again") {
                    $0.contains("bound again") && $0.contains("socket=\(socket)")
                }
            }
            // A new client (flowctl) connects, and a new subscriber gets events.
            let health = try await cluster.health()
            let counters = try #require(health["counters"] as? [String: Any])
            #expect(counters["socket_files_rebound"] as? [String: Int] == ["control": 1, "events": 1])
            let watch = try await cluster.startWatch()
            #expect(watch.process.exit == nil)
            // The operator connected before is still served on its connection.
            #expect(try await before.health())
            #expect(daemon.process.stderr.lines.filter { $0.contains("bound again") }.count == 2)
        }
    }

    /// An operator on a raw DEALER, welcomed; its socket closed by ``close()``.
    /// `@unchecked Sendable`: used from one dedicated thread at a time.
    final class RawOperator: @unchecked Sendable {
        let context: ZMQContext
        let socket: ZMQSocket
        let codec = WireCodec()

        private init(context: ZMQContext, socket: ZMQSocket) {
            self.context = context
            self.socket = socket
        }

        static func connect(to control: String, name: String) async throws -> RawOperator {
            let context = try ZMQContext()
            let socket = try ZMQSocket(.dealer, context: context, options: ZMQSocketOptions(linger: .zero))
            let client = RawOperator(context: context, socket: socket)
            try socket.setOption(.receiveTimeout, to: 30_000)
            try socket.setOption(.sendTimeout, to: 30_000)
            try socket.connect(control)
            let hello = Hello(req: 1, role: .operator, name: name, instance: name, heartbeatMs: 60_000)
            guard case .welcome = try await client.exchange(.hello(hello)) else {
                throw HarnessError("no WELCOME for \(name)")
            }
            return client
        }

        /// Asks `HEALTH`; whether it was answered `OK`.
        func health() async throws -> Bool {
            if case .ok = try await exchange(.health(PlainRequest(req: 2))) { return true }
            return false
        }

        /// Sends `message` and returns the first answer that is not a `HEARTBEAT`.
        private func exchange(_ message: ClientMessage) async throws -> DaemonMessage {
            try await onDedicatedThread("raw-operator") {
                try self.socket.send(ZMQMessage(self.codec.encode(message)))
                while true {
                    let decoded = try self.codec.decode(self.socket.receive().frames, from: .daemon)
                    guard case .daemon(let answer) = decoded else { continue }
                    if case .heartbeat = answer { continue }
                    return answer
                }
            }
        }

        func close() {
            socket.close()
            context.shutdown()
        }
    }
}
