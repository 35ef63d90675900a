import FlowCore
import Foundation
import Testing

/// The UI model keeps what its screens count against a byte bound (`estimatedBytes`, docs/LIMITS.md "One session's
/// size") as they come and go, and a model read back from its saved form counts the same.
@Suite struct PresentationModelBytesTests {
    /// What the model's screens count, summed by walking them: what the kept count must equal.
    private func walked(_ model: PresentationModel) -> Int {
        model.presentables.reduce(0) { $0 + model.screen($1)!.estimatedBytes }
    }

    /// A screen whose data has every kind of JSON value, sized by `n`.
    private func screen(_ id: String, _ n: Int, kind: Screen.Kind = .view) -> Screen {
        Screen(
            id: PresentableID(id), kind: kind, type: kind == .view ? "Page" : nil,
            data: n % 3 == 0
                ? .null
                : ["text": .string(String(repeating: "é", count: n)), "n": .double(1.0), "list": [1, 2.5, nil, true]])
    }

    @Test func aScreenCountsItsIDTypeAndData() {
        // 32 + "detail.1" + "Detail" + 8 (the object) + "movie" + 8 (the number): the outbox's 131 less its 64.
        #expect(Screen.view("detail.1", type: "Detail", data: ["movie": 1]).estimatedBytes == 67)
        #expect(Screen.stack("app").estimatedBytes == 32 + 3 + "stack".utf8.count + 8)
        #expect(Screen.view("a", type: "T", data: .string(String(repeating: "é", count: 100))).estimatedBytes == 242)
    }

    @Test func theCountFollowsEveryCommandUserOperationAndRemoval() throws {
        var model = PresentationModel()
        #expect(model.estimatedBytes == 0)
        _ = try model.apply(.setRoot(screen("app", 0, kind: .stack)))
        _ = try model.apply(.push(screen("home", 10), onto: "app"))
        _ = try model.apply(.push(screen("tabs", 0, kind: .tabs), onto: "app"))
        _ = try model.apply(.setTabs("tabs", [screen("a", 0, kind: .stack), screen("split", 0, kind: .split)], selected: 1))
        _ = try model.apply(.showMaster("split", screen("master", 20)))
        _ = try model.apply(.showDetail("split", screen("detail", 40)))
        _ = try model.apply(.showDetail("split", screen("detail.2", 41)))
        _ = try model.apply(.setStack("a", [screen("a.1", 5), screen("a.2", 7), screen("a.3", 8)]))
        // A kept child takes the command's data and counts it (D21); the new one is added, the others leave.
        _ = try model.apply(.setStack("a", [screen("a.1", 500), screen("a.4", 11)]))
        #expect(model.screen("a.1") == screen("a.1", 500))
        #expect(model.estimatedBytes == walked(model))
        _ = try model.apply(.present(screen("sheet", 0, kind: .stack), over: "tabs"))
        _ = try model.apply(.push(screen("sheet.1", 13), onto: "sheet"))
        _ = try model.apply(.present(.alert("confirm", message: "Sure?"), over: "sheet.1"))
        #expect(model.estimatedBytes == walked(model))
        let full = model.estimatedBytes
        // Refused commands change nothing.
        #expect(throws: PresentationError.self) { try model.apply(.push(screen("home", 99), onto: "app")) }
        #expect(model.apply([.push(screen("x", 1), onto: "missing"), .pop(stack: "missing")]).rejected.count == 2)
        #expect(model.estimatedBytes == full)
        _ = try model.userDismisses("confirm")
        #expect(model.estimatedBytes == walked(model))
        model.remove("sheet")
        #expect(model.estimatedBytes == walked(model))
        _ = try model.apply(.popToRoot(stack: "a"))
        _ = try model.apply(.pop(stack: "app"))
        #expect(model.estimatedBytes == walked(model))
        // A batch counts as its commands one by one.
        _ = model.apply([.push(screen("b.1", 4), onto: "app"), .pop(stack: "app"), .push(screen("b.2", 5), onto: "app")])
        #expect(model.estimatedBytes == walked(model))
        // A new root takes the whole tree out.
        _ = try model.apply(.setRoot(screen("other", 2, kind: .stack)))
        #expect(model.estimatedBytes == screen("other", 2, kind: .stack).estimatedBytes)
    }

    @Test func aLongRunOfCommandsKeepsTheCountOfAWalk() {
        // A fixed generator: the same run every time.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        var model = PresentationModel()
        _ = try? model.apply(.setRoot(screen("root", 0, kind: .stack)))
        let stacks: [PresentableID] = ["root", "s.0", "s.1", "s.2"]
        for round in 0..<2_000 {
            let target = stacks[next(stacks.count)]
            let id = "v.\(next(40))"
            let command: NavigationCommand
            switch next(7) {
            case 0, 1: command = .push(screen(id, next(30)), onto: target)
            case 2: command = .pop(stack: target)
            case 3: command = .present(screen(stacks[1 + next(3)].rawValue, 0, kind: .stack), over: PresentableID(id))
            case 4: command = .dismiss(presentedOver: PresentableID(id))
            case 5: command = .setStack(target, (0..<next(4)).map { _ in screen("v.\(next(40))", next(30)) })
            default: command = .popToRoot(stack: target)
            }
            _ = try? model.apply(command)
            if round % 97 == 0 { model.remove(PresentableID(id)) }
            #expect(model.estimatedBytes == walked(model), "round \(round): \(command)")
        }
        #expect(model.count > 5, "the run built something")
    }

    @Test func aModelReadBackCountsAsItCounted() throws {
        var model = PresentationModel()
        _ = try model.apply(.setRoot(screen("app", 0, kind: .stack)))
        for n in 1...20 { _ = try model.apply(.push(screen("page.\(n)", n), onto: "app")) }
        _ = try model.apply(.present(.alert("confirm", message: "Sure?"), over: "page.20"))
        let saved = try JSONEncoder().encode(model)
        // Read by `Codable` (`1.0` comes back as `1`), and from its saved screens as a daemon's recovery reads them.
        let decoded = try JSONDecoder().decode(PresentationModel.self, from: saved)
        let fromScreens = try #require(PresentationModel(saved: model.savedScreens, root: model.rootID))
        #expect(model.estimatedBytes == walked(model))
        for read in [decoded, fromScreens] {
            #expect(read.presentables == model.presentables)
            #expect(read.estimatedBytes == model.estimatedBytes)
        }
    }
}
