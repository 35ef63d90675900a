import FlowCore
import FlowDaemon
import FlowWire
import FlowdTesting
import TestFlows
import Testing

/// docs/PROTOCOL.md §5: an attachment goes to the live process serving its kind that holds the fewest attachments
/// (ties: the name that sorts first, then the earliest connection), and stays with it while it lives.
struct SpreadAttachmentsTests {
    @Test func twoProcessesServingAKindShareItsAttachmentsToWithinOne() {
        var f = KioskFixture()
        let a = f.serving("a-movies")  // takes the default session's `home`
        let b = f.serving("b-movies")
        f.createSessions(40)
        #expect(a.attachments.count == 21)
        #expect(b.attachments.count == 20)
        #expect(f.daemon.core.holdingsMismatches == [])
    }

    @Test func tiesGoToTheNameThatSortsFirstWhateverTheOrderOfConnection() {
        var f = KioskFixture()
        let b = f.serving("b-movies")  // the default session's `home`: b is alone
        let a = f.serving("a-movies")
        #expect(b.attachments.map(\.session) == ["default"])
        f.createSessions(3)
        // a holds fewer, then they tie (a sorts first), then b holds fewer.
        #expect(a.attachments.map(\.session) == ["kiosk-1", "kiosk-2"])
        #expect(b.attachments.map(\.session) == ["default", "kiosk-3"])
    }

    @Test func aProcessThatJoinsGetsTheNextAttachmentsAndTakesNoneFromTheOthers() {
        var f = KioskFixture()
        let a = f.serving("a-movies")
        let b = f.serving("b-movies")
        f.createSessions(9)  // 10 with the default session's: 5 each
        let c = f.serving("c-movies")
        #expect(c.attachments.isEmpty, "no rebalancing of held attachments")
        #expect(c.attachesReceived == 0)
        f.createSessions(5)
        #expect(c.attachments.map(\.session) == (10...14).map { "kiosk-\($0)" })
        #expect(a.attachments.count == 5 && b.attachments.count == 5)
        f.createSessions(3)  // all three hold 5: a, b, c in name order
        #expect([a, b, c].map(\.attachments.last?.session) == ["kiosk-15", "kiosk-16", "kiosk-17"])
    }

    @Test func aLostProcessesAttachmentsSpreadOverTheOthers() {
        var f = KioskFixture()
        let a = f.serving("a-movies")
        let b = f.serving("b-movies")
        let c = f.serving("c-movies")
        f.createSessions(11)  // 12: 4 each
        #expect([a, b, c].map(\.attachments.count) == [4, 4, 4])
        c.bye()
        #expect(a.attachments.count == 6 && b.attachments.count == 6)
        #expect(f.daemon.core.holdingsMismatches == [])
    }

    @Test func aProcessThatReconnectsKeepsItsAttachments() {
        var f = KioskFixture()
        let a = f.serving("a-movies")
        f.createSessions(5)  // a alone: 6
        let b = f.serving("b-movies")
        a.restart(instance: "a-movies-2")
        #expect(a.attachments.count == 6, "§3: its HELLO again keeps what the connection held")
        #expect(b.attachments.isEmpty)
        f.createSessions(6)
        #expect(a.attachments.count == 6 && b.attachments.count == 6)
    }

    /// §5.1: the waiting attachments go out 256 at a time; each batch is spread over the processes live then.
    @Test func theBatchesOfWaitingAttachmentsAreSpread() {
        var f = KioskFixture()
        f.createSessions(1000)  // 1001 waiting, no process serves `home`
        let a = f.serving("a-movies")
        #expect(a.attachments.count == 256, "the first batch: a is alone")
        let b = f.serving("b-movies")
        #expect(b.attachments.count == 256, "b's HELLO offers the next batch, and b holds fewer")
        f.daemon.advance(by: .milliseconds(20))
        #expect(a.attachments.count == 384 && b.attachments.count == 384, "the third batch shared")
        f.daemon.advance(by: .milliseconds(20))
        #expect(a.attachments.count == 501 && b.attachments.count == 500)
        #expect(a.attachesReceived == 501 && b.attachesReceived == 500, "each ATTACH once")
        #expect(f.daemon.core.nextDeadline(now: f.daemon.clock.milliseconds) > f.daemon.clock.milliseconds + 20)
        #expect(f.daemon.core.holdingsMismatches == [])
    }
}
