import FlowCore
import FlowWire
import Foundation
import Testing

/// A UI built by a sequence of commands.
struct UIScript: Sendable, CustomTestStringConvertible {
    let name: String
    let commands: [NavigationCommand]
    var testDescription: String { name }
}

private func view(_ id: PresentableID, _ data: JSONValue = nil) -> Screen { .view(id, type: "View", data: data) }

let uiScripts: [UIScript] = [
    UIScript(name: "empty window", commands: []),
    UIScript(name: "a single view", commands: [.setRoot(view("home", ["greeting": "hi"]))]),
    UIScript(
        name: "stack",
        commands: [
            .setRoot(.stack("app")), .push(view("a"), onto: "app"), .push(view("b", 2), onto: "app"),
            .push(view("c"), onto: "app"), .pop(stack: "app"),
        ]
    ),
    UIScript(
        name: "tabs with the last tab selected",
        commands: [
            .setRoot(.tabs("tabs")), .setTabs("tabs", [.stack("s0"), .stack("s1"), view("v2")], selected: 0),
            .push(view("l0"), onto: "s0"), .push(view("l1"), onto: "s1"), .push(view("m1"), onto: "s1"),
            .selectTab("tabs", index: 2),
        ]
    ),
    UIScript(
        name: "split",
        commands: [
            .setRoot(.split("split")), .showMaster("split", .stack("master")), .push(view("list"), onto: "master"),
            .showDetail("split", view("detail.1", ["movie": 1])), .showDetail("split", view("detail.2", ["movie": 2])),
        ]
    ),
    UIScript(
        name: "modal over a modal",
        commands: [
            .setRoot(.stack("app")), .push(view("home"), onto: "app"), .present(.stack("onboarding"), over: "app"),
            .push(view("login"), onto: "onboarding"),
            .present(.alert("alert", message: "Wrong password"), over: "login"),
        ]
    ),
    UIScript(
        name: "modal over a covered stack entry",
        commands: [
            .setRoot(.stack("app")), .push(view("a"), onto: "app"), .present(view("sheet"), over: "a"),
            .push(view("b"), onto: "app"),
        ]
    ),
    UIScript(
        name: "the movie demo's dashboard",
        commands: [
            .setRoot(.stack("app")), .push(.tabs("dashboard"), onto: "app"),
            .setTabs("dashboard", [.stack("wishlist"), .stack("watched"), .split("trending")], selected: 0),
            .push(.view("wishlist.list", type: "WishlistList"), onto: "wishlist"),
            .push(.view("wishlist.movie.23452", type: "MovieDetail", data: ["movie": 23452]), onto: "wishlist"),
            .push(.view("watched.list", type: "WatchedList"), onto: "watched"),
            .showMaster("trending", .view("trending.list", type: "TrendingList")),
            .showDetail("trending", .view("trending.movie.7", type: "MovieDetail", data: ["movie": 7])),
            .selectTab("dashboard", index: 2),
            .present(.stack("settings"), over: "dashboard"),
            .push(.view("settings.list", type: "SettingsList"), onto: "settings"),
            .present(.alert("about", message: "About"), over: "wishlist.movie.23452"),
            .setStack("watched", [.view("watched.list", type: "WatchedList"), view("watched.movie.3", 3)]),
            .dismiss(presentedOver: "dashboard"),
        ]
    ),
]

struct UISnapshotTests {
    private func model(_ script: UIScript) -> PresentationModel {
        var model = PresentationModel()
        let update = model.apply(script.commands)
        #expect(update.rejected.isEmpty, "\(update.rejected)")
        return model
    }

    @Test(arguments: uiScripts)
    func rebuildingASnapshotGivesAnEqualModel(_ script: UIScript) throws {
        let original = model(script)
        let (rebuilt, reports) = UISnapshot(original).makeModel()
        #expect(rebuilt == original, "\n\(original)\nrebuilt as\n\(rebuilt)")
        // Adopting the snapshot reports what is visible, in tree order, and nothing else.
        #expect(reports == original.visiblePresentables.map { .visibilityChanged($0, visible: true) })
    }

    @Test(arguments: uiScripts)
    func aSnapshotSurvivesTheWire(_ script: UIScript) throws {
        let original = model(script)
        let message = WireMessage.daemon(.snapshot(SnapshotMessage(session: "default", seq: 9, ui: UISnapshot(original))))
        let decoded = try WireCodec().decode(WireCodec().encode(message), from: .client)
        #expect(decoded == message)
        guard case .daemon(.snapshot(let snapshot)) = decoded else { return }
        #expect(snapshot.ui.makeModel().model == original)
    }

    @Test(arguments: uiScripts)
    func aSnapshotListsEveryScreenParentsFirst(_ script: UIScript) {
        let original = model(script)
        let snapshot = UISnapshot(original)
        #expect(snapshot.root == original.rootID)
        #expect(snapshot.screens.map(\.screen.id) == original.presentables)
        var seen: Set<PresentableID> = []
        for entry in snapshot.screens {
            switch entry.placement {
            case .window: #expect(entry.screen.id == snapshot.root)
            case .childOf(let parent), .presentedOver(let parent): #expect(seen.contains(parent), "\(entry.screen.id)")
            }
            seen.insert(entry.screen.id)
        }
    }

    @Test func theDashboardSnapshotHasTheContainerStateOfEveryScreen() throws {
        let snapshot = UISnapshot(model(uiScripts.last!))
        let byID = Dictionary(uniqueKeysWithValues: snapshot.screens.map { ($0.screen.id, $0) })
        #expect(snapshot.root == "app")
        #expect(byID["app"] == UISnapshot.Entry(screen: .stack("app"), placement: .window, children: ["dashboard"]))
        #expect(
            byID["dashboard"]
                == UISnapshot.Entry(
                    screen: .tabs("dashboard"), placement: .childOf("app"),
                    children: ["wishlist", "watched", "trending"],
                    selected: 2
                )
        )
        #expect(
            byID["trending"]
                == UISnapshot.Entry(
                    screen: .split("trending"), placement: .childOf("dashboard"), children: [], master: "trending.list",
                    detail: "trending.movie.7"
                )
        )
        #expect(
            byID["wishlist.movie.23452"]
                == UISnapshot.Entry(
                    screen: .view("wishlist.movie.23452", type: "MovieDetail", data: ["movie": 23452]),
                    placement: .childOf("wishlist"), presented: "about"
                )
        )
        #expect(byID["about"]?.placement == .presentedOver("wishlist.movie.23452"))
        #expect(byID["watched"]?.children == ["watched.list", "watched.movie.3"])
        #expect(byID["settings"] == nil)  // dismissed with its subtree
        #expect(byID["settings.list"] == nil)
    }

    @Test func theDocumentsSnapshotIsWhatTheCodecWritesForThatUI() throws {
        // § 6.2 shows the first two screens of a window with stack `app` holding tab bar `dashboard`.
        var ui = PresentationModel()
        _ = ui.apply([
            .setRoot(.stack("app")), .push(.tabs("dashboard"), onto: "app"),
            .setTabs("dashboard", [view("wishlist"), view("watched"), view("trending")], selected: 0),
        ])
        let example = try #require(documentExamples.first { $0.type == .snapshot })
        guard case .daemon(.snapshot(let documented)) = example.expected else { return }
        #expect(Array(UISnapshot(ui).screens.prefix(2)) == documented.ui.screens)
        #expect(UISnapshot(ui).root == documented.ui.root)
    }

    @Test func commandsRebuildParentsFirst() {
        let snapshot = UISnapshot(model(uiScripts[5]))  // modal over a modal
        #expect(
            snapshot.commands == [
                .setRoot(.stack("app")), .setStack("app", [view("home")]), .present(.stack("onboarding"), over: "app"),
                .setStack("onboarding", [view("login")]),
                .present(.alert("alert", message: "Wrong password"), over: "login"),
            ]
        )
    }

    @Test func aUserNavigationAfterTheSnapshotKeepsModelsInStep() throws {
        // A presenter that adopted a snapshot and then carries out the same commands as the daemon's model
        // ends with the same UI.
        var daemonSide = model(uiScripts[3])
        var presenterSide = UISnapshot(daemonSide).makeModel().model
        let more: [NavigationCommand] = [
            .selectTab("tabs", index: 1), .pop(stack: "s1"), .push(view("n1"), onto: "s1"),
        ]
        _ = daemonSide.apply(more)
        _ = presenterSide.apply(more)
        #expect(presenterSide == daemonSide)
    }
}
