import Foundation
import Logging
import Testing

@testable import FlowDaemon
import FlowWire
import FlowdTesting
import TestFlows

extension KioskFixture {
    init(graceMs: Int) {
        var configuration = DaemonConfiguration()
        configuration.restartGraceMs = graceMs
        self.init(configuration: configuration)
    }

    /// `a-login` and `b-login` serve `home`, hold 5 attachments each, then flowd restarts and a new `a-login` (a
    /// process of the same name) says `HELLO`.
    mutating func twoProcessesThenARestart() throws -> (a: FakeStepper, b: FakeStepper) {
        let a = serving("a-login")
        let b = serving("b-login")
        createSessions(9)  // 10 with the default session's: 5 each
        try restart()
        a.restart(instance: "a-2")
        return (a, b)
    }

    /// flowd restarts; `a` comes back first and gets nothing while `b` is awaited, then `b`; returns what each holds
    /// then (nothing for `a` if `a` got some before `b` was back).
    func restartSharing(_ a: FakeStepper, _ b: FakeStepper) throws -> [Int] {
        try restart()
        a.restart(instance: "\(a.name)-2")
        guard a.attachments.isEmpty else { return [] }
        b.restart(instance: "\(b.name)-2")
        return [a.attachments.count, b.attachments.count]
    }
}

/// docs/PROTOCOL.md §5.1: after a restart, the restored attachments of a kind that two or more processes served when
/// the last run ended wait until every one of them is back, or `daemon.restart_grace_ms`, then go out spread over the
/// processes back.
struct RestartGraceTests {
    @Test func theFirstProcessBackWaitsForTheOthersOfTheLastRunThenTheyShare() throws {
        var f = KioskFixture(graceMs: 3000)
        let (a, b) = try f.twoProcessesThenARestart()
        #expect(a.attachments.isEmpty, "b served `home` in the last run and is not back")
        b.restart(instance: "b-2")
        #expect(a.attachments.count == 5 && b.attachments.count == 5)
        #expect(Set(a.attachments.map(\.session)).isDisjoint(with: b.attachments.map(\.session)))
        #expect(f.daemon.core.holdingsMismatches == [])
    }

    @Test func healthShowsTheGraceInProgressAndNothingOnceItIsOver() throws {
        var f = KioskFixture(graceMs: 1000)
        let (_, b) = try f.twoProcessesThenARestart()
        f.daemon.passTime(.milliseconds(300))
        let now = f.daemon.clock.milliseconds
        #expect(
            f.daemon.core.healthReport(now: now).restartGrace
                == HealthReport.RestartGrace(awaited: ["home": ["b-login"]], msLeft: 700))
        b.restart(instance: "b-2")
        #expect(f.daemon.core.healthReport(now: now).restartGrace == nil, "every process is back: none runs")
    }

    @Test func withoutTheGraceTheFirstProcessBackTakesTheFirstBatchAlone() throws {
        var f = KioskFixture(graceMs: 0)
        let (a, b) = try f.twoProcessesThenARestart()
        b.restart(instance: "b-2")
        #expect(a.attachments.count == 10 && b.attachments.isEmpty, "restart_grace_ms 0: offered at once")
    }

    @Test func aSingleProcessGetsItsAttachmentsAtOnce() throws {
        var f = KioskFixture(graceMs: 3000)
        let a = f.serving("a-login")
        f.createSessions(4)
        try f.restart()
        a.restart(instance: "a-2")
        #expect(a.attachments.count == 5, "the only process of the last run is back: no wait")
    }

    @Test func aKindOneProcessServedIsNotHeldWhateverTheNameOfTheOneBack() throws {
        var f = KioskFixture(graceMs: 3000)
        _ = f.serving("login-pid-41")
        f.createSessions(4)
        try f.restart()
        let renamed = f.serving("login-pid-97")
        #expect(renamed.attachments.count == 5, "one name in the last run: nothing to share, no wait")
    }

    @Test func aPlannedRestartWhereTheServicesSaidByeFirstIsSharedToo() throws {
        var f = KioskFixture(graceMs: 3000)
        let a = f.serving("a-login")
        let b = f.serving("b-login")
        f.createSessions(9)
        a.bye()
        b.bye()  // as systemd stops them before flowd (PartOf=)
        #expect(f.daemon.core.stepperNamesToKeep == ["home": ["a-login", "b-login"]], "left: kept")
        #expect(try f.restartSharing(a, b) == [5, 5])
    }

    @Test func aNameThatLeftIsKeptUntilAnotherProcessOfItsKindJoins() throws {
        let f = KioskFixture(graceMs: 3000)
        let a = f.serving("a-login")
        _ = f.serving("b-login")
        let c = f.serving("c-login")
        let d = f.serving("d-login")
        c.bye()
        f.daemon.handle(.peerUnreachable(d.address))
        #expect(f.daemon.core.stepperNamesToKeep == ["home": ["a-login", "b-login", "c-login", "d-login"]])
        a.restart(instance: "a-2")  // a later join of the kind: those that left before it are not awaited
        #expect(f.daemon.core.stepperNamesToKeep == ["home": ["a-login", "b-login"]])
        let other = f.daemon.connectStepper(name: "other", kinds: ["login.form"])
        other.bye()
        _ = f.serving("e-login")
        #expect(
            f.daemon.core.stepperNamesToKeep == ["home": ["a-login", "b-login", "e-login"], "login.form": ["other"]],
            "a join frees only the kinds it serves")
    }

    @Test func aScaleDownCostsOneGraceAtTheNextRestart() throws {
        var f = KioskFixture(graceMs: 1000)
        let a = f.serving("a-login")
        let b = f.serving("b-login")
        let c = f.serving("c-login")
        f.createSessions(11)
        c.bye()  // for good: nothing else serving `home` joins before the restart
        try f.restart()
        a.restart(instance: "a-2")
        b.restart(instance: "b-2")
        #expect(a.attachments.isEmpty && b.attachments.isEmpty, "c-login is awaited")
        f.daemon.passTime(.milliseconds(1000))
        #expect(a.attachments.count == 6 && b.attachments.count == 6, "the grace is over: a and b share")
        #expect(f.daemon.core.stepperNamesToKeep == ["home": ["a-login", "b-login"]], "c-login is not kept")
        #expect(try f.restartSharing(a, b) == [6, 6], "the restart after that: no wait past b's HELLO")
    }

    @Test func aServiceReplacedUnderANewNameIsNotAwaited() throws {
        var f = KioskFixture(graceMs: 3000)
        let a = f.serving("a-login")
        let old = f.serving("b-login-1")
        f.createSessions(3)
        old.bye()
        let b = f.serving("b-login-2")
        #expect(try f.restartSharing(a, b) == [2, 2], "b-login-1 is not awaited")
    }

    @Test func aProcessThatDoesNotComeBackHoldsNothingPastTheGraceAndTakesNothingLater() throws {
        var f = KioskFixture(graceMs: 1000)
        let (a, b) = try f.twoProcessesThenARestart()
        #expect(f.daemon.core.stepperNamesToKeep == ["home": ["a-login", "b-login"]], "b still awaited")
        f.daemon.passTime(.milliseconds(999))
        #expect(a.attachments.isEmpty)
        f.daemon.passTime(.milliseconds(1))
        #expect(a.attachments.count == 10, "the grace is over: what waits goes to those back")
        #expect(f.daemon.core.stepperNamesToKeep == ["home": ["a-login"]], "b is not awaited at the next start")
        b.restart(instance: "b-2")
        #expect(b.attachments.isEmpty, "held attachments never move")
        f.createSessions(2)
        #expect(a.attachments.count == 10 && b.attachments.count == 2)
    }

    @Test func aNewAttachmentDuringTheGraceGoesAtOnceToAProcessBack() throws {
        var f = KioskFixture(graceMs: 3000)
        let (a, b) = try f.twoProcessesThenARestart()
        f.createSessions(1)
        #expect(a.attachments.map(\.session) == ["kiosk-10"], "only the restored ones wait")
        b.restart(instance: "b-2")
        #expect(a.attachments.count == 5 + 1 && b.attachments.count == 5, "restored: b first, holding fewer")
        #expect(f.daemon.core.holdingsMismatches == [])
    }

    @Test func aProcessThatJoinsAfterTheGraceTakesNone() throws {
        var f = KioskFixture(graceMs: 3000)
        let (a, b) = try f.twoProcessesThenARestart()
        b.restart(instance: "b-2")
        let c = f.serving("c-login")
        #expect(c.attachments.isEmpty && a.attachments.count == 5 && b.attachments.count == 5)
        #expect(f.daemon.core.stepperNamesToKeep == ["home": ["a-login", "b-login", "c-login"]])
    }

    @Test func theNamesFileIsReadBackAndABadOneHoldsNothing() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("regrace-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var file = StepperNamesFile(
            stateDirectory: folder.path, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        #expect(file.read() == [:], "no file: a fresh state, or one an older flowd wrote")
        file.write(["home": ["a-login", "b-login"], "login.form": ["a-login"]])
        #expect(file.read() == ["home": ["a-login", "b-login"], "login.form": ["a-login"]])
        try Data("{\"kinds\": 3}".utf8).write(to: URL(fileURLWithPath: file.path))
        #expect(file.read() == [:])
    }

    @Test func theGraceIsARestartsOnly() {
        var f = KioskFixture(graceMs: 3000)
        _ = f.serving("a-login")
        f.createSessions(1)
        #expect(f.daemon.core.restartGrace.endsAt == nil, "a fresh state restored nothing to hold")
        var grace = RestartGrace(expected: ["home": ["a-login", "b-login"]], now: 100, graceMs: 50)
        #expect(grace.holds("home") && !grace.holds("other") && grace.endsAt == 150)
        #expect(grace.joined("a-login", serving: ["home"]) == false)
        #expect(grace.end(ifDueAt: 149) == nil)
        #expect(grace.end(ifDueAt: 150) == ["home": ["b-login"]])
        #expect(!grace.holds("home") && grace.endsAt == nil)
        #expect(RestartGrace(expected: ["home": ["a", "b"]], now: 0, graceMs: 0).endsAt == nil)
        #expect(RestartGrace(expected: ["home": ["a"], "other": []], now: 0, graceMs: 10).endsAt == nil, "one name")
        let mixed = RestartGrace(expected: ["home": ["a", "b"], "other": ["c"]], now: 0, graceMs: 10)
        #expect(mixed.holds("home") && !mixed.holds("other"))
    }
}
