import FlowCore
import FlowDaemon
import FlowWire
import FlowdTesting
import Testing

/// A root flow whose `adapt` of `about` is asked of the stepper kind `guard`; its own stepper is the kind `home`.
private final class GuardedFlow: Flow {
    let root = Screen.stack("app")

    func adapt(step: Step) -> Adaptation {
        step.name == "about" ? .asked(of: "guard") : .step(step)
    }

    func navigate(to step: Step, with navigator: Navigator) -> FlowContributors {
        switch step.name {
        case "about", "denied", "home":
            navigator.push(.view(PresentableID(step.name), type: step.name), onto: root.id)
        default:
            break
        }
        return .none
    }
}

private struct GuardedApplication: FlowApplication {
    func makeRoot(session: String) -> FlowRoot {
        FlowRoot(flow: GuardedFlow(), stepper: RemoteStepper(kind: "home"))
    }

    var stepNames: Set<String>? { ["about", "denied", "home"] }
}

/// A daemon running ``GuardedApplication`` whose adaptations wait 500 ms (less than a peer's liveness window, so the
/// fake peers stay alive while the clock moves), with the stepper process `home` (the root flow's stepper).
private struct Fixture {
    let daemon: EmbeddedDaemon
    let home: FakeStepper

    init(journaling: Bool = false) {
        var configuration = DaemonConfiguration()
        configuration.adaptTimeoutMs = 500
        daemon = EmbeddedDaemon(application: GuardedApplication(), configuration: configuration, journaling: journaling)
        home = daemon.connectStepper(name: "home", kinds: ["home"])
    }

    /// The root flow's stepper emits `about`.
    @discardableResult
    func askAbout() -> StepVerdict? { home.emit(Step("about"), attachment: 1) }

    var screens: [String] { daemon.ui()?.presentables.map(\.rawValue).sorted() ?? [] }
    var drops: [String] { daemon.events.filter { $0.event == "drop" }.map { "\($0.step.name) \($0.reason ?? "")" } }
    var counters: DaemonCounters { daemon.core.counters }
}

/// docs/PROTOCOL.md §5.6: a flow's `adapt` asked of a stepper kind (`ADAPT`, `ADAPTED`), on the daemon's clock.
struct RemoteAdaptTests {
    /// §3, §5.6: the process asked is the one whose `STEP` raised the question; its `ADAPT` comes before that
    /// `STEP`'s `OK`, so a client matches replies by `req` rather than taking the next message as the reply.
    @Test func theAdaptAStepRaisesComesBeforeThatStepsOK() {
        let daemon = EmbeddedDaemon(application: GuardedApplication(), configuration: DaemonConfiguration())
        let both = daemon.newPeerAddress()
        _ = daemon.receive(
            .hello(
                Hello(
                    req: 1, role: .stepper, name: "both", instance: "run-both", heartbeatMs: 1000,
                    serves: ["home", "guard"], adapts: true)),
            from: both)
        let outcome = daemon.receive(
            .step(StepMessage(req: 7, session: "default", attachment: 1, step: Step("about"))), from: both)
        let toIt = outcome.sent.filter { $0.peer == both }.map(\.message)
        #expect(toIt.count == 2, "\(toIt)")
        guard toIt.count == 2 else { return }
        if case .adapt(let question) = toIt[0] { #expect(question.step == Step("about")) } else {
            Issue.record("first: \(toIt[0])")
        }
        if case .ok(let reply) = toIt[1] { #expect(reply.req == 7) } else { Issue.record("second: \(toIt[1])") }
    }

    @Test func allowNavigatesToTheStepAsked() throws {
        let f = Fixture()
        let guardian = f.daemon.connectStepper(name: "guard", kinds: ["guard"]) { _ in [] } answerAdapt: { _ in .allow }
        #expect(f.askAbout()?.accepted == true)
        let question = try #require(guardian.adaptsReceived.first)
        #expect(
            question
                == AdaptMessage(
                    session: "default", request: 1, kind: "guard", flow: "GuardedFlow", coordinator: 1,
                    step: Step("about")))
        #expect(f.screens == ["about", "app"])
        #expect(f.counters.adapts == ["allow": 1])
    }

    @Test func replaceNavigatesToTheReplacementAndRefuseDropsTheStep() {
        let f = Fixture()
        var answers: [AdaptAnswer] = [.replace(Step("denied")), .refuse]
        _ = f.daemon.connectStepper(name: "guard", kinds: ["guard"]) { _ in [] } answerAdapt: { _ in
            answers.removeFirst()
        }
        f.askAbout()
        #expect(f.screens == ["app", "denied"])
        #expect(f.daemon.events.filter { $0.event == "did" }.map(\.step.name) == ["denied"])
        f.askAbout()
        #expect(f.screens == ["app", "denied"])
        #expect(f.drops == ["about adaptedToNone"])
        #expect(f.counters.adapts == ["replace": 1, "refuse": 1])
    }

    @Test func anUnansweredQuestionFailsAtItsDeadline() {
        let f = Fixture()
        let guardian = f.daemon.connectStepper(name: "guard", kinds: ["guard"]) { _ in [] } answerAdapt: { _ in nil }
        f.askAbout()
        #expect(guardian.adaptsReceived.count == 1)
        #expect(f.daemon.core.nextDeadline(now: f.daemon.clock.milliseconds) == f.daemon.clock.milliseconds + 500)
        f.daemon.advance(by: .milliseconds(499))
        #expect(f.drops == [])
        f.daemon.advance(by: .milliseconds(1))
        #expect(f.drops == ["about adaptFailed"])
        #expect(f.counters.adapts == ["timedOut": 1])
        // Answered too late: the question is gone.
        guardian.answer(.allow, request: 1)
        #expect(f.screens == ["app"])
        #expect(f.counters.adaptAnswersDropped == ["unknownRequest": 1])
    }

    @Test func aQuestionWaitsForAProcessThatAnswersAndFailsWhenNoneComes() {
        let f = Fixture()
        // A process serving the kind that does not answer ADAPT (an older client) is not asked.
        let older = f.daemon.connectStepper(name: "older", kinds: ["guard"])
        f.askAbout()
        #expect(older.adaptsReceived == [])
        f.daemon.advance(by: .milliseconds(200))
        let guardian = f.daemon.connectStepper(name: "guard", kinds: ["guard"]) { _ in [] } answerAdapt: { _ in .allow }
        #expect(guardian.adaptsReceived.map(\.request) == [1])
        #expect(f.screens == ["about", "app"])
        // With no process that answers, the next one fails at its deadline.
        guardian.bye()
        f.askAbout()
        f.daemon.advance(by: .milliseconds(500))
        #expect(f.drops == ["about adaptFailed"])
    }

    @Test func aQuestionGoesToAnotherProcessWhenTheOneAskedLeaves() {
        let f = Fixture()
        let first = f.daemon.connectStepper(name: "a-guard", kinds: ["guard"]) { _ in [] } answerAdapt: { _ in nil }
        let second = f.daemon.connectStepper(name: "b-guard", kinds: ["guard"]) { _ in [] } answerAdapt: { _ in
            .allow
        }
        f.askAbout()
        #expect(first.adaptsReceived.count == 1 && second.adaptsReceived.isEmpty)
        first.bye()
        #expect(second.adaptsReceived.map(\.request) == [1])
        #expect(f.screens == ["about", "app"])
        // The process that left answering after all (a late message) changes nothing.
        #expect(f.counters.adapts == ["allow": 1])
    }

    @Test func badAnswersAreCountedAndDroppedAndTheQuestionStillCounts() {
        let f = Fixture()
        let guardian = f.daemon.connectStepper(name: "guard", kinds: ["guard"]) { _ in [] } answerAdapt: { _ in nil }
        let other = f.daemon.connectStepper(name: "other", kinds: ["guard"]) { _ in [] } answerAdapt: { _ in nil }
        f.askAbout()
        guardian.answer(.allow, request: 99)
        guardian.answer(.allow, request: 1, session: "nowhere")
        other.answer(.allow, request: 1)
        #expect(f.counters.adaptAnswersDropped == ["unknownRequest": 3])
        #expect(f.screens == ["app"] && f.drops == [])
        guardian.answer(.allow, request: 1)
        #expect(f.screens == ["about", "app"])
        // A replacement the application does not know fails the adaptation at once.
        f.askAbout()
        guardian.answer(.replace(Step("nonsense")), request: 2)
        #expect(f.counters.adaptAnswersDropped == ["unknownRequest": 3, "unknownStep": 1])
        #expect(f.drops == ["about adaptFailed"])
        // Each question has one outcome: the dropped answers to the first counted none, the bad replacement one.
        #expect(f.counters.adapts == ["allow": 1, "badReplacement": 1])
    }

    @Test func aPendingQuestionIsAskedAgainAfterARestartAndAnAnsweredOneIsNot() throws {
        let f = Fixture(journaling: true)
        var answering = false
        let guardian = f.daemon.connectStepper(name: "guard", kinds: ["guard"]) { _ in [] } answerAdapt: { _ in
            answering ? .allow : nil
        }
        f.askAbout()
        #expect(guardian.adaptsReceived.count == 1)
        try f.daemon.restart()
        #expect(f.daemon.core.tree(of: "default") != nil)
        f.home.hello()
        answering = true
        guardian.hello()
        #expect(guardian.adaptsReceived.map(\.request) == [1, 1])
        #expect(f.screens == ["about", "app"])
        // The answer was journaled: another restart asks nothing again.
        try f.daemon.restart(daemonID: "restarted-again")
        guardian.hello()
        #expect(guardian.adaptsReceived.count == 2)
        #expect(f.daemon.ui()?.presentables.map(\.rawValue).sorted() == ["about", "app"])
    }

    @Test func aRefusalAndATimeoutAreJournaledAndStayDropsAfterARestart() throws {
        let f = Fixture(journaling: true)
        let guardian = f.daemon.connectStepper(name: "guard", kinds: ["guard"]) { _ in [] } answerAdapt: { _ in nil }
        f.askAbout()
        guardian.answer(.refuse, request: 1)
        f.askAbout()
        f.daemon.advance(by: .milliseconds(500))
        #expect(f.drops == ["about adaptedToNone", "about adaptFailed"])
        try f.daemon.restart()
        f.home.hello()
        guardian.hello()
        #expect(guardian.adaptsReceived.map(\.request) == [1, 2])
        #expect(f.screens == ["app"])
    }

    /// Several processes answering a kind: each question goes to the one with the fewest questions open (ties: the
    /// name that sorts first), so that they share the questions; one answered is no longer counted.
    @Test func questionsAreSpreadOverTheProcessesAnsweringTheKind() {
        let f = Fixture()
        let b = f.daemon.connectStepper(name: "b-guard", kinds: ["guard"]) { _ in [] } answerAdapt: { _ in nil }
        let a = f.daemon.connectStepper(name: "a-guard", kinds: ["guard"]) { _ in [] } answerAdapt: { _ in nil }
        for _ in 0..<5 { f.askAbout() }
        #expect(a.adaptsReceived.map(\.request) == [1, 3, 5])
        #expect(b.adaptsReceived.map(\.request) == [2, 4])
        a.answer(.allow, request: 1)
        a.answer(.refuse, request: 3)
        f.askAbout()  // a has one open, b two
        #expect(a.adaptsReceived.map(\.request) == [1, 3, 5, 6])
        // b leaving: its two go to a, the only one left.
        b.bye()
        #expect(a.adaptsReceived.map(\.request) == [1, 3, 5, 6, 2, 4])
    }
}
