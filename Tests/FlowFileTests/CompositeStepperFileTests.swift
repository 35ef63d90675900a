import FlowCore
import FlowDaemon
import FlowFile
import FlowWire
import FlowdTesting
import Testing

/// `stepper: {composite: [stepper, …]}`: a `CompositeStepper` in a flow file, each stepper inside attached on its own
/// (docs/SEMANTICS.md R12): the remote one to its stepper process, the action one given the person's actions.
struct CompositeStepperFileTests {
    static let app = """
        flowfile: 1
        app: composite
        root: {flow: main, stepper: {one: start}}
        steps:
          start: {}
          remoteFirst: {}
          counted: {}
          opened: {}
          shown: {}
        stepperKinds:
          svc.counter: {steps: [counted]}
        screenTypes:
          Home:
            actions:
              about: {}
        flows:
          main:
            root: {id: main, kind: stack}
            screens:
              home: {id: main.home, type: Home}
              remoteFirst: {id: main.page.remoteFirst}
              counted: {id: main.page.counted}
              opened: {id: main.page.opened}
              shown: {id: main.page.shown}
            navigate:
              start:
                commands:
                  - setStack: [home]
                contribute:
                  - screen: home
                    allowStepWhenNotPresented: true
                    stepper:
                      composite:
                        - {remote: svc.counter, initial: remoteFirst}
                        - {actions: {about: opened}}
                        - composite: [{one: shown}]
              remoteFirst: {commands: [{push: remoteFirst}]}
              counted: {commands: [{push: counted}]}
              opened: {commands: [{push: opened}]}
              shown: {commands: [{push: shown}]}
        """

    @Test("A composite's steppers are attached one by one; the remote one's steps and the actions reach the flow")
    func aCompositeInAFileIsServedStepperByStepper() throws {
        let file = try FlowFile.parse(Self.app, file: "composite.flows.yaml")
        let daemon = EmbeddedDaemon(application: FileApplication(file))
        let service = daemon.connectStepper(name: "counter", kinds: ["svc.counter"]) { message in
            guard case .action(let action) = message else { return [] }
            return [.init(attachment: action.attachment, step: Step("counted"))]
        }
        let presenter = daemon.connectPresenter()
        let steppers = daemon.tree()?.root?.steppers.map { "\($0.attachment) \($0.stepper)" }
        #expect(
            steppers == [
                "att#1 OneStepper(start)", "att#2 RemoteStepper(svc.counter)", "att#3 ActionStepper(about)",
                "att#4 OneStepper(shown)",
            ])
        #expect(service.attachments.map(\.attachment) == [2])
        #expect(presenter.act("about", on: "main.home")?.delivered == 2)
        #expect(service.emit(Step("counted"), attachment: 2)?.accepted == true)
        // RxFlow's merge: the inner initial step, then the nested composite's as it is readied; then the action's
        // step and the service's answer to the same action, and the service's own step.
        #expect(
            daemon.ui()?.children(of: "main").map(\.rawValue)
                == ["main.home", "main.page.remoteFirst", "main.page.shown", "main.page.opened", "main.page.counted"])
    }

    @Test("flowctl graph names a composite's steppers and the steps they emit")
    func theGraphShowsTheComposite() throws {
        let graph = FlowGraph(try FlowFile.parse(Self.app, file: "composite.flows.yaml"))
        let labels = graph.edges.map(\.label)
        // The edge contributing home: the step, then the stepper.
        #expect(labels.contains("start\ncomposite [remote svc.counter; actions about; composite [one shown]]"))
        #expect(labels.contains("counted\nopened\nremoteFirst\nshown"))
    }
}
