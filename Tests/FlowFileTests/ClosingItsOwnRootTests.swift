import FlowCore
import FlowDaemon
import FlowFile
import FlowdTesting
import Testing

/// Under flowd a child flow whose first step closes its own root (the session's UI model drops it at once, D18) is
/// ready as that step's navigation ends, whatever it returns: the `when: ready` block its parent registered for it
/// runs, as RxFlow's `setReadiness` runs before UIKit reports the dismissal (docs/SEMANTICS.md D6, D18).
struct ClosingItsOwnRootTests {
    /// `returns`: what the child's `check` handler has besides its `dismiss`, indented as its keys.
    static func app(returning returns: String) -> String {
        """
        flowfile: 1
        app: gate
        root: {flow: main, stepper: {one: start}}
        steps:
          start: {}
          check: {}
          checked: {}
        flows:
          main:
            root: {id: main, kind: stack}
            screens:
              home: {id: main.home}
              done: {id: main.done}
            navigate:
              start:
                commands:
                  - setRoot: root
                  - setStack: [home]
                contribute:
                  - flow: gate
                    stepper: {one: check}
                use:
                  - when: created
                    commands:
                      - present: gate
                  - when: ready
                    commands:
                      - push: done
              checked: {}
          gate:
            root: {id: gate, kind: stack}
            navigate:
              check:
                commands:
                  - dismiss: main
        \(returns)
        """
    }

    @Test("A child that dismisses its own root on its first step lets its parent's ready block run", arguments: [
        "",
        "        contribute:\n          - {forwardToParentFlow: checked}",
        "        end: checked",
    ])
    func theParentsReadyBlockRuns(returns: String) throws {
        let file = try FlowFile.parse(Self.app(returning: returns), file: "gate.flows.yaml")
        let daemon = EmbeddedDaemon(application: FileApplication(file))
        _ = daemon.connectPresenter()

        #expect(daemon.ui()?.presentables.contains("main.done") == true)
        #expect(daemon.ui()?.contains("gate") == false)
    }
}
