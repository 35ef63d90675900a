import Testing
import ZeroMQ

@Suite(.timeLimit(.minutes(1)))
struct ZMQSocketTests {
    @Test func pairRoundTripOverInproc() throws {
        let context = try ZMQContext()
        let endpoint = uniqueInprocEndpoint()
        let left = try boundedSocket(.pair, context: context)
        try left.bind(endpoint)
        let right = try boundedSocket(.pair, context: context)
        try right.connect(endpoint)

        try left.send(.text("ping", "with", "frames"))
        #expect(try right.receive() == .text("ping", "with", "frames"))
        try right.send(ZMQMessage([[], [0, 1, 2, 255]]))
        #expect(try left.receive() == ZMQMessage([[], [0, 1, 2, 255]]))
        #expect(try left.tryReceive() == nil)
    }

    @Test func aRouterReceivesTheRoutingIDApartAndSendsBeforeTheFrames() throws {
        let context = try ZMQContext()
        let endpoint = uniqueInprocEndpoint()
        let router = try boundedSocket(.router, context: context)
        try router.bind(endpoint)
        let dealer = try boundedSocket(.dealer, context: context)
        try dealer.setOption(.routingID, to: [7, 7])
        try dealer.connect(endpoint)

        try dealer.send(ZMQMessage([[], [1, 2, 3], Array("body".utf8)]))
        let poller = ZMQPoller()
        poller.register(router, for: .pollIn)
        _ = try poller.poll(timeout: nil)
        let received = try router.tryReceiveRouted()
        #expect(received?.routingID == [7, 7])
        #expect(received?.frames == [[], [1, 2, 3], Array("body".utf8)])
        #expect(received?.value == nil)
        #expect(try router.tryReceiveRouted() == nil)

        #expect(try router.trySend(routingID: [7, 7], [Array("answer".utf8), []]))
        #expect(try dealer.receive() == ZMQMessage([Array("answer".utf8), []]))
    }

    @Test func socketsGetTheDocumentedDefaults() throws {
        let context = try ZMQContext()
        let router = try ZMQSocket(.router, context: context)
        #expect(try router.option(.linger) == 100)
        #expect(try router.option(.maxMessageSize) == 1 << 20)
        #expect(try router.option(.heartbeatInterval) == 1000)
        #expect(try router.option(.heartbeatTimeout) == 3000)
        #expect(try router.option(.heartbeatTTL) == 3000)
        let dealer = try ZMQSocket(.dealer, context: context)
        #expect(try dealer.option(.immediate))
        let push = try ZMQSocket(.push, context: context)
        #expect(try !push.option(.immediate))

        let custom = try ZMQSocket(
            .dealer,
            context: context,
            options: ZMQSocketOptions(
                linger: .zero,
                maxMessageSize: nil,
                heartbeat: nil,
                sendHighWaterMark: 5,
                receiveHighWaterMark: 7,
                immediateOnDealers: false
            )
        )
        #expect(try custom.option(.linger) == 0)
        #expect(try custom.option(.maxMessageSize) == -1)
        #expect(try custom.option(.heartbeatInterval) == 0)
        #expect(try custom.option(.sendHighWaterMark) == 5)
        #expect(try custom.option(.receiveHighWaterMark) == 7)
        #expect(try !custom.option(.immediate))
    }

    /// ZMTP carries a PING's TTL in tenths of a second in 16 bits: a longer one is set as the longest, where libzmq
    /// would refuse it (`EINVAL`).
    @Test func aHeartbeatTTLBeyondZMTPsLongestIsSetAsTheLongest() throws {
        let context = try ZMQContext()
        let heartbeat = ZMQSocketOptions.Heartbeat(
            interval: .seconds(3600), timeout: .seconds(10_800), ttl: .seconds(10_800))
        let socket = try ZMQSocket(
            .router, context: context, options: ZMQSocketOptions(linger: .zero, heartbeat: heartbeat))
        #expect(try socket.option(.heartbeatTTL) == 6_553_500)
        #expect(ZMQSocketOptions.Heartbeat.longestTTL == .milliseconds(6_553_500))
        #expect(try socket.option(.heartbeatTimeout) == 10_800_000)
    }

    @Test func typedOptionsRoundTrip() throws {
        let context = try ZMQContext()
        let dealer = try ZMQSocket(.dealer, context: context)
        try dealer.setOption(.routingID, to: Array("presenter-1".utf8))
        #expect(try dealer.option(.routingID) == Array("presenter-1".utf8))
        try dealer.setOption(.zapDomain, to: "flowd")
        #expect(try dealer.option(.zapDomain) == "flowd")
        try dealer.setOption(.linger, to: 250)
        #expect(try dealer.option(.linger) == 250)
        #expect(try dealer.option(.fileDescriptor) >= 0)
        #expect(try dealer.option(.events) == [])

        let error = #expect(throws: ZMQError.self) { try dealer.setOption(.lastEndpoint, to: "tcp://x") }
        #expect(error?.code == .invalidArgument)
    }

    @Test func wildcardTCPPortIsReadFromLastEndpoint() throws {
        let context = try ZMQContext()
        let router = try boundedSocket(.router, context: context)
        try router.bind("tcp://127.0.0.1:*")
        let endpoint = try router.option(.lastEndpoint)
        #expect(endpoint.hasPrefix("tcp://127.0.0.1:"))
        #expect(!endpoint.hasSuffix(":*"))

        let dealer = try boundedSocket(.dealer, context: context)
        try dealer.setOption(.routingID, to: Array("d1".utf8))
        try dealer.connect(endpoint)
        try dealer.send(.text("hello"))
        #expect(try router.receive() == .text("d1", "hello"))
        try router.unbind(endpoint)
    }

    @Test func badEndpointsGiveReadableErrors() throws {
        let context = try ZMQContext()
        let socket = try ZMQSocket(.dealer, context: context)

        let unknownTransport = #expect(throws: ZMQError.self) { try socket.connect("bogus://nowhere") }
        #expect(unknownTransport?.code == .protocolNotSupported)
        #expect(unknownTransport?.call == "zmq_connect(bogus://nowhere)")
        #expect(unknownTransport?.message == "Protocol not supported")
        let expected = "zmq_connect(bogus://nowhere): Protocol not supported (protocolNotSupported)"
        #expect(unknownTransport?.description == expected)

        let badAddress = #expect(throws: ZMQError.self) { try socket.bind("tcp://127.0.0.1:notaport") }
        #expect(badAddress?.code == .invalidArgument)
        #expect(badAddress?.description == "zmq_bind(tcp://127.0.0.1:notaport): Invalid argument (invalidArgument)")

        let notBound = #expect(throws: ZMQError.self) { try socket.unbind("inproc://never-bound") }
        #expect(notBound?.code == .noEntry)
    }

    @Test func wouldBlockIsDistinctFromFailure() throws {
        let context = try ZMQContext()
        let dealer = try ZMQSocket(.dealer, context: context)  // ZMQ_IMMEDIATE and no peer: nothing can be queued
        let error = #expect(throws: ZMQError.self) { try dealer.send(.text("x"), nonBlocking: true) }
        #expect(error?.isWouldBlock == true)
        #expect(error?.code == .wouldBlock)
        #expect(error?.description.contains("would block") == true)
        #expect(try dealer.trySend(.text("x")) == false)
        #expect(try dealer.tryReceive() == nil)

        let empty = #expect(throws: ZMQError.self) { try dealer.send(ZMQMessage([])) }
        #expect(empty?.code == .invalidArgument)
    }

    @Test func closedSocketsAndContextsFailCleanly() throws {
        let context = try ZMQContext()
        let socket = try ZMQSocket(.pair, context: context)
        #expect(context.openSocketCount == 1)

        let busy = #expect(throws: ZMQError.self) { try context.terminate() }
        #expect(busy?.code == .busy)

        socket.close()
        socket.close()
        #expect(socket.isClosed)
        #expect(context.openSocketCount == 0)
        let closed = #expect(throws: ZMQError.self) { try socket.send(.text("x")) }
        #expect(closed?.code == .notSocket)

        try context.terminate()
        #expect(context.isTerminated)
        let terminated = #expect(throws: ZMQError.self) { try ZMQSocket(.pair, context: context) }
        #expect(terminated?.code == .terminated)
    }

    @Test func routerMandatoryReportsUnknownPeers() throws {
        let context = try ZMQContext()
        let router = try ZMQSocket(.router, context: context)
        try router.bind(uniqueInprocEndpoint())
        let error = #expect(throws: ZMQError.self) { try router.send(.text("nobody", "hello")) }
        #expect(error?.code == .hostUnreachable)

        let lenient = try ZMQSocket(.router, context: context, options: ZMQSocketOptions(routerMandatory: false))
        try lenient.send(.text("nobody", "hello"))  // silently dropped, libzmq's default
    }

    @Test func oversizedMessageDisconnectsTheSenderAndIsNotDelivered() throws {
        let context = try ZMQContext()
        let receiver = try boundedSocket(.pull, context: context, options: ZMQSocketOptions(maxMessageSize: 1024))
        try receiver.bind("tcp://127.0.0.1:*")
        let endpoint = try receiver.option(.lastEndpoint)
        let monitorEndpoint = uniqueInprocEndpoint()
        try receiver.startMonitor(at: monitorEndpoint, events: [.accepted, .disconnected])
        let monitor = try boundedSocket(.pair, context: context)
        try monitor.connect(monitorEndpoint)

        let sender = try boundedSocket(.push, context: context)
        try sender.connect(endpoint)
        try sender.send(ZMQMessage([[UInt8](repeating: 7, count: 4096)]))

        let events = try receiveMonitorEvents(from: monitor, until: .disconnected)
        #expect(events.contains { $0.kind == .accepted })
        #expect(events.last?.kind == .disconnected)
        #expect(try receiver.tryReceive() == nil)

        // A message within the limit, from a new connection, is the first (and only) one the receiver gets.
        let second = try boundedSocket(.push, context: context)
        try second.connect(endpoint)
        try second.send(ZMQMessage([[UInt8](repeating: 1, count: 1024)]))
        #expect(try receiver.receive() == ZMQMessage([[UInt8](repeating: 1, count: 1024)]))
        #expect(try receiver.tryReceive() == nil)
        try receiver.stopMonitor()
    }

    @Test func pollerReportsReadiness() throws {
        let context = try ZMQContext()
        let endpoint = uniqueInprocEndpoint()
        let left = try boundedSocket(.pair, context: context)
        try left.bind(endpoint)
        let right = try boundedSocket(.pair, context: context)
        try right.connect(endpoint)

        let poller = ZMQPoller()
        #expect(poller.register(right, for: .pollIn) == 0)
        #expect(poller.register(left, for: [.pollIn, .pollOut]) == 1)
        #expect(try poller.poll(timeout: .zero) == [[], [.pollOut]])

        try left.send(.text("wake"))
        #expect(try poller.poll(timeout: .seconds(20)) == [[.pollIn], [.pollOut]])
        #expect(try right.receive() == .text("wake"))

        poller.unregister(left)
        #expect(poller.count == 1)
        right.close()
        let error = #expect(throws: ZMQError.self) { try poller.poll(timeout: .zero) }
        #expect(error?.code == .notSocket)
    }
}
