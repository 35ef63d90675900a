import FlowCore
import FlowDaemon
import FlowWire
import FlowdTesting
import Testing

/// A `CompositeStepper` of [RemoteStepper, ActionStepper, OneStepper]: each inner stepper is attached on its own with
/// the composite's presentable and flags (docs/SEMANTICS.md R12), so the remote one gets a stepper process (`ATTACH`,
/// its `STEP`s, `DETACH`) and the action one the person's actions, and every one's steps reach the flow.
struct CompositeStepperTests {
    /// The daemon, a counter service and a presenter showing `home`, whose stack then reads `home` and the screens the
    /// steps pushed.
    private func started(notPresented: Bool = true, journaling: Bool = false) -> (
        EmbeddedDaemon, FakeStepper, FakePresenter
    ) {
        let daemon = EmbeddedDaemon(
            application: CompositeApplication(notPresented: notPresented), journaling: journaling
        )
        let service = daemon.connectStepper(name: "counter", kinds: ["test.counter"]) { message in
            guard case .action(let action) = message else { return [] }
            return [.init(attachment: action.attachment, step: Step("counted"))]
        }
        let presenter = daemon.connectPresenter()
        return (daemon, service, presenter)
    }

    private func pages(_ daemon: EmbeddedDaemon) -> [String] {
        daemon.ui()?.children(of: "stack").map(\.rawValue) ?? []
    }

    @Test("The inner steppers are attached one by one: the remote one to its process, in array order")
    func eachInnerStepperIsAnAttachment() throws {
        let (daemon, service, _) = started()
        let steppers = daemon.tree()?.root?.steppers.map { "\($0.attachment) \($0.stepper) \($0.role)" }
        #expect(
            steppers == [
                "att#1 OneStepper(start) flow", "att#2 RemoteStepper(test.counter) contributor",
                "att#3 ActionStepper(about) contributor", "att#4 OneStepper(one) contributor",
            ])
        let attach = try #require(service.attachments.first)
        #expect(service.attachments.count == 1)
        #expect(
            (attach.attachment, attach.kind, attach.presentable, attach.role) == (2, "test.counter", "home", "contributor"))
        // RxFlow's merge: the inner initial steps in array order (the remote one's, then the OneStepper's).
        #expect(pages(daemon) == ["home", "remoteFirst", "one"])
    }

    @Test("A STEP on the inner remote attachment and an action for the inner ActionStepper both reach the flow")
    func remoteStepsAndActionsReachTheFlow() throws {
        let (daemon, service, presenter) = started()
        #expect(service.emit(Step("fromService"), attachment: 2)?.accepted == true)
        // The action reaches both served steppers on home: the ActionStepper and (ACTION) the counter service.
        #expect(presenter.act("about", on: "home")?.delivered == 2)
        #expect(pages(daemon) == ["home", "remoteFirst", "one", "fromService", "aboutIsRequired", "counted"])
        #expect(service.stepOutcomes == ["accepted", "accepted"])
    }

    @Test("The contribution's allowStepWhenNotPresented gates every inner stepper: hidden, their steps are dropped")
    func theContributionsGateAppliesToEachInnerStepper() throws {
        let (daemon, service, presenter) = started(notPresented: false)
        // Contributed to a hidden screen: the inner initial steps were dropped, as RxFlow's composite loses them (D8).
        #expect(pages(daemon) == ["home"])
        #expect(daemon.core.counters.stepsDropped["notVisible"] == 2)
        // The presenter showed home (reported it visible): now the steps come through.
        #expect(service.emit(Step("fromService"), attachment: 2)?.accepted == true)
        presenter.report([.visibilityChanged("home", visible: false)])
        #expect(service.emit(Step("hidden"), attachment: 2)?.outcome == "notVisible")
        #expect(presenter.act("about", on: "home")?.delivered == 2)
        #expect(pages(daemon) == ["home", "fromService"])
    }

    @Test("When the contribution ends (its screen dismissed) the remote inner stepper's process gets DETACH")
    func endingTheContributionDetachesTheRemoteStepper() throws {
        let (daemon, service, _) = started()
        #expect(service.emit(Step("close"), attachment: 2)?.accepted == true)
        #expect(pages(daemon) == ["closed"])
        #expect(service.attachments.isEmpty)
        let detaches = service.record.messages.compactMap { message -> Detach? in
            guard case .detach(let detach) = message else { return nil }
            return detach
        }
        #expect(detaches.map(\.reason) == ["presentableDismissed"])
        #expect(detaches.map(\.attachment) == [2])
        #expect(daemon.tree()?.root?.steppers.map(\.attachment) == [AttachmentID(1)])
    }

    @Test("A restarted daemon attaches the inner remote stepper again and routes actions to the inner ActionStepper")
    func restartRestoresTheInnerAttachments() throws {
        for compacted in [false, true] {
            let (daemon, service, presenter) = started(journaling: true)
            #expect(service.emit(Step("fromService"), attachment: 2)?.accepted == true)
            if compacted { #expect(daemon.compactJournal().saved == 1) }
            try daemon.restart()
            service.restart(instance: "counter-2")
            #expect(service.attachments.map(\.attachment) == [2], "compacted: \(compacted)")
            #expect(service.attachments.first?.resumed == true)
            presenter.connect()
            #expect(presenter.act("about", on: "home")?.delivered == 2)
            #expect(pages(daemon) == ["home", "remoteFirst", "one", "fromService", "aboutIsRequired", "counted"])
        }
    }

    @Test("Nested composites: every stepper inside is attached; initial steps come in RxFlow's merge order")
    func nestedCompositesAreFlattenedInMergeOrder() throws {
        let daemon = EmbeddedDaemon(application: CompositeApplication(notPresented: true, nested: true))
        let service = daemon.connectStepper(name: "counter", kinds: ["test.counter"])
        _ = daemon.connectPresenter()
        #expect(service.attachments.map(\.attachment) == [3])
        // The outer composite's own inner initial steps first (`outer`), then the nested one's, then what
        // its steppers emit when ready.
        #expect(pages(daemon) == ["home", "outer", "remoteFirst", "one"])
    }
}

/// A stack whose `home` screen is contributed with `CompositeStepper([RemoteStepper(test.counter), ActionStepper,
/// OneStepper(one)])` (nested: inside `[OneStepper(outer), that composite]`); every other step pushes a page of its
/// name, `close` replaces the stack by `closed`.
struct CompositeApplication: FlowApplication {
    let notPresented: Bool
    var nested = false

    func makeRoot(session: String) -> FlowRoot {
        FlowRoot(
            flow: CompositeFlow(notPresented: notPresented, nested: nested),
            stepper: OneStepper(withSingleStep: Step("start")))
    }

    func restoration(session: String) -> FlowRestoration? {
        var restoration = FlowRestoration()
        restoration.register(CompositeFlow.self) { CompositeFlow(notPresented: $0.notPresented, nested: $0.nested) }
        return restoration
    }
}

final class CompositeFlow: RestorableFlow {
    struct State: Codable {
        var notPresented: Bool
        var nested: Bool
    }

    let root = Screen.stack("stack")
    let state: State

    init(notPresented: Bool, nested: Bool) { state = State(notPresented: notPresented, nested: nested) }

    func navigate(to step: Step, with navigator: Navigator) -> FlowContributors {
        switch step.name {
        case "start":
            let home = Screen.view("home", type: "Home")
            navigator.setRoot(root)
            navigator.setStack(root.id, [home])
            var stepper: any Stepper = CompositeStepper(steppers: [
                RemoteStepper(kind: "test.counter", initialStep: Step("remoteFirst")),
                ActionStepper(["about": Step("aboutIsRequired")]), OneStepper(withSingleStep: Step("one")),
            ])
            if state.nested {
                stepper = CompositeStepper(steppers: [OneStepper(withSingleStep: Step("outer")), stepper])
            }
            return .one(
                flowContributor: .contribute(
                    withNextPresentable: home, withNextStepper: stepper, allowStepWhenNotPresented: state.notPresented))
        case "close":
            navigator.setStack(root.id, [Screen.view("closed", type: "Page")])
        default:
            navigator.push(Screen.view(PresentableID(step.name), type: "Page"), onto: root.id)
        }
        return .none
    }
}

@available(*, unavailable)
extension CompositeFlow: Sendable {}
