import FlowClient
import FlowCore
import FlowWire
import FlowdTesting
import HelloFlows
import HelloGreeter
import Logging
import Testing

/// The hello application under an embedded daemon (FlowdTesting: the real daemon core, no sockets), with the real
/// greeter's logic behind a fake stepper peer and a fake presenter showing the session.
@Suite struct HelloTests {
    /// A daemon running ``HelloApplication``, the greeter connected, and a presenter hosting the default session.
    struct System {
        let daemon = EmbeddedDaemon(application: HelloApplication())
        let greeter: FakeStepper
        let presenter: FakePresenter

        init(greeting: String = "Hello") {
            var logic = Greeter(greeting: greeting)
            let clock = daemon.clock
            // The glue StepperService would be: each ATTACH becomes the logic's input, at the daemon's (manual) time,
            // and what it returns is emitted. (An ACTION or DETACH names only its attachment: look it up in the fake
            // stepper's `attachments` to make the `StepperEvent`.)
            greeter = daemon.connectStepper(name: "hello-service", kinds: logic.kinds) { message in
                guard case .attach(let attach) = message else { return [] }
                let input = StepperInput.event(.attached(RemoteAttachment(attach)))
                return logic.handle(input, now: clock.instant, logger: Logger(label: "greeter")).map { emission in
                    FakeStepper.Emission(
                        session: emission.attachment.session, attachment: emission.attachment.attachment.rawValue,
                        step: emission.step
                    )
                }
            }
            presenter = daemon.connectPresenter()
        }

        var visible: [PresentableID] { presenter.presentation.visiblePresentables }
    }

    @Test func theGreeterIsTheRootFlowsStepperAndItsGreetingIsPushed() {
        let system = System(greeting: "Hi")
        #expect(system.greeter.attachments.map(\.presentable) == ["hello"])
        #expect(system.greeter.stepOutcomes == ["accepted"])
        #expect(system.visible == ["hello", "hello.greeting"])
        #expect(system.presenter.presentation.children(of: "hello") == ["hello.home", "hello.greeting"])
        #expect(system.presenter.presentation.screen("hello.greeting")?.data == .string("Hi, default!"))

        try? system.presenter.tapBack(in: "hello")
        #expect(system.visible == ["hello", "hello.home"])
    }

    @Test func aboutIsAModalFlowThatItsCloseActionEnds() {
        let system = System()
        system.presenter.act("about", on: "hello.greeting")
        #expect(system.presenter.presentation.presented(over: "hello") == "about")
        #expect(system.visible == ["about", "about.text"])

        system.presenter.act("close", on: "about.text")
        #expect(!system.presenter.presentation.contains("about"))
        #expect(system.visible == ["hello", "hello.greeting"])
        #expect(system.presenter.rejectedCommands.isEmpty)
    }

    @Test func aResumedAttachmentIsNotGreetedAgain() {
        let system = System()
        system.greeter.restart(instance: "hello-service-2")
        #expect(system.greeter.attachments.map(\.resumed) == [true])
        #expect(system.greeter.stepOutcomes == ["accepted"])
        #expect(system.presenter.presentation.children(of: "hello") == ["hello.home", "hello.greeting"])
    }

    @Test func anActionNobodyMapsChangesNothing() {
        let system = System()
        let before = system.presenter.presentation
        system.presenter.act("fly", on: "hello.greeting")
        #expect(system.presenter.presentation == before)
    }
}
