import FlowCore
import FlowDaemon
import FlowFile
import FlowWire
import FlowdTesting
import Testing

/// Under flowd a root flow that shows a new window root (`setRoot`) takes its own root out of the session's UI (D18),
/// and lives on: RxFlow's root flow outlives `window.rootViewController = …` (docs/SEMANTICS.md D18), so the session
/// keeps a tree and its later steps and deep links are navigated.
struct NewWindowRootTests {
    static let app = """
        flowfile: 1
        app: switcher
        root: {flow: main, stepper: {one: start}}
        steps:
          start: {}
          dashboard: {deepLink: true}
          back: {deepLink: true}
        flows:
          main:
            root: {id: main, kind: stack}
            screens:
              home: {id: main.home}
              dash: {id: dash, kind: tabs}
            navigate:
              start:
                commands:
                  - setRoot: root
                  - setStack: [home]
              dashboard:
                commands:
                  - setRoot: dash
              back:
                commands:
                  - setRoot: root
                  - setStack: [home]
        """

    @Test("A root flow that shows a new window root keeps its session's tree, and comes back")
    func theRootFlowLivesOn() throws {
        let daemon = EmbeddedDaemon(application: FileApplication(try FlowFile.parse(Self.app, file: "switcher.flows.yaml")))
        _ = daemon.connectPresenter()
        let flowctl = daemon.newPeerAddress()
        _ = daemon.receive(
            .hello(Hello(req: 1, role: .operator, name: "flowctl", instance: "flowctl", heartbeatMs: 1000)), from: flowctl)

        _ = daemon.receive(.deepLink(DeepLinkRequest(req: 2, session: "default", step: Step("dashboard"))), from: flowctl)
        #expect(daemon.ui()?.presentables == ["dash"])
        #expect(daemon.tree()?.allNodes.map(\.flow) == ["main"])

        _ = daemon.receive(.deepLink(DeepLinkRequest(req: 3, session: "default", step: Step("back"))), from: flowctl)
        #expect(daemon.ui()?.presentables == ["main", "main.home"])
        #expect(daemon.tree()?.allNodes.map(\.flow) == ["main"])
    }
}
