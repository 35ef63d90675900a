import Testing
import ZeroMQ

@Suite(.timeLimit(.minutes(1)))
struct ZMQWakeSignalTests {
    private enum Event: Sendable {
        case ready(ZMQWakeSignal)
        case woke(Int)
        case failed(ZMQError)
    }

    @Test func signalWakesAThreadSleepingInPoll() async throws {
        let (events, continuation) = AsyncStream.makeStream(of: Event.self)
        try ZMQThread.start(name: "wake-test") {
            do throws(ZMQError) {
                let signal = try ZMQWakeSignal()
                defer { signal.close() }
                let poller = ZMQPoller()
                poller.register(fileDescriptor: signal.fileDescriptor, for: .pollIn)
                continuation.yield(.ready(signal))
                for round in 1...2 {
                    // No timeout: only a signal can end this poll.
                    let ready = try poller.poll(timeout: nil)
                    #expect(ready == [.pollIn])
                    signal.drain()
                    #expect(try poller.poll(timeout: .zero) == [[]])
                    continuation.yield(.woke(round))
                }
            } catch {
                continuation.yield(.failed(error))
            }
            continuation.finish()
        }

        var iterator = events.makeAsyncIterator()
        guard case .ready(let signal) = await iterator.next() else {
            Issue.record("the thread did not start polling")
            return
        }
        signal.signal()
        guard case .woke(1) = await iterator.next() else {
            Issue.record("the first signal did not wake the thread")
            return
        }
        signal.signal()
        guard case .woke(2) = await iterator.next() else {
            Issue.record("the second signal did not wake the thread")
            return
        }
        #expect(await iterator.next() == nil)
        signal.signal()  // closed: does nothing
    }
}
