import FlowClient
import FlowCore
import FlowdTesting
import TestFlows
import Testing

/// A presenter script walked against an embedded daemon (TestApplication's flows) with a fake presenter and a clock
/// the test moves: steps wait for the UI, are carried out in order, and the deadline ends an unfinished walk.
struct PresenterScriptWalkTests {
    @Test func aScriptWaitsForTheUIActsAndFinishes() async throws {
        let clock = ManualClock()
        let daemon = EmbeddedDaemon(application: TestApplication(), clock: clock)
        _ = daemon.connectStepper(name: "home-service", kinds: ["home"])
        let presenter = daemon.connectPresenter()
        let flowctl = daemon.connectOperator()
        var walk = PresenterScriptWalk(
            try PresenterScript(parsing: ["wait:home", "action:home:open", "wait:detail.5", "back:app", "gone:detail.5"]),
            timeout: .seconds(60), startingAt: clock.instant)

        #expect(walk.visibleLine(for: presenter.presentation) == "visible: app, home")
        #expect(walk.visibleLine(for: presenter.presentation) == nil)
        #expect(walk.next(in: presenter.presentation, at: clock.instant) == .perform(.wait("home")))
        guard case .perform(let action) = walk.next(in: presenter.presentation, at: clock.instant) else {
            Issue.record("the action is due at once")
            return
        }
        #expect(try await action.perform(on: presenter) == " (delivered 1)")
        // Nothing shows detail.5 yet: the walk waits, however often it is asked.
        #expect(walk.next(in: presenter.presentation, at: clock.instant) == .waiting)
        #expect(walk.next(in: presenter.presentation, at: clock.instant) == .waiting)

        _ = flowctl.deepLink(Step("openDetail", payload: 5))
        #expect(walk.visibleLine(for: presenter.presentation) == "visible: app, detail.5")
        #expect(walk.next(in: presenter.presentation, at: clock.instant) == .perform(.wait("detail.5")))
        #expect(walk.next(in: presenter.presentation, at: clock.instant) == .perform(.back("app")))
        #expect(try await PresenterScript.Step.back("app").perform(on: presenter) == "")
        #expect(walk.next(in: presenter.presentation, at: clock.instant) == .perform(.gone("detail.5")))
        #expect(walk.next(in: presenter.presentation, at: clock.instant) == .finished)
        #expect(walk.isFinished)
        // Finished stays finished past the deadline.
        clock.advance(by: .seconds(61))
        #expect(walk.next(in: presenter.presentation, at: clock.instant) == .finished)
    }

    @Test func aStepNeverDueEndsTheWalkAtTheDeadlineAndNotBefore() throws {
        let clock = ManualClock()
        let daemon = EmbeddedDaemon(application: TestApplication(), clock: clock)
        let presenter = daemon.connectPresenter()
        var walk = PresenterScriptWalk(
            try PresenterScript(parsing: ["wait:home", "wait:detail.9"]), timeout: .seconds(10),
            startingAt: clock.instant)
        #expect(walk.next(in: presenter.presentation, at: clock.instant) == .perform(.wait("home")))
        clock.advance(by: .milliseconds(9999))
        #expect(walk.next(in: presenter.presentation, at: clock.instant) == .waiting)
        clock.advance(by: .milliseconds(1))
        #expect(walk.next(in: presenter.presentation, at: clock.instant) == .timedOut)
        #expect(!walk.isFinished)
    }

    @Test func aScriptWithoutStepsHasNoDeadlineAndNeverFinishes() {
        let clock = ManualClock()
        var walk = PresenterScriptWalk(PresenterScript([]), timeout: .seconds(1), startingAt: clock.instant)
        #expect(walk.deadline == nil)
        clock.advance(by: .seconds(3600))
        #expect(walk.next(in: PresentationModel(), at: clock.instant) == .waiting)
    }

    @Test func aStepTheUIRefusesOrTheDaemonRefusesFailsWithStepFailed() async throws {
        let daemon = EmbeddedDaemon(application: TestApplication())
        let presenter = daemon.connectPresenter()
        // `app` holds home alone: there is nothing to pop.
        await #expect(throws: PresenterScriptError(.stepFailed, "")) {
            try await PresenterScript.Step.back("app").perform(on: presenter)
        }
        await #expect(throws: PresenterScriptError(.stepFailed, "")) {
            try await PresenterScript.Step.action("nowhere", "open", .null).perform(on: presenter)
        }
    }

    @Test func goneWaitsWhileAScreenIsCoveredAndIsDueOnceItIsOutOfTheUI() throws {
        let clock = ManualClock()
        let daemon = EmbeddedDaemon(application: TestApplication(), clock: clock)
        let presenter = daemon.connectPresenter()
        let flowctl = daemon.connectOperator()
        var covered = PresenterScriptWalk(
            try PresenterScript(parsing: ["gone:home"]), timeout: nil, startingAt: clock.instant)
        var modal = PresenterScriptWalk(
            try PresenterScript(parsing: ["gone:settings"]), timeout: nil, startingAt: clock.instant)

        _ = flowctl.deepLink(Step("openSettings"))
        #expect(presenter.presentation.contains("settings"))
        #expect(!presenter.presentation.isVisible("home"))
        #expect(covered.next(in: presenter.presentation, at: clock.instant) == .waiting)
        #expect(modal.next(in: presenter.presentation, at: clock.instant) == .waiting)

        try presenter.dismiss("settings")
        #expect(presenter.presentation.isVisible("home"))
        #expect(covered.next(in: presenter.presentation, at: clock.instant) == .waiting)
        #expect(modal.next(in: presenter.presentation, at: clock.instant) == .perform(.gone("settings")))
        #expect(modal.next(in: presenter.presentation, at: clock.instant) == .finished)
    }
}
