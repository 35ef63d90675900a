import FlowWire
import Foundation
import Testing
import TestFlows
import ZeroMQ

/// The file descriptor limit bounds flowd's connections (docs/LIMITS.md): one descriptor each, and at the limit a
/// client connecting over `ipc://` makes libzmq abort flowd (its IPC listener takes `EMFILE` as fatal).
@Suite(.serialized, .timeLimit(.minutes(3)))
struct DescriptorLimitProcessTests {
    /// Started under a soft limit of 64 (the hard one left as the test's), flowd raises it to the hard one
    /// and holds 100 operators over `ipc://`; before, it was aborted by libzmq at about the 40th.
    @Test func flowdRaisesItsSoftDescriptorLimitAndHoldsMoreConnectionsThanIt() async throws {
        let hard = try #require(Self.limit(of: getpid())).hard
        try await withCluster { cluster in
            let daemon = try await cluster.startFlowd(softDescriptorLimit: 64)
            let limit = try #require(Self.limit(of: daemon.process.pid))
            #expect(limit.soft == limit.hard && limit.hard == hard)
            #expect(daemon.process.stderr.lines.contains { $0.contains("file descriptor limit raised") })
            guard hard >= 200 else { return }

            // The operators stay connected until flowd has counted them: closed, they may be gone before HEALTH.
            let operators = try OpenSockets()
            let welcomed = try await onDedicatedThread("operators") {
                let codec = WireCodec()
                let options = ZMQSocketOptions(linger: .zero, maxMessageSize: nil, heartbeat: nil)
                for index in 0..<100 {
                    let socket = try ZMQSocket(.dealer, context: operators.context, options: options)
                    operators.sockets.append(socket)
                    try socket.setOption(.receiveTimeout, to: 30_000)
                    try socket.setOption(.sendTimeout, to: 30_000)
                    try socket.connect(daemon.control)
                    let hello = Hello(
                        req: 1, role: .operator, name: "op-\(index)", instance: "op-\(index)", heartbeatMs: 60_000)
                    try socket.send(ZMQMessage(codec.encode(.hello(hello))))
                }
                var welcomed = 0
                for socket in operators.sockets {
                    var message = try codec.decode(socket.receive().frames)
                    while case .heartbeat = message { message = try codec.decode(socket.receive().frames) }
                    if case .welcome = message { welcomed += 1 }
                }
                return welcomed
            }
            defer { operators.close() }
            #expect(welcomed == 100)
            let health = try await cluster.health()
            #expect((health["peers"] as? [String: Any])?["operator"] as? Int == 101)  // and flowctl's own
            #expect(daemon.process.exit == nil)
        }
    }

    /// The operators' sockets, made on one thread and closed on another once flowd has counted them.
    /// `@unchecked Sendable`: handed from thread to thread, never used by two at once.
    final class OpenSockets: @unchecked Sendable {
        let context: ZMQContext
        var sockets: [ZMQSocket] = []

        init() throws { context = try ZMQContext() }

        func close() {
            for socket in sockets { socket.close() }
            sockets = []
        }
    }

    /// `Max open files` of `/proc/<pid>/limits`: (soft, hard).
    static func limit(of pid: Int32) -> (soft: UInt64, hard: UInt64)? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Max open files") })
        else { return nil }
        let fields = line.dropFirst("Max open files".count).split(separator: " ")
        guard fields.count >= 2, let soft = UInt64(fields[0]), let hard = UInt64(fields[1]) else { return nil }
        return (soft, hard)
    }
}
