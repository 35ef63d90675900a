import FlowCore
import Foundation
import Synchronization

// Helpers for the scenario, rule and decision tests (`Tests/FlowCoreTests/Scenarios`): scripted flows and steppers,
// and a synchronous driver over `FlowCoordinatorStateMachine` that does what `FlowCoordinator` does (subscribe on
// attach, feed later emissions back as inputs, FIFO) without any concurrency.

/// A flow scripted per step name: `navigate(to:with:)` runs the route registered for the step's name (`.none` when
/// there is none); `adapt(step:)` runs ``adaptation`` (the step itself by default). Records every call in ``calls``.
final class ScenarioFlow: Flow {
    typealias Route = (Step, Navigator) -> FlowContributors

    let root: Screen
    let flowName: String
    /// What `adapt(step:)` returns; `nil` adapts every step to itself.
    var adaptation: ((Step) -> Adaptation)?
    /// `adapt x` and `navigate x`, in call order.
    private(set) var calls: [String] = []
    private var routes: [String: Route] = [:]

    /// A flow named `name` whose root is the navigation stack `<name>.root` (or `root`).
    init(_ name: String, root: Screen? = nil) {
        self.flowName = name
        self.root = root ?? .stack(PresentableID("\(name).root"))
    }

    /// Registers what to do for the step named `stepName`.
    @discardableResult
    func on(_ stepName: String, _ route: @escaping Route) -> Self {
        routes[stepName] = route
        return self
    }

    /// Registers a route that ignores the navigator.
    @discardableResult
    func on(_ stepName: String, _ contributors: @escaping () -> FlowContributors) -> Self {
        on(stepName) { _, _ in contributors() }
    }

    func adapt(step: Step) -> Adaptation {
        calls.append("adapt \(step)")
        return adaptation?(step) ?? .step(step)
    }

    func navigate(to step: Step, with navigator: Navigator) -> FlowContributors {
        calls.append("navigate \(step)")
        return routes[step.name]?(step, navigator) ?? .none
    }
}

/// A stepper with a name, an optional initial step and steps it emits synchronously in `readyToEmitSteps()`.
final class ScenarioStepper: Stepper, CustomStringConvertible {
    let steps = StepRelay()
    let name: String
    let initialStep: Step
    let stepsWhenReady: [Step]
    private let readyCalls = Mutex(0)

    init(_ name: String, initial: String? = nil, whenReady: [String] = []) {
        self.name = name
        self.initialStep = initial.map { Step($0) } ?? .none
        self.stepsWhenReady = whenReady.map { Step($0) }
    }

    func readyToEmitSteps() {
        readyCalls.withLock { $0 += 1 }
        for step in stepsWhenReady { steps.accept(step) }
    }

    /// How many times `readyToEmitSteps()` was called.
    var readyToEmitStepsCount: Int { readyCalls.withLock { $0 } }

    var description: String { name }
}

/// A screen that is its own stepper, for `.contribute(withNext:)`.
final class ScenarioScreenModel: Presentable, Stepper, CustomStringConvertible {
    let steps = StepRelay()
    let presentableID: PresentableID
    let initialStep: Step

    init(_ id: PresentableID, initial: String? = nil) {
        self.presentableID = id
        self.initialStep = initial.map { Step($0) } ?? .none
    }

    var description: String { "model(\(presentableID))" }
}

/// Where steppers' emissions wait for the driver: the actor's inbox, without the actor.
final class ScenarioInbox: Sendable {
    private let items = Mutex<[(AttachmentID, Step)]>([])

    func append(_ attachment: AttachmentID, _ step: Step) { items.withLock { $0.append((attachment, step)) } }

    func popFirst() -> (AttachmentID, Step)? {
        items.withLock { $0.isEmpty ? nil : $0.removeFirst() }
    }
}

/// The relay subscriptions of a ``ScenarioHarness``, made in the middle of a machine call.
final class ScenarioSubscriptions: Sendable {
    let entries = Mutex<[AttachmentID: (relay: StepRelay, subscription: StepRelay.Subscription)]>([:])
}

/// Steps received by a listener of a relay, in order.
final class ScenarioStepLog: Sendable {
    private let received = Mutex<[Step]>([])

    func append(_ step: Step) { received.withLock { $0.append(step) } }

    var steps: [Step] { received.withLock { $0 } }
}

/// The error a scripted asynchronous adaptation throws.
struct ScenarioAdaptError: Error {}

/// A synchronous, deterministic driver over ``FlowCoordinatorStateMachine``.
///
/// Like `FlowCoordinator`: it subscribes to a stepper's relay as the machine attaches it (the machine calls
/// `readyToEmitSteps()` and takes what steppers emit synchronously during its calls), and every later emission becomes
/// a `.stepperEmitted` input, handled one at a time in emission order once the current input has run to completion.
/// Asynchronous adaptations are not run: they wait in ``pendingAdapts`` until a test completes them.
final class ScenarioHarness {
    private(set) var machine = FlowCoordinatorStateMachine()
    /// Every action's description, in order, since the last ``takeLog()``.
    private(set) var log: [String] = []
    /// The reason of every `stepDropped` action since the harness was made.
    private(set) var droppedReasons: [StepDropReason] = []
    /// The asynchronous adaptations asked for and not completed yet, in request order.
    private(set) var pendingAdapts: [AdaptRequest] = []
    private var attachmentByStepper: [ObjectIdentifier: AttachmentID] = [:]
    private let inbox = ScenarioInbox()
    /// Filled by the machine's attachment observer, in the middle of a call.
    private let listened = ScenarioSubscriptions()

    init() {
        let inbox = self.inbox
        let listened = self.listened
        machine.attachmentObserver = { attachment in
            let id = attachment.id
            let subscription = attachment.stepper.steps.subscribe { step in inbox.append(id, step) }
            listened.entries.withLock { $0[id] = (attachment.stepper.steps, subscription) }
        }
    }

    /// Keeps the UI model the commands build, as the daemon does, so that the machine hears at once what a command
    /// takes out of the UI (`docs/SEMANTICS.md` D18). Call it before ``coordinate(_:with:allowStepWhenDismissed:)``.
    func keepUIModel() -> ScenarioUIModel {
        let model = ScenarioUIModel()
        machine.commandObserver = { command in model.apply(command) }
        machine.uiContains = { id in model.ui.contains(id) }
        return model
    }

    // MARK: Inputs

    func coordinate(
        _ flow: any Flow,
        with stepper: any Stepper = DefaultStepper(),
        allowStepWhenDismissed: Bool = false
    ) throws(FlowError) {
        perform(try machine.coordinate(flow: flow, with: stepper, allowStepWhenDismissed: allowStepWhenDismissed))
        pump()
    }

    /// Handles an input, then the emissions it caused.
    func handle(_ input: CoordinatorInput) {
        perform(machine.handle(input))
        pump()
    }

    /// The stepper emits `step` (through its relay: a detached stepper is not heard).
    func emit(_ step: Step, from stepper: any Stepper) {
        stepper.steps.accept(step)
        pump()
    }

    func emit(_ name: String, from stepper: any Stepper) { emit(Step(name), from: stepper) }

    func show(_ id: PresentableID) { handle(.visibilityChanged(id, visible: true)) }
    func hide(_ id: PresentableID) { handle(.visibilityChanged(id, visible: false)) }
    func dismiss(_ id: PresentableID) { handle(.dismissed(id)) }
    func deepLink(_ name: String) { handle(.deepLink(Step(name))) }

    /// Runs the oldest pending adaptation of the step named `stepName` as a driver would and feeds its result
    /// (`nil` if it threw).
    func runAdapt(_ stepName: String) async {
        guard let request = pendingAdapts.first(where: { $0.step.name == stepName }) else { return }
        let step = try? await request.operation.run()
        handle(.adaptCompleted(request.id, step))
    }

    // MARK: Queries

    /// The attachment a stepper was last attached as.
    func attachment(of stepper: any Stepper) -> AttachmentID? { attachmentByStepper[ObjectIdentifier(stepper)] }

    /// Whether the driver still listens to the stepper.
    func isListening(to stepper: any Stepper) -> Bool {
        attachment(of: stepper).map { id in listened.entries.withLock { $0[id] != nil } } ?? false
    }

    /// Returns the log and starts a new one.
    func takeLog() -> [String] {
        defer { log = [] }
        return log
    }

    // MARK: Driving

    private func perform(_ actions: [CoordinatorAction]) {
        for action in actions {
            log.append(action.description)
            switch action {
            case .attach(let attachment):
                attachmentByStepper[ObjectIdentifier(attachment.stepper)] = attachment.id
            case .detach(let id, _):
                if let entry = listened.entries.withLock({ $0.removeValue(forKey: id) }) {
                    entry.relay.cancel(entry.subscription)
                }
            case .runAdapt(let request):
                pendingAdapts.append(request)
            case .stepDropped(let drop):
                droppedReasons.append(drop.reason)
            default:
                break
            }
        }
        pendingAdapts.removeAll { !machine.pendingAdaptRequests.contains($0.id) }
    }

    /// Handles the steps steppers emitted since the last input, one at a time, in emission order.
    func pump() {
        while let (attachment, step) = inbox.popFirst() {
            perform(machine.handle(.stepperEmitted(attachment, step)))
        }
    }
}

// MARK: - Log projections

extension Array where Element == String {
    /// Only the `did navigate` lines, shortened to `Flow: step`.
    var navigations: [String] {
        compactMap { line in
            guard line.hasPrefix("did navigate flow=") else { return nil }
            return line.dropFirst("did navigate flow=".count).replacingOccurrences(of: " step=", with: ": ")
        }
    }

    /// Only the lines starting with one of `prefixes`.
    func only(_ prefixes: String...) -> [String] {
        filter { line in prefixes.contains { line.hasPrefix($0) } }
    }
}

/// Shorthands for contributors in scripts.
enum Contribute {
    /// A screen (not a flow) with a stepper.
    static func screen(
        _ id: PresentableID,
        _ stepper: any Stepper,
        notPresented: Bool = false,
        dismissed: Bool = false
    ) -> FlowContributor {
        .contribute(
            withNextPresentable: Screen.view(id, type: "view"), withNextStepper: stepper,
            allowStepWhenNotPresented: notPresented, allowStepWhenDismissed: dismissed
        )
    }

    /// A child flow with its flow stepper.
    static func flow(_ flow: any Flow, _ stepper: any Stepper, dismissed: Bool = false) -> FlowContributor {
        .contribute(withNextPresentable: flow, withNextStepper: stepper, allowStepWhenDismissed: dismissed)
    }
}

/// The UI model a ``ScenarioHarness`` keeps (``ScenarioHarness/keepUIModel()``): a box, filled during the machine's
/// calls.
final class ScenarioUIModel {
    private(set) var ui = PresentationModel()
    /// The visibility reports of the commands applied since the last ``takeVisibilityReports()``: what a presenter
    /// showing this UI would report after the call.
    private var visibilityReports: [CoordinatorInput] = []

    /// Applies a command; returns what it took out of the UI.
    func apply(_ command: NavigationCommand) -> [PresentableID] {
        ((try? ui.apply(command)) ?? []).compactMap { report in
            if case .dismissed(let id) = report { return id }
            visibilityReports.append(report)
            return nil
        }
    }

    /// The visibility reports gathered since the last call, in order.
    func takeVisibilityReports() -> [CoordinatorInput] {
        defer { visibilityReports = [] }
        return visibilityReports
    }
}
