import Synchronization
import Testing
import ZeroMQ

/// The loop's calls that keep no task per message: `post` (a send whose outcome goes to a closure) and sockets made
/// with a receiver (each message handed to it on the loop's thread).
@Suite(.timeLimit(.minutes(1)))
struct ZMQEventLoopTasklessTests {
    @Test func postedMessagesLeaveInOrderWithAwaitedSendsAndReportSuccess() async throws {
        let loop = try ZMQEventLoop(logger: testLogger)
        let endpoint = uniqueInprocEndpoint()
        let pull = try await loop.makeSocket(.pull)
        try await loop.bind(pull, to: endpoint)
        let push = try await loop.makeSocket(.push)
        try await loop.connect(push, to: endpoint)

        let (outcomes, outcome) = AsyncStream<Result<Void, ZMQError>>.makeStream()
        #expect(loop.post(.text("1"), on: push) { outcome.yield($0) })
        try await loop.send(.text("2"), on: push)
        #expect(loop.post(.text("3"), on: push) { outcome.yield($0) })
        var results = outcomes.makeAsyncIterator()
        for _ in 0..<2 {
            let result = try #require(await results.next())
            #expect((try? result.get()) != nil)
        }
        for expected in ["1", "2", "3"] {
            #expect(await pull.messages.next() == .text(expected))
        }
        await loop.shutdown()
    }

    @Test func aPostOnAClosedSocketReportsNotSocketAndAfterShutdownIsRefused() async throws {
        let loop = try ZMQEventLoop(logger: testLogger)
        let dealer = try await loop.makeSocket(.dealer)
        await loop.close(dealer)
        let (outcomes, outcome) = AsyncStream<Result<Void, ZMQError>>.makeStream()
        #expect(loop.post(.text("late"), on: dealer) { outcome.yield($0) })
        var results = outcomes.makeAsyncIterator()
        let result = try #require(await results.next())
        #expect(throws: ZMQError.self) { try result.get() }
        if case .failure(let error) = result { #expect(error.code == .notSocket) }

        await loop.shutdown()
        #expect(!loop.post(.text("after"), on: dealer) { _ in Issue.record("completion after shutdown") })
    }

    @Test func aSocketWithAReceiverHandsItEveryMessageOnTheLoopThreadAndItsInboxEnds() async throws {
        let loop = try ZMQEventLoop(logger: testLogger)
        let endpoint = uniqueInprocEndpoint()
        let (received, receive) = AsyncStream<ZMQMessage>.makeStream()
        let pull = try await loop.makeSocket(.pull) { message in receive.yield(message) }
        try await loop.bind(pull, to: endpoint)
        let push = try await loop.makeSocket(.push)
        try await loop.connect(push, to: endpoint)

        #expect(await pull.messages.next() == nil)
        for text in ["a", "b", "c"] { try await loop.send(.text(text), on: push) }
        var messages = received.makeAsyncIterator()
        for expected in ["a", "b", "c"] {
            #expect(await messages.next() == .text(expected))
        }
        await loop.shutdown()
    }

    @Test func aPostOnASocketWithAReceiverLeavesAtOnceFromTheCallersThread() async throws {
        let loop = try ZMQEventLoop(logger: testLogger)
        let endpoint = uniqueInprocEndpoint()
        let pull = try await loop.makeSocket(.pull)
        try await loop.bind(pull, to: endpoint)
        let push = try await loop.makeSocket(.push) { _ in }
        try await loop.connect(push, to: endpoint)

        // An inproc peer is connected as soon as `connect` returns, so libzmq takes the message at once.
        let outcome = Mutex<Result<Void, ZMQError>?>(nil)
        #expect(loop.post(.text("now"), on: push) { result in outcome.withLock { $0 = result } })
        let completed = outcome.withLock { $0 }
        #expect(completed.map { (try? $0.get()) != nil } == true, "completed before post returned")
        #expect(await pull.messages.next() == .text("now"))
        await loop.shutdown()
    }

    @Test func sendsFromManyThreadsAndRepliesFromTheReceiverMissNoMessage() async throws {
        // The echo runs on a loop of its own, so that both loops' threads and the senders' run at once.
        let echoLoop = try ZMQEventLoop(logger: testLogger)
        let loop = try ZMQEventLoop(context: echoLoop.context, logger: testLogger)
        let endpoint = uniqueInprocEndpoint()
        let router = try await echoLoop.makeSocket(.router)
        try await echoLoop.bind(router, to: endpoint)

        let senders = 4
        let perSender = 300
        // Every "ping" comes back and is answered with a "pong" from the receiver, which comes back too.
        let expected = 2 * senders * perSender
        let counts = Mutex((pings: 0, pongs: 0, failedSends: 0))
        let sent: @Sendable (Result<Void, ZMQError>) -> Void = { result in
            if case .failure = result { counts.withLock { $0.failedSends += 1 } }
        }
        let (finished, finish) = AsyncStream<Void>.makeStream()
        let dealerSlot = Mutex<ZMQSocketHandle?>(nil)
        let dealer = try await loop.makeSocket(.dealer) { message in
            let (all, isPing) = counts.withLock { counts -> (Bool, Bool) in
                let isPing = message == .text("ping")
                if isPing { counts.pings += 1 } else { counts.pongs += 1 }
                return (counts.pings + counts.pongs == expected, isPing)
            }
            if isPing, let dealer = dealerSlot.withLock({ $0 }) {
                loop.post(.text("pong"), on: dealer, then: sent)
            }
            if all { finish.finish() }
        }
        dealerSlot.withLock { $0 = dealer }
        try await loop.connect(dealer, to: endpoint)

        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                var echoed = 0
                for await message in router.messages {
                    try await echoLoop.send(message, on: router)
                    echoed += 1
                    if echoed == expected { return }
                }
            }
            for _ in 0..<senders {
                group.addTask {
                    for _ in 0..<perSender {
                        #expect(loop.post(.text("ping"), on: dealer, then: sent))
                        await Task.yield()
                    }
                }
            }
            try await group.waitForAll()
        }
        for await _ in finished {}
        let final = counts.withLock { $0 }
        #expect(final.pings == senders * perSender)
        #expect(final.pongs == senders * perSender)
        #expect(final.failedSends == 0)
        await loop.shutdown()
        await echoLoop.shutdown()
    }
}
