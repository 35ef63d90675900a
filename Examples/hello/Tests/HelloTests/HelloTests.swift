import FlowCore
import FlowFile
import FlowdTesting
import Foundation
import HelloFlows
import HelloGreeter
import Testing

/// The hello application under an embedded daemon (FlowdTesting: the real daemon core, no sockets), with the real
/// greeter's logic behind a fake stepper peer and a fake presenter showing the session.
@Suite struct HelloTests {
    /// A daemon running ``HelloApplication`` (or another application: the same flows as a flow file), the greeter
    /// connected, and a presenter hosting the default session.
    struct System {
        let daemon: EmbeddedDaemon
        let greeter: LogicStepper<Greeter>
        let presenter: FakePresenter

        init(greeting: String = "Hello", application: any FlowApplication = HelloApplication()) {
            daemon = EmbeddedDaemon(application: application)
            // The greeter's logic as hello-service runs it, each input at the daemon's (manual) time.
            greeter = daemon.connectStepper(name: "hello-service", running: Greeter(greeting: greeting))
            presenter = daemon.connectPresenter()
        }

        var visible: [PresentableID] { presenter.presentation.visiblePresentables }
    }

    @Test func theGreeterIsTheRootFlowsStepperAndItsGreetingIsPushed() {
        let system = System(greeting: "Hi")
        #expect(system.greeter.peer.attachments.map(\.presentable) == ["hello"])
        #expect(system.greeter.peer.stepOutcomes == ["accepted"])
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
        #expect(system.greeter.peer.attachments.map(\.resumed) == [true])
        #expect(system.greeter.peer.stepOutcomes == ["accepted"])
        #expect(system.presenter.presentation.children(of: "hello") == ["hello.home", "hello.greeting"])
    }

    @Test func aboutIsADeepLinkAsFlowctlStepSendsIt() {
        let system = System()
        let flowctl = system.daemon.connectOperator()
        guard case .applied = flowctl.deepLink(HelloStep.aboutIsRequired) else {
            Issue.record("not applied: \(flowctl.record.messages)")
            return
        }
        #expect(system.visible == ["about", "about.text"])
    }

    /// Hello's flows as a flow file (docs/FLOWFILE.md) take the same journey as the Swift ones.
    @Test func theFlowFileIsTheSameFlows() throws {
        let path = URL(filePath: #filePath).appending(path: "../../../../flowfiles/hello.flows.json").standardized.path
        let system = System(application: FileApplication(try FlowFile.load(path: path)))
        #expect(system.visible == ["hello", "hello.greeting"])
        system.presenter.act("about", on: "hello.greeting")
        #expect(system.visible == ["about", "about.text"])
        system.presenter.act("close", on: "about.text")
        #expect(system.visible == ["hello", "hello.greeting"])
    }

    @Test func anActionNobodyMapsChangesNothing() {
        let system = System()
        let before = system.presenter.presentation
        system.presenter.act("fly", on: "hello.greeting")
        #expect(system.presenter.presentation == before)
    }
}
