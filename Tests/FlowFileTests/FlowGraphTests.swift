import FlowFile
import Testing

/// `flowctl graph`'s picture of a flow's `adapt`: a node for the stepper kind asked, a dashed edge from the flow naming
/// the adapted steps, in DOT and in Mermaid.
struct FlowGraphTests {
    static let app = """
        flowfile: 1
        app: adapted
        root: {flow: main, stepper: {one: start}}
        steps:
          start: {}
          about: {}
          help: {}
        stepperKinds:
          svc.guard: {steps: []}
        screenTypes:
          Home:
            actions:
              about: {}
              help: {}
        flows:
          main:
            root: {id: main, kind: stack}
            adapt: {kind: svc.guard, steps: [about, help]}
            screens:
              home: {id: main.home, type: Home}
              about: {id: main.about}
            navigate:
              start:
                commands:
                  - push: home
                contribute:
                  - screen: home
                    stepper: {actions: {about: {step: about}, help: {step: help}}}
              about:
                commands:
                  - push: about
              help:
                commands:
                  - push: about
        """

    @Test func adaptIsAnEdgeFromTheFlowToTheStepperKind() throws {
        let graph = FlowGraph(try FlowFile.parse(Self.app, file: "adapted.yaml"))
        let kinds = graph.nodes.filter { $0.kind == .stepperKind }
        #expect(kinds.map(\.id) == ["kind_svc_guard"])
        #expect(kinds.map(\.label) == [["svc.guard"]])
        let adapts = graph.edges.filter { $0.kind == .adapt }
        #expect(adapts.map { "\($0.from) -> \($0.to): \($0.label)" } == ["flow_main -> kind_svc_guard: adapt\nabout\nhelp"])
        let dot = graph.dot.split(separator: "\n").map(String.init)
        #expect(dot.contains(##"  kind_svc_guard [label="svc.guard", shape=hexagon, style=filled, fillcolor="#fff0d8"];"##))
        #expect(dot.contains(
            ##"  flow_main -> kind_svc_guard [label="adapt\nabout\nhelp", style=dashed, color="#c07000", fontcolor="#c07000"];"##
        ))
        let mermaid = graph.mermaid.split(separator: "\n").map(String.init)
        #expect(mermaid.contains(#"  kind_svc_guard{{"svc.guard"}}"#))
        #expect(mermaid.contains(#"  flow_main -.->|"adapt<br/>about<br/>help"| kind_svc_guard"#))
    }

    @Test func aFileWithoutAdaptHasNoStepperKindNode() throws {
        let plain = Self.app.replacingOccurrences(of: "    adapt: {kind: svc.guard, steps: [about, help]}\n", with: "")
        let graph = FlowGraph(try FlowFile.parse(plain, file: "plain.yaml"))
        #expect(!graph.nodes.contains { $0.kind == .stepperKind })
        #expect(!graph.edges.contains { $0.kind == .adapt })
    }
}
