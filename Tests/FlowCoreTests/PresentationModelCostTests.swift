@testable import FlowCore
import TestFlows
import Testing

/// A command's cost follows what is on screen and what it changes, not how much UI the model holds (issue 11:
/// a person who keeps opening movies). Cost is counted in presentables visited (``PresentationModel/visitedNodes``),
/// not timed.
@Suite struct PresentationModelCostTests {
    /// A window whose root stack holds `depth` views (`v0` at the bottom), with a tab bar on top whose hidden tab
    /// holds `hiddenDepth` more.
    private func deepModel(depth: Int, hiddenDepth: Int) throws -> PresentationModel {
        var model = PresentationModel()
        _ = try model.apply(.setRoot(.stack("nav")))
        for index in 0..<depth { _ = try model.apply(.push(.view(PresentableID("v\(index)"), type: "Movie"), onto: "nav")) }
        _ = try model.apply(.push(.tabs("tabs"), onto: "nav"))
        _ = try model.apply(.setTabs("tabs", [.stack("shown"), .stack("hidden")], selected: 0))
        _ = try model.apply(.push(.view("s0", type: "List"), onto: "shown"))
        for index in 0..<hiddenDepth { _ = try model.apply(.push(.view(PresentableID("h\(index)"), type: "Movie"), onto: "hidden")) }
        return model
    }

    /// The presentables a batch of commands visits, on a copy of `model`.
    private func visits(_ commands: [NavigationCommand], on model: PresentationModel) throws -> Int {
        var model = model
        let before = model.visitedNodes
        for command in commands { _ = try model.apply(command) }
        return model.visitedNodes - before
    }

    /// What a user does in a session that has been open a long time: open one more, go back, present, dismiss.
    private let typicalCommands: [NavigationCommand] = [
        .push(.view("more", type: "Movie"), onto: "shown"),
        .pop(stack: "shown"),
        .present(.view("alert", type: "Alert"), over: "tabs"),
        .dismiss(presentedOver: "tabs"),
        .selectTab("tabs", index: 0),
        .push(.view("deeper", type: "Movie"), onto: "nav"),
        .pop(stack: "nav"),
    ]

    @Test func aCommandVisitsAsManyPresentablesWith16kScreensAsWith100() throws {
        let small = try deepModel(depth: 50, hiddenDepth: 50)
        let large = try deepModel(depth: 8_000, hiddenDepth: 8_000)
        #expect(small.count >= 100)
        #expect(large.count >= 16_000)
        let smallVisits = try visits(typicalCommands, on: small)
        let largeVisits = try visits(typicalCommands, on: large)
        #expect(smallVisits > 0)
        #expect(largeVisits == smallVisits)
    }

    @Test func pushingOneMoreScreenEachStepCostsTheSameAtEveryDepth() throws {
        var model = try deepModel(depth: 0, hiddenDepth: 0)
        var costs: [Int] = []
        for index in 0..<5_000 {
            let before = model.visitedNodes
            _ = try model.apply(.push(.view(PresentableID("open\(index)"), type: "Movie"), onto: "shown"))
            costs.append(model.visitedNodes - before)
        }
        #expect(Set(costs.dropFirst()).count == 1, "costs vary with depth: \(Set(costs))")
    }

    @Test func aSelectTabShowingADeepStackVisitsOnlyItsTop() throws {
        let model = try deepModel(depth: 10, hiddenDepth: 10_000)
        let cost = try visits([.selectTab("tabs", index: 1), .selectTab("tabs", index: 0)], on: model)
        #expect(cost < 100, "visited \(cost)")
    }

    /// The reports by the definition (a walk over the whole tree before and after), against which the model's
    /// on-screen-only visits are checked.
    private func referenceReports(
        before: PresentationModel,
        after: PresentationModel,
        removed: [PresentableID]
    ) -> [CoordinatorInput] {
        var visibleBefore: Set<PresentableID> = []
        before.walk { id, _, _, isVisible, _ in if isVisible { visibleBefore.insert(id) } }
        let removedSet = Set(removed)
        var hidden: [CoordinatorInput] = []
        var shown: [CoordinatorInput] = []
        after.walk { id, _, _, isVisible, _ in
            let wasVisible = visibleBefore.contains(id) && !removedSet.contains(id)
            if wasVisible, !isVisible { hidden.append(.visibilityChanged(id, visible: false)) }
            if !wasVisible, isVisible { shown.append(.visibilityChanged(id, visible: true)) }
        }
        return removed.map { .dismissed($0) } + hidden + shown
    }

    @Test(arguments: 1...8) func reportsEqualTheWholeTreeDefinitionForRandomCommands(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let ids: [PresentableID] = (0..<14).map { PresentableID("p\($0)") }
        func screen() -> Screen {
            let id = ids[random.below(ids.count)]
            switch random.below(4) {
            case 0: return .stack(id)
            case 1: return .tabs(id)
            case 2: return .split(id)
            default: return .view(id, type: "View")
            }
        }
        var model = PresentationModel()
        _ = try model.apply(.setRoot(.stack("root")))
        var applied = 0
        for _ in 0..<3_000 {
            let target = random.below(5) == 0 ? "root" : ids[random.below(ids.count)]
            let command: NavigationCommand
            switch random.below(11) {
            case 0: command = .push(screen(), onto: target)
            case 1: command = .pop(stack: target)
            case 2: command = .popToRoot(stack: target)
            case 3: command = .setStack(target, [screen(), screen()])
            case 4: command = .present(screen(), over: target)
            case 5: command = .dismiss(presentedOver: target)
            case 6: command = .setTabs(target, [screen(), screen()], selected: random.below(2))
            case 7: command = .selectTab(target, index: random.below(2))
            case 8: command = .showMaster(target, screen())
            case 9: command = .showDetail(target, screen())
            default: command = .push(screen(), onto: "root")
            }
            let before = model
            guard let reports = try? model.apply(command) else {
                #expect(model == before)
                continue
            }
            applied += 1
            let removed = reports.compactMap { report -> PresentableID? in
                if case .dismissed(let id) = report { return id }
                return nil
            }
            #expect(reports == referenceReports(before: before, after: model, removed: removed), "\(command)")
        }
        #expect(applied > 500)
    }
}
