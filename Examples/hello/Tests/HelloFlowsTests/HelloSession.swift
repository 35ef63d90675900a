import FlowCore
import HelloFlows
import Synchronization

/// One session of ``HelloApplication`` in-process, as the daemon and a presenter run it, without either: the
/// coordinator's state machine, a ``PresentationModel`` playing the presenter (its visibility reports fed back), and
/// the steps of the session's steppers handled in the order they come. Nothing runs concurrently: every call
/// returns when nothing is left to handle.
///
/// Not `Sendable`: it lives in one test.
final class HelloSession {
    private var machine = FlowCoordinatorStateMachine()
    /// What the presenter shows.
    private(set) var model = PresentationModel()
    /// The did-navigate events so far, as `flow=HelloFlow step=helloIsRequired`.
    private(set) var navigations: [String] = []
    private var attachments: [StepperAttachment] = []
    private let inbox = Inbox()

    init() throws {
        let root = HelloApplication().makeRoot(session: "test")
        perform(
            try machine.coordinate(
                flow: root.flow, with: root.stepper, allowStepWhenDismissed: root.allowStepWhenDismissed
            )
        )
    }

    /// The kinds of the remote steppers attached to `presentable` (the stepper processes that would serve it).
    func remoteKinds(on presentable: PresentableID) -> [String] {
        attachments.filter { $0.presentable == presentable }.compactMap { ($0.stepper as? RemoteStepper)?.kind }
    }

    /// A stepper process serving `kind` emits `step` for its attachment on `presentable`.
    func remote(_ kind: String, on presentable: PresentableID, emits step: Step) {
        for attachment in attachments where attachment.presentable == presentable {
            if (attachment.stepper as? RemoteStepper)?.kind == kind { handle(.stepperEmitted(attachment.id, step)) }
        }
    }

    /// A person does `action` on `presentable` (a presenter's `USER_ACTION`).
    func act(_ action: String, on presentable: PresentableID) {
        for attachment in attachments where attachment.presentable == presentable {
            (attachment.stepper as? any ActionHandlingStepper)?.handle(action: Step(action))
        }
        drain()
    }

    /// A person taps the back button of `stack`.
    func tapBack(in stack: PresentableID) throws {
        for report in try model.userTapsBack(in: stack) { handle(report) }
    }

    private func handle(_ input: CoordinatorInput) {
        perform(machine.handle(input))
    }

    private func perform(_ actions: [CoordinatorAction]) {
        var attached: [any Stepper] = []
        var commands: [NavigationCommand] = []
        for action in actions {
            switch action {
            case .didNavigate(let event):
                navigations.append(event.description)
            case .command(let command, _):
                commands.append(command)
            case .attach(let attachment):
                attachments.append(attachment)
                let id = attachment.id
                _ = attachment.stepper.steps.subscribe { [inbox] step in
                    inbox.items.withLock { $0.append(.stepperEmitted(id, step)) }
                }
                attached.append(attachment.stepper)
            case .detach(let id, _):
                attachments.removeAll { $0.id == id }
            default:
                break
            }
        }
        for stepper in attached { stepper.readyToEmitSteps() }
        for report in model.apply(commands).reports { handle(report) }
        drain()
    }

    private func drain() {
        while true {
            let inputs = inbox.items.withLock { inputs in
                defer { inputs.removeAll() }
                return inputs
            }
            if inputs.isEmpty { return }
            for input in inputs { handle(input) }
        }
    }
}

/// The steps steppers emitted and the session has not handled yet: they emit from their relays' callbacks.
///
/// `Sendable`: behind a mutex.
private final class Inbox: Sendable {
    let items = Mutex<[CoordinatorInput]>([])
}
