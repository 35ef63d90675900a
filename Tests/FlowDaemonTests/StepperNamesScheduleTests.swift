@testable import FlowDaemon
import Testing

/// docs/RELIABILITY.md, `stepper-names`: written at once when the stepper processes change, unless writing it has
/// taken more than a tenth of the I/O thread's time since the last write began (a burst of joins with a large file).
struct StepperNamesScheduleTests {
    @Test func aChangeIsWrittenAtOnceAfterAShortWrite() {
        var schedule = StepperNamesSchedule()
        #expect(!schedule.isDue(version: 0, now: 0) && schedule.wakeTime(version: 0) == nil, "nothing changed")
        #expect(schedule.isDue(version: 1, now: 0))
        schedule.written(version: 1, start: 10, end: 10)
        #expect(schedule.isDue(version: 2, now: 10) && schedule.wakeTime(version: 1) == nil)
    }

    @Test func afterALongWriteTheNextWaitsNineTimesAsLongAndTakesEveryChangeMeanwhile() {
        var schedule = StepperNamesSchedule()
        schedule.written(version: 1, start: 100, end: 150)  // 50 ms: the next not before 150 + 450
        for version in 2...40 { #expect(!schedule.isDue(version: version, now: 599)) }
        #expect(schedule.wakeTime(version: 40) == 600)
        #expect(schedule.isDue(version: 40, now: 600))
        schedule.written(version: 40, start: 600, end: 601)
        #expect(schedule.wakeTime(version: 40) == nil && schedule.isDue(version: 41, now: 610))
    }

    @Test func aClockThatDidNotMoveOrWentBackCountsTheWriteAsInstant() {
        var schedule = StepperNamesSchedule()
        schedule.written(version: 1, start: 200, end: 190)
        #expect(schedule.isDue(version: 2, now: 190))
    }
}
