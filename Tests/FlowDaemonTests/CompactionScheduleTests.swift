@testable import FlowDaemon
import Testing

/// The sliced compaction's turn logic on its own (``CompactionSchedule``, no files, no daemon): when one starts, that
/// it saves over several turns, waits for the records the transport has not written before the journals switch, and
/// waits a minute after an I/O error (docs/RELIABILITY.md, "Snapshots and compaction").
struct CompactionScheduleTests {
    /// A compaction noting `sessions` changed sessions, `visited` of them visited so far.
    private func preparation(_ sessions: Int, visited: Int = 0) -> CompactionPreparation {
        var preparation = CompactionPreparation(changed: (0..<sessions).map { "s\($0)" }, unchanged: 0)
        preparation.next = visited
        return preparation
    }

    /// ``CompactionSchedule/sliceSaved(_:took:recordsPending:)`` outside the expectation macros (which take no
    /// mutating call).
    private func slice(
        _ schedule: inout CompactionSchedule, _ sessions: Int, visited: Int, ms: Int = 0, recordsPending: Bool = false
    ) -> CompactionSchedule.Preparing? {
        schedule.sliceSaved(
            preparation(sessions, visited: visited), took: .milliseconds(ms), recordsPending: recordsPending)
    }

    private func running(turns: Int) -> CompactionSchedule.Running {
        CompactionSchedule.Running(
            records: 1, journalBytesBefore: 10, compaction: JournalCompaction(), ioThreadDuration: .zero, turns: turns,
            liveAppVersions: [], appReloads: nil)
    }

    @Test func aCompactionStartsOnlyWhenNeededWithNoRecordPendingAndNoneUnderWay() {
        var schedule = CompactionSchedule()
        #expect(!schedule.startsCompaction(needsCompaction: false, recordsPending: false, now: 0))
        #expect(!schedule.startsCompaction(needsCompaction: true, recordsPending: true, now: 0), "records not written")
        #expect(schedule.startsCompaction(needsCompaction: true, recordsPending: false, now: 0))
        schedule.start(preparation(3))
        #expect(!schedule.startsCompaction(needsCompaction: true, recordsPending: false, now: 1), "one is preparing")
        #expect(schedule.isSaving)
    }

    @Test func theJournalsSwitchOnceEverySessionIsSavedAndTheTransportWroteItsRecords() throws {
        var schedule = CompactionSchedule()
        schedule.start(preparation(70))
        // Slices of 32 sessions: two turns leave sessions to save, the loop does not sleep between them.
        let firstSlice = slice(&schedule, 70, visited: 32, ms: 2, recordsPending: false)
        #expect(firstSlice == nil)
        #expect(schedule.isSaving)
        let secondSlice = slice(&schedule, 70, visited: 64, ms: 3, recordsPending: false)
        #expect(secondSlice == nil)
        // All saved, but records taken and not written: no switch, and nothing left to save (the loop may wait).
        let waiting = slice(&schedule, 70, visited: 70, ms: 1, recordsPending: true)
        #expect(waiting == nil)
        #expect(!schedule.isSaving && schedule.preparing != nil)
        #expect(!schedule.startsCompaction(needsCompaction: true, recordsPending: false, now: 5), "one is preparing")
        // Written: the next turn switches; the four turns and their time are the compaction's.
        let switched = slice(&schedule, 70, visited: 70, ms: 1)
        let switching = try #require(switched)
        #expect(switching.turns == 4 && switching.ioThreadDuration == .milliseconds(7))
        #expect(schedule.preparing == nil && schedule.running == nil)
        schedule.switched(running(turns: switching.turns))
        #expect(!schedule.startsCompaction(needsCompaction: true, recordsPending: false, now: 6), "one is running")
        let written = schedule.written(now: 9)
        #expect(written?.turns == 4)
        #expect(schedule.running == nil && schedule.next == 9)
        #expect(schedule.startsCompaction(needsCompaction: true, recordsPending: false, now: 9), "at once")
    }

    @Test func aCompactionWithNothingChangedSwitchesOnItsFirstTurn() {
        var schedule = CompactionSchedule()
        schedule.start(preparation(0))
        #expect(!schedule.isSaving)
        let only = slice(&schedule, 0, visited: 0)
        #expect(only?.turns == 1)
    }

    @Test func anIOErrorPutsTheNextCompactionOffByAMinute() {
        var schedule = CompactionSchedule()
        // The switch failed (a full disk): nothing under way, the next try in a minute.
        schedule.start(preparation(1))
        _ = slice(&schedule, 1, visited: 1)
        schedule.putOff(now: 1_000)
        #expect(schedule.preparing == nil && schedule.running == nil)
        #expect(!schedule.startsCompaction(needsCompaction: true, recordsPending: false, now: 60_999))
        #expect(schedule.startsCompaction(needsCompaction: true, recordsPending: false, now: 61_000))
        // The snapshot could not be written: the same.
        schedule.start(preparation(0))
        _ = slice(&schedule, 0, visited: 0)
        schedule.switched(running(turns: 1))
        schedule.putOff(now: 70_000)
        #expect(schedule.running == nil)
        #expect(!schedule.startsCompaction(needsCompaction: true, recordsPending: false, now: 129_999))
        #expect(schedule.startsCompaction(needsCompaction: true, recordsPending: false, now: 130_000))
    }

    @Test func aSliceWithoutACompactionUnderWayDoesNothing() {
        var schedule = CompactionSchedule()
        let noSlice = slice(&schedule, 0, visited: 0)
        #expect(noSlice == nil)
        let notWritten = schedule.written(now: 5)
        #expect(notWritten == nil)
        #expect(schedule.preparing == nil && schedule.running == nil)
    }
}
