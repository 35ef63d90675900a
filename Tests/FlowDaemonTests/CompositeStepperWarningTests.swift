import FlowCore
import FlowDaemon
import FlowdTesting
import Logging
import Testing

/// A `CompositeStepper` holding a `RemoteStepper` or an `ActionStepper` is run by the daemon as one local stepper:
/// the inner ones get no process and no actions (docs/GUIDE.md §2), and the daemon says so in a warning.
struct CompositeStepperWarningTests {
    @Test func aCompositeWithARemoteAndAnActionStepperIsWarnedOfAndServesNeither() {
        let recorder = LogRecorder()
        let daemon = EmbeddedDaemon(
            application: CompositeApplication(), logger: Logger(label: "composite") { _ in RecordingHandler(recorder) }
        )
        let service = daemon.connectStepper(name: "counter", kinds: ["test.counter"])
        let presenter = daemon.connectPresenter()

        #expect(service.attachments.isEmpty)
        #expect(presenter.act("about", on: "home")?.delivered == 0)
        let warnings = recorder.lines.withLock { $0 }.filter { $0.level == .warning }
        #expect(warnings.count == 1)
        #expect(warnings.first?.metadata["presentable"] == "home")
        #expect(warnings.first?.metadata["steppers"] == "ActionStepper(about), RemoteStepper(test.counter)")
    }

    @Test func aCompositeOfLocalSteppersIsNotWarnedOf() {
        let recorder = LogRecorder()
        let daemon = EmbeddedDaemon(
            application: CompositeApplication(inner: [OneStepper(withSingleStep: Step("nothing"))]),
            logger: Logger(label: "composite") { _ in RecordingHandler(recorder) }
        )
        _ = daemon.connectPresenter()
        #expect(recorder.lines.withLock { $0 }.filter { $0.level == .warning }.isEmpty)
    }
}

/// A stack whose home screen's stepper is a composite of `inner`.
private struct CompositeApplication: FlowApplication {
    /// `Sendable`: the steppers are made anew for each session.
    let inner: @Sendable () -> [any Stepper]

    init(inner: @autoclosure @escaping @Sendable () -> [any Stepper] = [
        ActionStepper(["about": Step("aboutIsRequired")]), RemoteStepper(kind: "test.counter"),
    ]) {
        self.inner = inner
    }

    func makeRoot(session: String) -> FlowRoot {
        FlowRoot(flow: CompositeFlow(inner: inner()), stepper: OneStepper(withSingleStep: Step("start")))
    }
}

private final class CompositeFlow: Flow {
    let root = Screen.stack("stack")
    let inner: [any Stepper]

    init(inner: [any Stepper]) { self.inner = inner }

    func navigate(to step: Step, with navigator: Navigator) -> FlowContributors {
        guard step.name == "start" else { return .none }
        let home = Screen.view("home", type: "Home")
        navigator.setRoot(root)
        navigator.setStack(root.id, [home])
        let stepper = CompositeStepper(steppers: inner)
        return .one(flowContributor: .contribute(withNextPresentable: home, withNextStepper: stepper))
    }
}

@available(*, unavailable)
extension CompositeFlow: Sendable {}
