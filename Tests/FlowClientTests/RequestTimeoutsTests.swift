import Synchronization
import Testing

@testable import FlowClient

/// The one task that fires every request's timeout: what it fires, in which order, and what it never fires.
@Suite(.timeLimit(.minutes(1)))
struct RequestTimeoutsTests {
    /// Runs `timeouts` and hands every firing (its request, and whether it was put off before) to the stream; a
    /// firing of `putOff` is put off once, to right away.
    private func serve(
        _ timeouts: RequestTimeouts, putOff: UInt64? = nil
    ) -> (AsyncStream<(UInt64, Bool)>, @Sendable () async -> Void) {
        let (fired, fire) = AsyncStream<(UInt64, Bool)>.makeStream()
        let run: @Sendable () async -> Void = {
            await timeouts.run { req, deadline, now in
                fire.yield((req, deadline.extended))
                return req == putOff && !deadline.extended ? now : nil
            }
        }
        return (fired, run)
    }

    @Test func withoutARunningTaskNothingIsScheduled() {
        let timeouts = RequestTimeouts()
        #expect(!timeouts.schedule(1, timeout: .seconds(1), due: .now))
    }

    @Test func aDeadlineKeptWhileNoTaskServesFiresOnceOneRuns() async {
        let timeouts = RequestTimeouts()
        timeouts.keep(7, timeout: .zero, due: .now)
        #expect(!timeouts.schedule(8, timeout: .zero, due: .now))
        let (fired, run) = serve(timeouts)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await run() }
            var firings = fired.makeAsyncIterator()
            let first = await firings.next()
            #expect(first?.0 == 7 && first?.1 == false)
            group.cancelAll()
        }
    }

    @Test func anEarlierDeadlineWakesTheTaskSleepingUntilALaterOne() async {
        let timeouts = RequestTimeouts()
        let (fired, run) = serve(timeouts)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await run() }
            while !timeouts.schedule(1, timeout: .seconds(3600), due: .now + .seconds(3600)) { await Task.yield() }
            // Let the task go to sleep until the hour is up, then ask for sooner.
            for _ in 0..<100 { await Task.yield() }
            #expect(timeouts.schedule(2, timeout: .milliseconds(10), due: .now + .milliseconds(10)))
            var firings = fired.makeAsyncIterator()
            let first = await firings.next()
            #expect(first?.0 == 2)
            group.cancelAll()
        }
    }

    @Test func aCancelledDeadlineNeverFiresAndAPutOffOneFiresAgainMarkedExtended() async {
        let timeouts = RequestTimeouts()
        let (fired, run) = serve(timeouts, putOff: 3)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await run() }
            // Both due at the same instant, 1 first in the heap's order: 1 would fire first were it not cancelled. The
            // instant is far enough ahead that a busy machine cannot reach it before the cancel.
            let due = ContinuousClock.now + .seconds(3)
            while !timeouts.schedule(1, timeout: .zero, due: due) { await Task.yield() }
            timeouts.cancel(1)
            #expect(timeouts.schedule(3, timeout: .zero, due: due))
            var firings = fired.makeAsyncIterator()
            let first = await firings.next()
            let second = await firings.next()
            #expect(first?.0 == 3 && first?.1 == false)
            #expect(second?.0 == 3 && second?.1 == true)
            group.cancelAll()
        }
    }
}
