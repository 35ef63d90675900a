import Testing
import ZeroMQ

@Suite(.timeLimit(.minutes(1)))
struct ZMQReactorTests {
    /// Two connected PAIR sockets in `context`.
    private func pair(_ context: ZMQContext, _ name: String) throws -> (ZMQSocket, ZMQSocket) {
        let options = ZMQSocketOptions(linger: .zero, maxMessageSize: nil, heartbeat: nil)
        let receiver = try ZMQSocket(.pair, context: context, options: options)
        try receiver.bind("inproc://reactor-test.\(name)")
        let sender = try ZMQSocket(.pair, context: context, options: options)
        try sender.connect("inproc://reactor-test.\(name)")
        return (receiver, sender)
    }

    @Test func reportsWhichWatchedSocketIsReady() throws {
        let context = try ZMQContext()
        defer { context.shutdown() }
        let reactor = try ZMQReactor()
        defer { reactor.close() }
        let (first, firstPeer) = try pair(context, "first")
        let (second, secondPeer) = try pair(context, "second")
        defer { for socket in [first, firstPeer, second, secondPeer] { socket.close() } }
        let firstWatch = reactor.watch(first, for: .pollIn)
        let secondWatch = reactor.watch(second, for: .pollIn)

        try reactor.wait(timeout: .zero)
        #expect(reactor.events(of: firstWatch) == [])
        #expect(reactor.events(of: secondWatch) == [])

        try secondPeer.send(ZMQMessage([Array("hi".utf8)]))
        try reactor.wait(timeout: .seconds(10))
        #expect(reactor.events(of: firstWatch) == [])
        #expect(reactor.events(of: secondWatch) == .pollIn)
        // Level-triggered: still ready until read.
        try reactor.wait(timeout: .zero)
        #expect(reactor.events(of: secondWatch) == .pollIn)

        reactor.setEvents([], of: secondWatch)
        try reactor.wait(timeout: .zero)
        #expect(reactor.events(of: secondWatch) == [])

        reactor.unwatch(firstWatch)
        try firstPeer.send(ZMQMessage([Array("x".utf8)]))
        reactor.setEvents(.pollIn, of: secondWatch)
        try reactor.wait(timeout: .zero)
        #expect(reactor.events(of: firstWatch) == [], "an unwatched socket is not reported")
        #expect(reactor.events(of: secondWatch) == .pollIn, "later watches keep their own readiness")
    }

    @Test func aPostFromAnotherThreadWakesAWaitWithoutTimeout() async throws {
        let context = try ZMQContext()
        defer { context.shutdown() }
        let mailbox = ZMQMailbox<Int>()
        let (taken, continuation) = AsyncStream.makeStream(of: [Int].self)
        let (started, startedContinuation) = AsyncStream.makeStream(of: Void.self)
        try ZMQThread.start(name: "reactor-test") {
            guard let reactor = try? ZMQReactor() else {
                continuation.finish()
                return
            }
            defer { reactor.close() }
            mailbox.connect(wakeUp: reactor.wakeSignal)
            startedContinuation.yield()
            while true {
                let (items, closed) = mailbox.take()
                if !items.isEmpty { continuation.yield(items) }
                if closed { break }
                // No timeout: only a post or the close can end this wait.
                do throws(ZMQError) { try reactor.wait(timeout: nil) } catch { break }
            }
            continuation.finish()
        }
        var startedIterator = started.makeAsyncIterator()
        await startedIterator.next()
        #expect(mailbox.post(1))
        var iterator = taken.makeAsyncIterator()
        var received: [Int] = []
        while received.count < 1, let items = await iterator.next() { received += items }
        #expect(mailbox.post(2))
        #expect(mailbox.post(3))
        while received.count < 3, let items = await iterator.next() { received += items }
        #expect(received == [1, 2, 3])
        mailbox.close()
        #expect(!mailbox.post(4), "a closed mailbox refuses items")
        while let items = await iterator.next() { received += items }
        #expect(received == [1, 2, 3], "the thread ended on the close")
        #expect(mailbox.isClosed)
    }

    @Test func itemsPostedBeforeTheReactorExistsWaitForIt() throws {
        let context = try ZMQContext()
        defer { context.shutdown() }
        let mailbox = ZMQMailbox<String>()
        mailbox.post("early")
        let reactor = try ZMQReactor()
        defer { reactor.close() }
        mailbox.connect(wakeUp: reactor.wakeSignal)
        // Connecting wakes the reactor for the waiting item: a wait without timeout returns.
        try reactor.wait(timeout: nil)
        #expect(mailbox.take().items == ["early"])
    }

    @Test func aNotificationWatchReportsAnXPUBsSubscriptionsWithoutWatchingTheSocket() throws {
        let context = try ZMQContext()
        defer { context.shutdown() }
        let reactor = try ZMQReactor()
        defer { reactor.close() }
        let options = ZMQSocketOptions(linger: .zero, maxMessageSize: nil, heartbeat: nil)
        let publisher = try ZMQSocket(.xpub, context: context, options: options)
        try publisher.bind("inproc://reactor-test.xpub")
        let subscriber = try ZMQSocket(.sub, context: context, options: options)
        defer { for socket in [subscriber, publisher] { socket.close() } }
        let watch = try reactor.watchNotifications(of: publisher)
        /// Reads what the XPUB reports, until it would block.
        func drain() throws -> [[UInt8]] {
            var frames: [[UInt8]] = []
            while let message = try publisher.tryReceive() { frames += message.frames }
            return frames
        }

        try subscriber.connect("inproc://reactor-test.xpub")
        try subscriber.setOption(.subscribe, to: Array("a".utf8))
        var reported: [[UInt8]] = []
        while reported.isEmpty {
            // No deadline of its own: the suite's time limit ends a wait that never comes.
            try reactor.wait(timeout: nil)
            if reactor.events(of: watch).contains(.pollIn) { reported += try drain() }
        }
        #expect(reported == [[1] + Array("a".utf8)])
        try reactor.wait(timeout: .zero)
        #expect(reactor.events(of: watch) == [], "read until it would block, the socket is not signalled again")

        try subscriber.setOption(.subscribe, to: Array("b".utf8))
        reported = []
        while reported.isEmpty {
            try reactor.wait(timeout: nil)
            if reactor.events(of: watch).contains(.pollIn) { reported += try drain() }
        }
        #expect(reported == [[1] + Array("b".utf8)], "a later subscription signals the descriptor again")
        reactor.unwatch(watch)
        try reactor.wait(timeout: .zero)
        #expect(reactor.events(of: watch) == [], "an unwatched descriptor is not reported")
    }

    /// The pattern flowd's I/O loop follows on its control ROUTER: read until it would block when the descriptor is
    /// signalled, and after sending on the socket ask `ZMQ_EVENTS` before sleeping (a send may process the command
    /// that announced a message, and the descriptor is not signalled again for it).
    @Test func aNotificationWatchOfARouterWithAnEventsCheckAfterSendsMissesNoMessage() throws {
        let context = try ZMQContext()
        defer { context.shutdown() }
        let reactor = try ZMQReactor()
        defer { reactor.close() }
        let options = ZMQSocketOptions(linger: .zero, maxMessageSize: nil, heartbeat: nil)
        let router = try ZMQSocket(.router, context: context, options: options)
        try router.bind("inproc://reactor-test.router")
        let dealer = try ZMQSocket(.dealer, context: context, options: options)
        defer { for socket in [dealer, router] { socket.close() } }
        try dealer.connect("inproc://reactor-test.router")
        let watch = try reactor.watchNotifications(of: router)
        /// Reads what the ROUTER holds, until it would block.
        func drain() throws -> [ZMQMessage] {
            var messages: [ZMQMessage] = []
            while let message = try router.tryReceive() { messages.append(message) }
            return messages
        }

        var sentOnRouter = false
        for round in 0..<50 {
            try dealer.send([[UInt8(round)]])
            var messages: [ZMQMessage] = []
            while messages.isEmpty {
                let ready = try sentOnRouter && router.option(.events).contains(.pollIn)
                sentOnRouter = false
                // No deadline of its own: the suite's time limit ends a wait that never comes.
                try reactor.wait(timeout: ready ? .zero : nil)
                if ready || reactor.events(of: watch).contains(.pollIn) { messages = try drain() }
            }
            #expect(messages.map { $0.droppingFirst() } == [[[UInt8(round)]]])
            try reactor.wait(timeout: .zero)
            #expect(reactor.events(of: watch) == [], "read until it would block, the socket is not signalled again")
            // An answer on the ROUTER, which the dealer waits for: its next message arrives after this send.
            try router.send(messages[0])
            sentOnRouter = true
            #expect(try dealer.receive() == [[UInt8(round)]])
        }
    }
}
