import FlowClient
import FlowCore
import FlowWire
import FlowdTesting
import Logging
import Testing

/// A root stack whose stepper is the kind `shop`: every step pushes a view named after it, `item`'s with a `shop`
/// stepper of its own, and `secret` is adapted by the kind `shop`.
private final class ShopFlow: Flow {
    let root = Screen.stack("app")

    func adapt(step: Step) -> Adaptation {
        step.name == "secret" ? .asked(of: "shop") : .step(step)
    }

    func navigate(to step: Step, with navigator: Navigator) -> FlowContributors {
        let screen = Screen.view(PresentableID(step.name), type: step.name)
        navigator.push(screen, onto: root.id)
        guard step.name == "item" else { return .none }
        return .one(flowContributor: .contribute(withNextPresentable: screen, withNextStepper: RemoteStepper(kind: "shop")))
    }
}

private struct ShopApplication: FlowApplication {
    func makeRoot(session: String) -> FlowRoot { FlowRoot(flow: ShopFlow(), stepper: RemoteStepper(kind: "shop")) }
}

/// A synchronous logic that writes down every input it gets and answers each with a step.
private struct RecordingLogic: SynchronousStepperLogic {
    var inputs: [String] = []
    var kinds: [String] { ["shop"] }

    mutating func handle(_ input: StepperInput, now: ContinuousClock.Instant, logger: Logger) throws -> [StepEmission] {
        switch input {
        case .event(.attached(let attachment)):
            inputs.append("attached \(attachment.presentable)\(attachment.resumed ? " resumed" : "")")
            guard attachment.presentable == "app", !attachment.resumed else { return [] }
            return [StepEmission(Step("home"), for: attachment.id), StepEmission(Step("item"), for: attachment.id)]
        case .event(.action(let action, let attachment)):
            inputs.append("action \(action.name) on \(attachment.presentable)")
            if action.name == "fail" { throw LogicFailure() }
            return [StepEmission(Step("bought"), for: attachment.id)]
        case .event(.detached(let attachment, let reason)):
            inputs.append("detached \(attachment.presentable) \(reason)")
            return []
        case .tick:
            inputs.append("tick")
            return []
        }
    }

    mutating func adapt(_ question: AdaptMessage, now: ContinuousClock.Instant, logger: Logger) throws -> AdaptAnswer {
        inputs.append("adapt \(question.step.name)")
        return .replace(Step("later"))
    }
}

private struct LogicFailure: Error {}

/// A logic that keeps time: every 10 s it emits `tickN` on the root flow's attachment.
private struct TickingLogic: SynchronousStepperLogic {
    var ticks = 0
    var root: RemoteAttachment.ID?
    var kinds: [String] { ["shop"] }
    var tickInterval: Duration? { .seconds(10) }

    mutating func handle(_ input: StepperInput, now: ContinuousClock.Instant, logger: Logger) -> [StepEmission] {
        switch input {
        case .event(.attached(let attachment)) where attachment.presentable == "app":
            root = attachment.id
            return []
        case .tick:
            ticks += 1
            return root.map { [StepEmission(Step("tick\(ticks)"), for: $0)] } ?? []
        default:
            return []
        }
    }
}

/// FlowdTesting's `connectStepper(name:running:)`: a `SynchronousStepperLogic` run as `StepperService` runs it.
struct LogicStepperTests {
    @Test func theLogicGetsEachAttachActionDetachAndAdaptAndItsStepsAreEmitted() {
        let daemon = EmbeddedDaemon(application: ShopApplication())
        let shop = daemon.connectStepper(name: "shop", running: RecordingLogic())
        let presenter = daemon.connectPresenter()
        #expect(shop.logic.inputs == ["attached app", "attached item"])
        #expect(presenter.presentation.children(of: "app") == ["home", "item"])

        presenter.act("buy", on: "item")
        #expect(presenter.presentation.children(of: "app") == ["home", "item", "bought"])
        #expect(shop.peer.stepOutcomes == ["accepted", "accepted", "accepted"])

        #expect(shop.peer.emit(Step("secret"), attachment: 1)?.accepted == true)
        #expect(presenter.presentation.children(of: "app") == ["home", "item", "bought", "later"])

        for _ in 0..<3 { try? presenter.tapBack(in: "app") }
        #expect(
            shop.logic.inputs == [
                "attached app", "attached item", "action buy on item", "adapt secret", "detached item presentableDismissed",
            ])
        #expect(shop.errors.isEmpty)
    }

    @Test func ticksComeWhenTheTestGivesThemAndAThrownErrorEmitsNothing() {
        let daemon = EmbeddedDaemon(application: ShopApplication())
        let shop = daemon.connectStepper(name: "shop", running: RecordingLogic())
        let presenter = daemon.connectPresenter()
        daemon.advance(by: .seconds(1))
        #expect(shop.tick().isEmpty)
        #expect(shop.logic.inputs.last == "tick")

        presenter.act("fail", on: "item")
        #expect(shop.errors.count == 1)
        #expect(presenter.presentation.children(of: "app") == ["home", "item"])
    }

    @Test func aRestartedServiceIsAttachedAgainAsANewProcessIs() {
        let daemon = EmbeddedDaemon(application: ShopApplication())
        let shop = daemon.connectStepper(name: "shop", running: RecordingLogic())
        shop.restart(instance: "shop-2")
        // The daemon attaches both again; the service, which held none after its restart, hears of both.
        #expect(shop.logic.inputs.count == 4)
        #expect(shop.logic.inputs.prefix(3) == ["attached app", "attached item", "attached app resumed"])
        #expect(shop.peer.stepOutcomes == ["accepted", "accepted"])
    }

    /// `passTime` is time for the whole system: the peers heartbeat, so a minute leaves them connected, and the
    /// logic gets the ticks its `tickInterval` makes due, its steps going through as a live service's.
    @Test func passingTimeTicksTheLogicAtItsIntervalAndKeepsThePeersAlive() {
        let daemon = EmbeddedDaemon(application: ShopApplication())
        let shop = daemon.connectStepper(name: "shop", running: TickingLogic())
        let presenter = daemon.connectPresenter()
        daemon.passTime(.seconds(25))
        #expect(shop.logic.ticks == 2)
        #expect(presenter.presentation.children(of: "app") == ["tick1", "tick2"])
        daemon.passTime(.seconds(35))
        #expect(shop.logic.ticks == 6)
        #expect(shop.peer.stepOutcomes == Array(repeating: "accepted", count: 6))
        #expect(presenter.presentation.children(of: "app").count == 6)
    }

    /// `advance(by:)` moves the clock in one go: the logic still gets its ticks, but peers silent that long are dead.
    @Test func advancingTheClockTicksTheLogicButThePeersFallSilent() {
        let daemon = EmbeddedDaemon(application: ShopApplication())
        let shop = daemon.connectStepper(name: "shop", running: TickingLogic())
        daemon.advance(by: .seconds(10))
        #expect(shop.logic.ticks == 1)
        // Forgotten at the daemon's timer, the service's tick step is refused: it must say HELLO again.
        #expect(shop.peer.stepOutcomes.isEmpty)
        #expect(shop.peer.record.errors.map(\.code.rawValue) == ["notWelcome"])
    }

    /// A service that stays up while the daemon restarts without its state (another run) hears its attachments
    /// detached (`daemonRestarted`), then the new run's attached, as StepperClient reports it. (A daemon recovered
    /// from its journal is the same run: what the service holds stays held, with no event.)
    @Test func aNewDaemonRunDetachesWhatTheServiceHeldBeforeItAttachesItsOwn() throws {
        let daemon = EmbeddedDaemon(application: ShopApplication(), journaling: true)
        let shop = daemon.connectStepper(name: "shop", running: RecordingLogic())
        try daemon.restart()
        shop.peer.hello()
        #expect(shop.logic.inputs == ["attached app", "attached item"])
        try daemon.restart(journal: [], daemonID: "another")
        shop.peer.hello()
        #expect(
            shop.logic.inputs.prefix(4) == [
                "attached app", "attached item", "detached app daemonRestarted", "detached item daemonRestarted",
            ])
        #expect(shop.logic.inputs.dropFirst(4).first == "attached app")
    }
}
