import FlowFile
import Testing

/// A `when: ready` block runs after the child flows' first steps: placing there a child whose first step acts on its
/// own root is reported; placing it at once (commands, `when: created`) is not.
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

    @Test func aChildPlacedWhenReadyAfterItsFirstStepActedOnItsRootIsReported() {
        #expect(
            diagnostics(Self.app(placing: "ready")) == [
                "17:27: 'list' is placed when it is ready, after its first step 'listIsShown' made 'setStack' on its root, which was not in the UI yet; place 'list' in 'commands' or a 'when: created' block"
            ])
    }

    @Test func aChildPlacedWhenCreatedIsFine() {
        #expect(diagnostics(Self.app(placing: "created")) == [])
    }
}
