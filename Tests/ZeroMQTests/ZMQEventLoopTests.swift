import Testing
import ZeroMQ

@Suite(.timeLimit(.minutes(1)))
struct ZMQEventLoopTests {
    @Test func routerDealerMultipartRoundTripWithRoutingIDsOverIPC() async throws {
        try await withTemporaryDirectory { directory in
            let loop = try ZMQEventLoop(logger: testLogger)
            let router = try await loop.makeSocket(.router)
            let endpoint = try await loop.bind(router, to: "ipc://\(directory)/router")
            #expect(endpoint == "ipc://\(directory)/router")

            var dealers: [ZMQSocketHandle] = []
            for name in ["presenter-1", "presenter-2"] {
                let dealer = try await loop.makeSocket(.dealer)
                try await loop.setOption(.routingID, to: Array(name.utf8), on: dealer)
                try await loop.connect(dealer, to: endpoint)
                dealers.append(dealer)
            }
            try await loop.send(.text("visible", "screen-1", ""), on: dealers[0])
            try await loop.send(ZMQMessage([Array("binary".utf8), [0, 0xFF]]), on: dealers[1])

            var received: [String: ZMQMessage] = [:]
            for _ in 0..<2 {
                let message = try #require(await router.messages.next())
                received[try #require(message.string(at: 0))] = message.droppingFirst()
            }
            #expect(received == ["presenter-1": .text("visible", "screen-1", ""),
                                 "presenter-2": ZMQMessage([Array("binary".utf8), [0, 0xFF]])])

            try await loop.send(ZMQMessage(strings: ["ack", "1"]).prepending(Array("presenter-2".utf8)), on: router)
            try await loop.send(.text("presenter-1", "ack", "2"), on: router)
            #expect(await dealers[0].messages.next() == .text("ack", "2"))
            #expect(await dealers[1].messages.next() == .text("ack", "1"))
            await loop.shutdown()
        }
    }

    @Test func routerMandatoryGivesHostUnreachableForAnUnknownPeer() async throws {
        let loop = try ZMQEventLoop(logger: testLogger)
        let router = try await loop.makeSocket(.router)
        try await loop.bind(router, to: uniqueInprocEndpoint())

        let error = await #expect(throws: ZMQError.self) {
            try await loop.send(.text("gone-presenter", "navigate"), on: router)
        }
        #expect(error?.code == .hostUnreachable)
        #expect(error?.description.contains("send on ROUTER#") == true)
        await loop.shutdown()
    }

    @Test func badEndpointErrorsComeBackFromTheLoopThread() async throws {
        let loop = try ZMQEventLoop(logger: testLogger)
        let dealer = try await loop.makeSocket(.dealer)
        let error = await #expect(throws: ZMQError.self) { try await loop.connect(dealer, to: "bogus://nowhere") }
        #expect(error?.description == "zmq_connect(bogus://nowhere): Protocol not supported (protocolNotSupported)")
        await loop.shutdown()
    }

    @Test(arguments: ["inproc", "tcp"])
    func thousandMessagesFromAsyncCodeArriveInOrder(transport: String) async throws {
        // Small high-water marks and inbox: the sender waits for room and the receiver's inbox pauses and resumes.
        let configuration = ZMQEventLoop.Configuration(
            socketOptions: ZMQSocketOptions(sendHighWaterMark: 10, receiveHighWaterMark: 10),
            inboxCapacity: 16
        )
        let loop = try ZMQEventLoop(configuration: configuration, logger: testLogger)
        let receiver = try await loop.makeSocket(transport == "inproc" ? .pair : .pull)
        let sender = try await loop.makeSocket(transport == "inproc" ? .pair : .push)
        let endpoint = try await loop.bind(
            receiver,
            to: transport == "inproc" ? uniqueInprocEndpoint() : "tcp://127.0.0.1:*"
        )
        try await loop.connect(sender, to: endpoint)

        let count = 1000
        let received = try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for index in 0..<count {
                    try await loop.send(.text("\(index)", "payload"), on: sender)
                }
            }
            var received: [String] = []
            for await message in receiver.messages {
                #expect(message.count == 2)
                received.append(message.string(at: 0) ?? "?")
                if received.count == count { break }
            }
            try await group.waitForAll()
            return received
        }
        #expect(received == (0..<count).map { "\($0)" })
        #expect(receiver.messages.tryNext() == nil)
        await loop.shutdown()
    }

    @Test func shutdownWithPendingMessagesDoesNotHang() async throws {
        try await withTemporaryDirectory { directory in
            let linger = ZMQSocketOptions(linger: .milliseconds(50))
            let loop = try ZMQEventLoop(configuration: .init(socketOptions: linger), logger: testLogger)
            let nobody = "ipc://\(directory)/nobody-listens"

            // Messages queued inside libzmq for a peer that never comes, on a socket whose linger was set to forever.
            let queued = try await loop.makeSocket(.dealer, options: ZMQSocketOptions(immediateOnDealers: false))
            try await loop.setOption(.linger, to: -1, on: queued)
            try await loop.connect(queued, to: nobody)
            for index in 0..<100 {
                try await loop.send(.text("queued \(index)"), on: queued)
            }

            // A send waiting in the loop for a connection that never completes (ZMQ_IMMEDIATE).
            let waiting = try await loop.makeSocket(.dealer)
            try await loop.connect(waiting, to: nobody)

            let outcome = await withTaskGroup(of: ZMQError?.self) { group in
                group.addTask {
                    do throws(ZMQError) {
                        try await loop.send(.text("never sent"), on: waiting)
                        return nil
                    } catch {
                        return error
                    }
                }
                while (try? await loop.pendingSendCount(on: waiting)) == 0 {
                    await Task.yield()
                }
                await loop.shutdown()
                return await group.next() ?? nil
            }
            #expect(outcome?.code == .terminated)
            #expect(loop.isShuttingDown)
            #expect(await queued.messages.next() == nil)
            let late = await #expect(throws: ZMQError.self) { try await loop.makeSocket(.pair) }
            #expect(late?.code == .terminated)
            let lateSend = await #expect(throws: ZMQError.self) { try await loop.send(.text("late"), on: queued) }
            #expect(lateSend?.code == .terminated)
            await loop.shutdown()  // a second shutdown returns at once
        }
    }

    @Test func sendTimeoutAndCancellationEndAWaitingSend() async throws {
        try await withTemporaryDirectory { directory in
            let loop = try ZMQEventLoop(logger: testLogger)
            let dealer = try await loop.makeSocket(.dealer)
            // Nobody listens there, so no connection completes and ZMQ_IMMEDIATE holds every send.
            try await loop.connect(dealer, to: "ipc://\(directory)/nobody")

            let timedOut = await #expect(throws: ZMQError.self) {
                try await loop.send(.text("x"), on: dealer, timeout: .milliseconds(20))
            }
            #expect(timedOut?.code == .wouldBlock)
            let immediate = await #expect(throws: ZMQError.self) {
                try await loop.send(.text("x"), on: dealer, timeout: .zero)
            }
            #expect(immediate?.code == .wouldBlock)

            let cancelled = await withTaskGroup(of: ZMQError?.self) { group in
                group.addTask {
                    do throws(ZMQError) {
                        try await loop.send(.text("x"), on: dealer)
                        return nil
                    } catch {
                        return error
                    }
                }
                while (try? await loop.pendingSendCount(on: dealer)) == 0 {
                    await Task.yield()
                }
                group.cancelAll()
                return await group.next() ?? nil
            }
            #expect(cancelled?.code == .cancelled)
            #expect(try await loop.pendingSendCount(on: dealer) == 0)
            await loop.shutdown()
        }
    }

    @Test func closingASocketEndsItsInboxAndLaterCallsFail() async throws {
        let loop = try ZMQEventLoop(logger: testLogger)
        let endpoint = uniqueInprocEndpoint()
        let left = try await loop.makeSocket(.pair)
        try await loop.bind(left, to: endpoint)
        let right = try await loop.makeSocket(.pair)
        try await loop.connect(right, to: endpoint)
        try await loop.send(.text("before close"), on: right)
        #expect(await left.messages.next() == .text("before close"))

        await loop.close(left)
        await loop.close(left)
        #expect(await left.messages.next() == nil)
        let error = await #expect(throws: ZMQError.self) { try await loop.send(.text("after"), on: left) }
        #expect(error?.code == .notSocket)
        let option = await #expect(throws: ZMQError.self) { try await loop.option(.linger, of: left) }
        #expect(option?.code == .notSocket)
        await loop.shutdown()
    }

    @Test func loopSocketsShareTheContextForInproc() async throws {
        let loop = try ZMQEventLoop(logger: testLogger)
        let endpoint = uniqueInprocEndpoint()
        let inside = try await loop.makeSocket(.pair)
        try await loop.bind(inside, to: endpoint)
        #expect(try await loop.option(.linger, of: inside) == 100)

        do {
            let outside = try boundedSocket(.pair, context: loop.context)
            try outside.connect(endpoint)
            try outside.send(.text("from a plain socket"))
            #expect(await inside.messages.next() == .text("from a plain socket"))
            try await loop.send(.text("from the loop"), on: inside)
            #expect(try outside.receive() == .text("from the loop"))
            // Shutting down while `outside` is open must not hang: the loop leaves the context to it.
            await loop.shutdown()
            #expect(!loop.context.isTerminated)
        }
    }

    @Test func runEndsWhenItsTaskIsCancelled() async throws {
        let loop = try ZMQEventLoop(logger: testLogger)
        let socket = try await loop.makeSocket(.pull)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await loop.run() }
            _ = try? await loop.bind(socket, to: uniqueInprocEndpoint())
            group.cancelAll()
        }
        #expect(await socket.messages.next() == nil)
        #expect(loop.isShuttingDown)
        #expect(loop.context.isTerminated)
    }
}
