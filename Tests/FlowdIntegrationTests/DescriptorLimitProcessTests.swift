import FlowWire
import Foundation
import Testing
import TestFlows
import ZeroMQ

/// The file descriptor limit bounds flowd's connections (docs/LIMITS.md): one descriptor each, and at the limit a
/// client connecting over `ipc://` would make libzmq abort flowd (its IPC listener takes `EMFILE` as fatal) but for
/// the reserve and the accept guard.
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
                    var message = try codec.decode(socket.receive().frames, from: .daemon)
                    while case .daemon(.heartbeat) = message {
                        message = try codec.decode(socket.receive().frames, from: .daemon)
                    }
                    if case .daemon(.welcome) = message { welcomed += 1 }
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

    /// Under a limit of 96 descriptors (soft and hard), operators connect one by one until flowd moves its socket
    /// files aside, near the limit: it is not aborted (before, libzmq aborted it at the limit), the operators
    /// connected are served, and once most of them left the files are back and a new client connects.
    @Test func nearTheLimitFlowdTakesNoNewConnectionsAndServesTheConnectedOnes() async throws {
        try await withCluster { cluster in
            let daemon = try await cluster.startFlowd(descriptorLimit: 96)
            let control = cluster.runtimeDirectory + "/control.sock"
            let operators = try OpenSockets()
            defer { operators.close() }
            // flowd moves the file aside before it answers the HELLO of the connection that brought it near.
            let welcomed = try await onDedicatedThread("operators") {
                let codec = WireCodec()
                var welcomed = 0
                while FileManager.default.fileExists(atPath: control), welcomed < 200 {
                    let socket = try Self.operatorSocket(operators, control: daemon.control)
                    let hello = Hello(
                        req: 1, role: .operator, name: "op-\(welcomed)", instance: "op-\(welcomed)", heartbeatMs: 60_000)
                    try socket.send(ZMQMessage(codec.encode(.hello(hello))))
                    guard case .welcome = try Self.answer(socket, codec) else { break }
                    welcomed += 1
                }
                return welcomed
            }
            #expect(welcomed > 20 && welcomed < 96)
            #expect(FileManager.default.fileExists(atPath: control + ".withdrawn"))
            _ = try await daemon.process.waitForError("flowd to say it is near the limit") {
                $0.contains("near the file descriptor limit")
            }
            // The connected operators are served; then most of them leave.
            #expect(try await Self.allAnswerHealth(operators))
            operators.close(keeping: 3)
            _ = try await daemon.process.waitForError("flowd to put its socket files back") {
                $0.contains("below the file descriptor limit again")
            }
            let health = try await cluster.health()  // flowctl: a new client
            #expect(health["status"] as? String == "ok")
            #expect((health["counters"] as? [String: Any])?["socket_files_withdrawn"] as? Int == 1)
            #expect(try await Self.allAnswerHealth(operators))
            #expect(daemon.process.exit == nil)
        }
    }

    /// A burst of connections under a limit of 96: libzmq's listener queued 101 of them at once (its backlog of 100),
    /// accepted them all although the file was moved aside, and was aborted at the limit (`EMFILE` in `accept`); with
    /// a backlog of 2, a loaded machine still let the burst take the reserve before flowd's loop moved the file. Now
    /// the rest are refused for now (`EAGAIN`, a libzmq client dials again) or, at the limit, closed by the accept
    /// guard; flowd stays, and a client after the burst is served.
    @Test func aBurstOfConnectionsAtTheLimitLeavesFlowdServing() async throws {
        try await withCluster { cluster in
            let daemon = try await cluster.startFlowd(descriptorLimit: 96)
            let control = cluster.runtimeDirectory + "/control.sock"
            // 200 connects without waiting for any: each one the kernel queued holds a descriptor once accepted.
            let connections = try await onDedicatedThread("burst") {
                (0..<200).compactMap { _ in Self.unixConnect(control) }
            }
            defer { for connection in connections { close(connection) } }
            for connection in connections { shutdown(connection, Int32(SHUT_RDWR)) }
            // flowctl's connection is queued after the burst's: answered, flowd accepted them all and lives.
            let health = try await cluster.health()
            #expect(health["status"] as? String == "ok")
            #expect(daemon.process.exit == nil)
            // How many the guard closed depends on how far the loop lagged: none when the files went in time.
            let closedAtLimit = (health["counters"] as? [String: Any])?["connections_closed_at_limit"] as? Int ?? 0
            if closedAtLimit > 0 {
                #expect(daemon.process.stderr.lines.contains { $0.contains("new connections are closed as they come") })
            }
            print("burst: \(connections.count) connected, \(closedAtLimit) closed at the limit by the accept guard")
        }
    }

    /// With only `tcp://` endpoints (no socket file to move aside) under a limit of 96, connections past the limit are
    /// closed by the accept guard as they come, counted and logged, where libzmq's TCP listener retried `accept`
    /// without end on a busy core and left them waiting; once they are gone, a new client is served.
    @Test func overTCPOnlyTheAcceptGuardClosesConnectionsPastTheLimit() async throws {
        try await withCluster { cluster in
            let daemon = try await cluster.startFlowd(
                ["--control", "tcp://127.0.0.1:*", "--events", "tcp://127.0.0.1:*", "--allow-plaintext-tcp"],
                descriptorLimit: 96)
            let port = try #require(daemon.control.split(separator: ":").last.flatMap { UInt16($0) })
            // 120 connections, the kernel's backlog (libzmq's 100) refilled as the listener takes them.
            let connections = try await onDedicatedThread("connections") {
                (0..<120).compactMap { _ in Self.tcpConnect(port: port) }
            }
            defer { for connection in connections { close(connection) } }
            #expect(connections.count == 120)
            _ = try await daemon.process.waitForError("flowd to close connections at the limit") {
                $0.contains("new connections are closed as they come")
            }
            for connection in connections { shutdown(connection, Int32(SHUT_RDWR)) }
            let operators = try OpenSockets()
            defer { operators.close() }
            let closedAtLimit = try await onDedicatedThread("operator") { () throws -> Int? in
                let codec = WireCodec()
                let socket = try Self.operatorSocket(operators, control: daemon.control)
                let hello = Hello(req: 1, role: .operator, name: "op", instance: "op", heartbeatMs: 60_000)
                try socket.send(ZMQMessage(codec.encode(.hello(hello))))
                guard case .welcome = try Self.answer(socket, codec) else { return nil }
                try socket.send(ZMQMessage(codec.encode(.health(PlainRequest(req: 2)))))
                guard case .ok(let reply) = try Self.answer(socket, codec),
                    case .object(let health) = reply.result, case .object(let counters)? = health["counters"]
                else { return nil }
                return counters["connections_closed_at_limit"]?.intValue
            }
            #expect((closedAtLimit ?? 0) > 0)
            #expect(daemon.process.exit == nil)
        }
    }

    /// A libzmq listener with no descriptor left is aborted by the first `ipc://` connection (`EMFILE` in its
    /// `accept`); with the accept guard flowd installs, each such connection is closed instead, counted, and the
    /// listener lives. `accept-guard-probe` is that listener, its descriptors taken up to a limit of 64.
    @Test func atTheLimitTheAcceptGuardClosesEachNewConnectionAndTheListenerLives() async throws {
        try await withCluster { cluster in
            let path = cluster.runtimeDirectory + "/probe.sock"
            let probe = try cluster.launch("accept-guard-probe", ["ipc://" + path, "--guard"], descriptorLimit: 64)
            try await probe.waitForOutput(line: "full")
            let closed = try await onDedicatedThread("connections") {
                (0..<3).filter { _ in Self.unixConnect(path).map(Self.closedByPeer) ?? false }.count
            }
            #expect(closed == 3)
            try probe.send("count")
            try await probe.waitForOutput(line: "3")
            #expect(probe.exit == nil)
        }
    }

    /// Without the guard, the same listener is aborted by libzmq at the first connection: what the guard prevents.
    @Test func atTheLimitAListenerWithoutTheGuardIsAbortedByLibzmq() async throws {
        try await withCluster { cluster in
            let path = cluster.runtimeDirectory + "/probe.sock"
            let probe = try cluster.launch("accept-guard-probe", ["ipc://" + path], descriptorLimit: 64)
            try await probe.waitForOutput(line: "full")
            let connection = try #require(Self.unixConnect(path))
            defer { close(connection) }
            #expect(await probe.waitForExit() == .signalled(SIGABRT))
            #expect(probe.stderr.lines.contains { $0.contains("Too many open files") })
        }
    }

    /// Whether the peer closes `connection` (end of file or reset) within a minute; closes it.
    private static func closedByPeer(_ connection: Int32) -> Bool {
        defer { close(connection) }
        var waiting = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
        guard poll(&waiting, 1, 60_000) == 1 else { return false }
        var byte: UInt8 = 0
        let read = recv(connection, &byte, 1, 0)
        return read == 0 || (read < 0 && errno == ECONNRESET)
    }

    /// A blocking TCP connection to 127.0.0.1:`port`, or nil.
    private static func tcpConnect(port: UInt16) -> Int32? {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return connect(socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0), to: address)
    }

    /// A Unix-domain stream socket connected (queued at the listener) to `path` without waiting; nil when it cannot
    /// connect now (no file, the listener's queue full).
    private static func unixConnect(_ path: String) -> Int32? {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        return connect(socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0), to: address)
    }

    /// `descriptor` connected to `address` (a `sockaddr_in` or `sockaddr_un`), or nil (closed).
    private static func connect<Address>(_ descriptor: Int32, to address: Address) -> Int32? {
        guard descriptor >= 0 else { return nil }
        var address = address
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<Address>.size))
            }
        }
        guard connected == 0 else {
            close(descriptor)
            return nil
        }
        return descriptor
    }

    private static func operatorSocket(_ operators: OpenSockets, control: String) throws -> ZMQSocket {
        let options = ZMQSocketOptions(linger: .zero, maxMessageSize: nil, heartbeat: nil)
        let socket = try ZMQSocket(.dealer, context: operators.context, options: options)
        operators.sockets.append(socket)
        try socket.setOption(.receiveTimeout, to: 30_000)
        try socket.setOption(.sendTimeout, to: 30_000)
        try socket.connect(control)
        return socket
    }

    /// Whether each operator's `HEALTH` is answered `OK`.
    private static func allAnswerHealth(_ operators: OpenSockets) async throws -> Bool {
        try await onDedicatedThread("health") {
            let codec = WireCodec()
            for socket in operators.sockets {
                try socket.send(ZMQMessage(codec.encode(.health(PlainRequest(req: 2)))))
                guard case .ok = try answer(socket, codec) else { return false }
            }
            return true
        }
    }

    /// The next message on `socket` that is not a `HEARTBEAT`.
    private static func answer(_ socket: ZMQSocket, _ codec: WireCodec) throws -> DaemonMessage {
        while true {
            guard case .daemon(let message) = try codec.decode(socket.receive().frames, from: .daemon) else { continue }
            if case .heartbeat = message { continue }
            return message
        }
    }

    /// The operators' sockets, made on one thread and closed on another once flowd has counted them.
    /// `@unchecked Sendable`: handed from thread to thread, never used by two at once.
    final class OpenSockets: @unchecked Sendable {
        let context: ZMQContext
        var sockets: [ZMQSocket] = []

        init() throws { context = try ZMQContext() }

        func close(keeping kept: Int = 0) {
            for socket in sockets.dropFirst(kept) { socket.close() }
            sockets = Array(sockets.prefix(kept))
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
