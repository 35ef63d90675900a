import FlowCore
import Foundation
import Testing

/// `FlowTreeSnapshot`: the readable tree (`flowctl tree`) and its JSON form (`flowctl tree --json`).
struct SnapshotRenderingTests {
    /// P (visible tab bar) with a hidden contributor holding its initial step, and a child C contributed with
    /// allowStepWhenDismissed whose contributor was dismissed but kept.
    private static func smallTree() throws -> FlowCoordinatorStateMachine {
        let parent = ScenarioFlow("P", root: .tabs("P.tabs"))
        let child = ScenarioFlow("C")
        parent.on("a") {
            .multiple(
                Contribute.screen("s", OneStepper(withSingleStep: Step("s0", payload: ["id": 7]))),
                Contribute.flow(child, OneStepper(withSingleStep: Step("c")), dismissed: true)
            )
        }
        child.on("c") {
            .one(
                flowContributor: Contribute.screen("free", ScenarioStepper("free"), notPresented: true, dismissed: true)
            )
        }
        var machine = FlowCoordinatorStateMachine()
        _ = try machine.coordinate(flow: parent, with: OneStepper(withSingleStep: Step("a")))
        _ = machine.handle(.visibilityChanged("P.tabs", visible: true))
        _ = machine.handle(.dismissed("free"))
        return machine
    }

    @Test("Snapshot: the readable description of a small tree, line by line")
    func readableDescription() throws {
        let machine = try Self.smallTree()

        #expect(
            machine.snapshot().description == """
                P flow#1 root=P.tabs [visible] ready
                  - OneStepper(a) att#1 (flow)
                  - OneStepper(s0({"id":7})) att#2 on s [hidden] pending=s0({"id":7})
                  C flow#2 root=C.root [hidden] ready allowStepWhenDismissed
                    - OneStepper(c) att#3 (flow) allowStepWhenDismissed
                    - free att#4 on free [dismissed] allowStepWhenNotPresented allowStepWhenDismissed

                """
        )
        #expect(FlowCoordinatorStateMachine().snapshot().description == "(no flow)\n")
    }

    @Test("Snapshot: JSON round trip gives an equal snapshot")
    func jsonRoundTrip() throws {
        let snapshot = try Self.smallTree().snapshot()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]

        let data = try encoder.encode(snapshot)
        let decoded = try JSONDecoder().decode(FlowTreeSnapshot.self, from: data)

        #expect(decoded == snapshot)
        #expect(decoded.description == snapshot.description)
        #expect(decoded.allNodes.map(\.coordinator) == [FlowCoordinatorID(1), FlowCoordinatorID(2)])
        let json = String(decoding: data, as: UTF8.self)
        #expect(json.contains(#""pendingInitialStep":{"name":"s0","payload":{"id":7}}"#))
        #expect(json.contains(#""role":"contributor""#))

        let empty = try JSONDecoder().decode(FlowTreeSnapshot.self, from: encoder.encode(FlowTreeSnapshot(root: nil)))
        #expect(empty == FlowTreeSnapshot(root: nil))
    }
}
