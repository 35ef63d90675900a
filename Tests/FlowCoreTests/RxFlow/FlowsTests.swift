import FlowCore
import Testing

/// RxFlow 2.13.2 `RxFlowTests/FlowsTests.swift` (tests 11-22 of `rxflow-semantics.md` §2), translated.
///
/// RxFlow drives a `MockFlow`'s readiness by hand (`flowReadySubject.accept(true)`). In FlowCore a flow is ready
/// after its first navigation (`docs/SEMANTICS.md` D6), and ``Flows/use(_:when:in:_:)`` is called inside a
/// navigation, with its navigator. So each test has a root flow that registers the block on N child flows and
/// contributes them with manual flow steppers; a child becomes ready when its stepper emits its first step. The block
/// records a `setTabs` command, so the log shows exactly when it runs. RxFlow's typed overloads for 1 to 5 flows map
/// to the variadic overload called with that many flows; its `[Flow]` overload to the array overload.
struct FlowsTests {
    typealias Block = (Navigator) -> Void
    typealias Registration = (_ flows: [TestFlow], _ navigator: Navigator, _ block: @escaping Block) -> Void

    /// The tree: a root flow that, on `start`, registers the block with `register` and contributes the children.
    private struct Tree {
        let driver: MachineDriver
        let children: [TestFlow]
        let steppers: [TestStepper]
        let coordinateLog: [String]

        init(childCount: Int, register: @escaping Registration) throws {
            let children = (1...childCount).map { TestFlow("ChildFlow\($0)") }
            let steppers = (1...childCount).map { TestStepper("ChildStepper\($0)") }
            let childRoots = children.map(\.root)
            let root = TestFlow("RootFlow", root: .tabs("RootFlow.root")) { [children, steppers] step, navigator in
                guard step == Step("start") else { return .none }
                register(children, navigator) { navigator in navigator.setTabs("RootFlow.root", childRoots) }
                return .multiple(
                    flowContributors: zip(children, steppers).map { child, stepper in
                        .contribute(withNextPresentable: child, withNextStepper: stepper)
                    }
                )
            }
            let driver = MachineDriver()
            self.coordinateLog = try driver.coordinate(flow: root, with: OneStepper(withSingleStep: Step("start")))
            self.driver = driver
            self.children = children
            self.steppers = steppers
        }

        /// The block's command, as logged.
        var blockCommand: String {
            "command setTabs RootFlow.root [" + children.map(\.root.id.rawValue).joined(separator: ", ")
                + "] selected=0 (flow#1)"
        }

        /// The log of `coordinate`, with `blockLines` right after the root's navigation to `start`.
        func expectedCoordinateLog(blockLines: [String]) -> [String] {
            var log = [
                "start RootFlow flow#1",
                "command setRoot RootFlow.root (flow#1)",
                "attach att#1 OneStepper(start) on RootFlow.root (flow)",
                "will navigate flow=RootFlow step=start",
            ]
            log += blockLines
            log.append("did navigate flow=RootFlow step=start")
            for index in children.indices {
                log.append("start ChildFlow\(index + 1) flow#\(index + 2) parent=flow#1")
                log.append("attach att#\(index + 2) ChildStepper\(index + 1) on ChildFlow\(index + 1).root (flow)")
            }
            return log
        }
    }

    /// `.ready`: the block runs once every child has navigated, not before (children made ready last to first).
    private func checkBlockRunsWhenReady(childCount: Int, register: @escaping Registration) throws {
        let tree = try Tree(childCount: childCount, register: register)
        #expect(tree.coordinateLog == tree.expectedCoordinateLog(blockLines: []))

        for index in tree.children.indices.reversed() {
            let log = tree.driver.emit("ready", from: tree.steppers[index])
            var expected = [
                "will navigate flow=ChildFlow\(index + 1) step=ready",
                "did navigate flow=ChildFlow\(index + 1) step=ready",
                "ready flow#\(index + 2)",
            ]
            if index == 0 {
                expected += [tree.blockCommand, "ready flow#1"]
            }
            #expect(log == expected, "child \(index + 1) of \(childCount) becoming ready")
        }
        #expect(tree.driver.log.filter { $0.hasPrefix("command setTabs") } == [tree.blockCommand])
    }

    /// `.created`: the block runs at once, inside the root's navigation, before any child is coordinated or ready.
    private func checkBlockRunsWhenCreated(childCount: Int, register: @escaping Registration) throws {
        let tree = try Tree(childCount: childCount, register: register)
        #expect(tree.coordinateLog == tree.expectedCoordinateLog(blockLines: [tree.blockCommand]))
        let readiness = tree.driver.machine.coordinatorIDs.map(tree.driver.machine.isReady)
        #expect(readiness == Array(repeating: false, count: childCount + 1))
    }

    // MARK: - .ready, 11-15

    @Test("RxFlow #11 test_use_triggers_block_when_one_flow_is_ready")
    func useTriggersBlockWhenOneFlowIsReady() throws {
        try checkBlockRunsWhenReady(childCount: 1) { flows, navigator, block in
            Flows.use(flows[0], when: .ready, in: navigator, block)
        }
    }

    @Test("RxFlow #12 test_use_triggers_block_when_two_flows_are_ready")
    func useTriggersBlockWhenTwoFlowsAreReady() throws {
        try checkBlockRunsWhenReady(childCount: 2) { flows, navigator, block in
            Flows.use(flows[0], flows[1], when: .ready, in: navigator, block)
        }
    }

    @Test("RxFlow #13 test_use_triggers_block_when_three_flows_are_ready")
    func useTriggersBlockWhenThreeFlowsAreReady() throws {
        try checkBlockRunsWhenReady(childCount: 3) { flows, navigator, block in
            Flows.use(flows[0], flows[1], flows[2], when: .ready, in: navigator, block)
        }
    }

    @Test("RxFlow #14 test_use_triggers_block_when_four_flows_are_ready")
    func useTriggersBlockWhenFourFlowsAreReady() throws {
        try checkBlockRunsWhenReady(childCount: 4) { flows, navigator, block in
            Flows.use(flows[0], flows[1], flows[2], flows[3], when: .ready, in: navigator, block)
        }
    }

    @Test("RxFlow #15 test_use_triggers_block_when_five_flows_are_ready")
    func useTriggersBlockWhenFiveFlowsAreReady() throws {
        try checkBlockRunsWhenReady(childCount: 5) { flows, navigator, block in
            Flows.use(flows[0], flows[1], flows[2], flows[3], flows[4], when: .ready, in: navigator, block)
        }
    }

    // MARK: - .created, 16-20

    @Test("RxFlow #16 test_use_triggers_block_when_one_flow_is_created")
    func useTriggersBlockWhenOneFlowIsCreated() throws {
        try checkBlockRunsWhenCreated(childCount: 1) { flows, navigator, block in
            Flows.use(flows[0], when: .created, in: navigator, block)
        }
    }

    @Test("RxFlow #17 test_use_triggers_block_when_two_flows_are_created")
    func useTriggersBlockWhenTwoFlowsAreCreated() throws {
        try checkBlockRunsWhenCreated(childCount: 2) { flows, navigator, block in
            Flows.use(flows[0], flows[1], when: .created, in: navigator, block)
        }
    }

    @Test("RxFlow #18 test_use_triggers_block_when_three_flows_are_created")
    func useTriggersBlockWhenThreeFlowsAreCreated() throws {
        try checkBlockRunsWhenCreated(childCount: 3) { flows, navigator, block in
            Flows.use(flows[0], flows[1], flows[2], when: .created, in: navigator, block)
        }
    }

    @Test("RxFlow #19 test_use_triggers_block_when_four_flows_are_created")
    func useTriggersBlockWhenFourFlowsAreCreated() throws {
        try checkBlockRunsWhenCreated(childCount: 4) { flows, navigator, block in
            Flows.use(flows[0], flows[1], flows[2], flows[3], when: .created, in: navigator, block)
        }
    }

    @Test("RxFlow #20 test_use_triggers_block_when_five_flows_are_created")
    func useTriggersBlockWhenFiveFlowsAreCreated() throws {
        try checkBlockRunsWhenCreated(childCount: 5) { flows, navigator, block in
            Flows.use(flows[0], flows[1], flows[2], flows[3], flows[4], when: .created, in: navigator, block)
        }
    }

    // MARK: - [Flow], 21-22

    @Test("RxFlow #21 test_use_triggers_block_when_array_of_flows_are_ready")
    func useTriggersBlockWhenArrayOfFlowsAreReady() throws {
        try checkBlockRunsWhenReady(childCount: 3) { flows, navigator, block in
            Flows.use(flows as [any Flow], when: .ready, in: navigator, block)
        }
    }

    @Test("RxFlow #22 test_use_triggers_block_when_array_of_flows_are_created")
    func useTriggersBlockWhenArrayOfFlowsAreCreated() throws {
        try checkBlockRunsWhenCreated(childCount: 3) { flows, navigator, block in
            Flows.use(flows as [any Flow], when: .created, in: navigator, block)
        }
    }
}
