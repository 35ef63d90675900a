import FlowCore
import FlowFile
import FlowdTesting
import Testing

/// A `when: ready` block runs after the child flows' first steps: under flowd, what a child's first step built on its
/// own root waits for the block that places the root (docs/SEMANTICS.md D20), so placing it when ready shows the same
/// UI as placing it at once (commands, `when: created`).
struct ReadyPlacementTests {
    static func app(placing when: String) -> String {
        """
        app: tabs
        flowfile: 1
        steps: {start: {}, listIsShown: {}}
        root: {flow: main, stepper: {one: start}}
        flows:
          main:
            root: {id: main.tabs, kind: tabs}
            navigate:
              start:
                commands:
                  - setRoot: root
                contribute:
                  - flow: list
                use:
                  - when: \(when)
                    commands:
                      - setTabs: [list]
          list:
            root: {id: list.stack, kind: stack}
            stepper: {one: listIsShown}
            screens:
              items: {id: list.items}
            navigate:
              listIsShown:
                commands:
                  - setStack: [items]

        """
    }

    @Test("A child's root placed when ready or when created shows its first screen", arguments: ["ready", "created"])
    func theChildsFirstScreenIsShown(placing when: String) throws {
        #expect(diagnostics(Self.app(placing: when)) == [])
        let file = try FlowFile.parse(Self.app(placing: when), file: "tabs.flows.yaml")
        let daemon = EmbeddedDaemon(application: FileApplication(file))
        _ = daemon.connectPresenter()

        #expect(daemon.ui()?.presentables.sorted() == ["list.items", "list.stack", "main.tabs"])
    }
}
