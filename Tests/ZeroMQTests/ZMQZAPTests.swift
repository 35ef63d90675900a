import Testing
import ZeroMQ

/// CURVE through ``ZMQSocketOptions/curve`` with a ZAP handler (RFC 27) in the same context, all on this thread: the
/// handler's user id arrives with every message (``ZMQSocket/tryReceive(withProperty:)``), a refused key gets nothing
/// in.
@Suite(.timeLimit(.minutes(1)))
struct ZMQZAPTests {
    /// A CURVE server ROUTER on tcp with ZAP domain `test`, the ZAP handler (a ROUTER at `inproc://zeromq.zap.01`) and
    /// a monitor of the server's handshakes, in one context.
    private struct Server {
        let context: ZMQContext
        let keys: ZMQCurveKeyPair
        let zap: ZMQSocket
        let router: ZMQSocket
        let monitor: ZMQSocket
        let endpoint: String

        init() throws {
            context = try ZMQContext()
            keys = try ZMQCurve.generateKeyPair()
            zap = try ZMQSocket(.router, context: context, options: ZMQSocketOptions(heartbeat: nil))
            try zap.bind("inproc://zeromq.zap.01")
            router = try ZMQSocket(
                .router, context: context,
                options: ZMQSocketOptions(curve: .server(secretKey: keys.secretKey, zapDomain: "test"))
            )
            try router.startMonitor(
                at: "inproc://zap-tests.monitor", events: [.handshakeSucceeded, .handshakeFailedAuth])
            monitor = try boundedSocket(.pair, context: context, options: ZMQSocketOptions(heartbeat: nil))
            try monitor.connect("inproc://zap-tests.monitor")
            try router.bind("tcp://127.0.0.1:*")
            endpoint = try router.option(.lastEndpoint)
        }

        /// A CURVE client DEALER whose first message is queued at once (no `ZMQ_IMMEDIATE`).
        func client(_ keyPair: ZMQCurveKeyPair) throws -> ZMQSocket {
            let socket = try ZMQSocket(
                .dealer, context: context,
                options: ZMQSocketOptions(
                    immediateOnDealers: false, curve: .client(keyPair: keyPair, serverKey: keys.publicKey)
                )
            )
            try socket.connect(endpoint)
            return socket
        }

        /// Answers ZAP requests (`200` with user id `name` for `allowed`, `400` for any other key) until the monitor
        /// reports a handshake's outcome; returns the requests' frames and that outcome.
        func authenticate(
            allowed: ZMQCurveKey, as name: String
        ) throws -> (requests: [[[UInt8]]], outcome: ZMQMonitorEvent.Kind) {
            let poller = ZMQPoller()
            let zapIndex = poller.register(zap, for: .pollIn)
            let monitorIndex = poller.register(monitor, for: .pollIn)
            var requests: [[[UInt8]]] = []
            while true {
                let ready = try poller.poll(timeout: .seconds(20))
                #expect(ready.contains { !$0.isEmpty }, "nothing happened within 20 s")
                guard ready.contains(where: { !$0.isEmpty }) else { return (requests, []) }
                if ready[zapIndex].contains(.pollIn), let request = try zap.tryReceive() {
                    requests.append(request.frames)
                    let ok = request.frames.count == 9 && request.frames[8] == allowed.bytes
                    try zap.send(
                        ZMQMessage([
                            request.frames[0], [], Array("1.0".utf8), request.frames[3],
                            Array((ok ? "200" : "400").utf8),
                            Array((ok ? "OK" : "no").utf8), ok ? Array(name.utf8) : [], [],
                        ])
                    )
                }
                if ready[monitorIndex].contains(.pollIn), let event = ZMQMonitorEvent(try monitor.receive()) {
                    return (requests, event.kind)
                }
            }
        }
    }

    @Test func theZAPUserIDComesWithEveryMessageOfAnAdmittedConnection() throws {
        let server = try Server()
        let alice = try ZMQCurve.generateKeyPair()
        let client = try server.client(alice)
        try client.send(ZMQMessage(strings: ["hello", "world"]))

        let (requests, outcome) = try server.authenticate(allowed: alice.publicKey, as: "alice")
        #expect(outcome == .handshakeSucceeded)
        let request = try #require(requests.first)
        // [routing id, "", version, request id, domain, address, identity, mechanism, client key]
        #expect(request.count == 9)
        #expect(request.dropFirst().prefix(3).map { String(decoding: $0, as: UTF8.self) } == ["", "1.0", "1"])
        #expect(String(decoding: request[4], as: UTF8.self) == "test")
        #expect(String(decoding: request[7], as: UTF8.self) == "CURVE")
        #expect(request[8] == alice.publicKey.bytes)

        // The message waits on the router; its frames (the routing id's too) carry the connection's metadata.
        var received: (message: ZMQMessage, value: String?)?
        let poller = ZMQPoller()
        _ = poller.register(server.router, for: .pollIn)
        while received == nil, try poller.poll(timeout: .seconds(20)).first?.contains(.pollIn) == true {
            received = try server.router.tryReceive(withProperty: "User-Id")
        }
        let message = try #require(received)
        #expect(message.message.count == 3)
        #expect(message.message.strings.suffix(2) == ["hello", "world"])
        #expect(message.value == "alice")
        #expect(try server.router.tryReceive(withProperty: "Not-A-Property") == nil, "nothing else is queued")
        client.close()
    }

    @Test func aKeyTheHandlerRefusesGetsNothingIn() throws {
        let server = try Server()
        let alice = try ZMQCurve.generateKeyPair()
        let mallory = try ZMQCurve.generateKeyPair()
        let client = try server.client(mallory)
        try client.send(ZMQMessage(strings: ["let me in"]))

        let (requests, outcome) = try server.authenticate(allowed: alice.publicKey, as: "alice")
        #expect(outcome == .handshakeFailedAuth)
        #expect(requests.count == 1)
        // The handshake failed before any message could pass.
        #expect(try server.router.tryReceive() == nil)
        client.close()
    }
}
