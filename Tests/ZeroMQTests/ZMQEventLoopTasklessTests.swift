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

    /// A post made on the loop's own thread (here by a receiver) writes no wake-up: the loop takes it before it waits
    /// again, so the message still leaves at once and in order with the posts around it.
    @Test func postsFromTheLoopThreadItselfLeaveInOrderWithoutAWakeUp() async throws {
        let loop = try ZMQEventLoop(logger: testLogger)
        let requests = uniqueInprocEndpoint()
        let replies = uniqueInprocEndpoint()
        let back = try await loop.makeSocket(.pull)
        try await loop.bind(back, to: replies)
        let forth = try await loop.makeSocket(.push)
        try await loop.connect(forth, to: replies)
        let (outcomes, outcome) = AsyncStream<Result<Void, ZMQError>>.makeStream()
        // Each request is answered by two posts from the receiver, on the loop's thread.
        let echo = try await loop.makeSocket(.pull) { message in
            loop.post(message, on: forth) { outcome.yield($0) }
            loop.post(.text("after"), on: forth) { outcome.yield($0) }
        }
        try await loop.bind(echo, to: requests)
        let ask = try await loop.makeSocket(.push)
        try await loop.connect(ask, to: requests)

        var results = outcomes.makeAsyncIterator()
        for text in ["a", "b", "c"] {
            try await loop.send(.text(text), on: ask)
            #expect(await back.messages.next() == .text(text))
            #expect(await back.messages.next() == .text("after"))
            for _ in 0..<2 { #expect((try? #require(await results.next()).get()) != nil) }
        }
        await loop.shutdown()
    }
}
