@testable import FlowCore
import Testing

private func view(_ id: PresentableID) -> Screen { .view(id, type: "View") }
private func shown(_ id: PresentableID) -> CoordinatorInput { .visibilityChanged(id, visible: true) }
private func hidden(_ id: PresentableID) -> CoordinatorInput { .visibilityChanged(id, visible: false) }
private func gone(_ id: PresentableID) -> CoordinatorInput { .dismissed(id) }

/// A window with a stack "nav" showing "a" then "b" (top), all visible.
private func stackWindow() throws -> PresentationModel {
    var model = PresentationModel()
    _ = try model.apply(.setRoot(.stack("nav")))
    _ = try model.apply(.push(view("a"), onto: "nav"))
    _ = try model.apply(.push(view("b"), onto: "nav"))
    return model
}

/// A window with tab bar "tabs": tab 0 stack "s0" with "l0", tab 1 stack "s1" with "l1"; tab 0 selected.
private func tabsWindow() throws -> PresentationModel {
    var model = PresentationModel()
    _ = try model.apply(.setRoot(.tabs("tabs")))
    _ = try model.apply(.setTabs("tabs", [.stack("s0"), .stack("s1")], selected: 0))
    _ = try model.apply(.push(view("l0"), onto: "s0"))
    _ = try model.apply(.push(view("l1"), onto: "s1"))
    return model
}

struct PresentationModelTests {
    // MARK: - setRoot

    @Test func setRootOnAnEmptyWindowReportsTheRootVisible() throws {
        var model = PresentationModel()
        #expect(try model.apply(.setRoot(.stack("nav"))) == [shown("nav")])
        #expect(model.rootID == "nav")
        #expect(model.visiblePresentables == ["nav"])
    }

    @Test func setRootWithANewRootDismissesTheOldTreeAndShowsTheNewRoot() throws {
        var model = try stackWindow()
        _ = try model.apply(.present(view("m"), over: "a"))
        let reports = try model.apply(.setRoot(view("home")))
        #expect(reports == [gone("nav"), gone("a"), gone("m"), gone("b"), shown("home")])
        #expect(model.presentables == ["home"])
    }

    @Test func setRootWithTheCurrentRootKeepsItsSubtree() throws {
        var model = try stackWindow()
        #expect(try model.apply(.setRoot(.stack("nav"))) == [])
        #expect(model.children(of: "nav") == ["a", "b"])
    }

    // MARK: - Stacks

    @Test func pushHidesTheOldTopAndShowsTheNewTop() throws {
        var model = try stackWindow()
        #expect(try model.apply(.push(view("c"), onto: "nav")) == [hidden("b"), shown("c")])
        #expect(model.visiblePresentables == ["nav", "c"])
    }

    @Test func pushOntoAStackInAHiddenTabReportsNothing() throws {
        var model = try tabsWindow()
        #expect(try model.apply(.push(view("d1"), onto: "s1")) == [])
        #expect(model.children(of: "s1") == ["l1", "d1"])
    }

    @Test func pushOfAContainerShowsItAndItsShownChildren() throws {
        var model = try stackWindow()
        _ = try model.apply(.push(.tabs("inner"), onto: "nav"))
        #expect(try model.apply(.setTabs("inner", [view("p0"), view("p1")], selected: 1)) == [shown("p1")])
    }

    @Test func popDismissesTheTopWithItsSubtreeAndShowsThePreviousChild() throws {
        var model = try stackWindow()
        _ = try model.apply(.push(.stack("child"), onto: "nav"))
        _ = try model.apply(.push(view("c1"), onto: "child"))
        _ = try model.apply(.present(.alert("alert", message: "Hi"), over: "c1"))
        #expect(try model.apply(.pop(stack: "nav")) == [gone("child"), gone("c1"), gone("alert"), shown("b")])
        #expect(model.visiblePresentables == ["nav", "b"])
    }

    @Test func popOfAStackWithOneChildChangesNothing() throws {
        var model = PresentationModel()
        _ = try model.apply(.setRoot(.stack("nav")))
        _ = try model.apply(.push(view("a"), onto: "nav"))
        #expect(try model.apply(.pop(stack: "nav")) == [])
        #expect(model.children(of: "nav") == ["a"])
    }

    @Test func popToRootDismissesEveryChildAboveTheFirstBottomToTop() throws {
        var model = try stackWindow()
        _ = try model.apply(.push(view("c"), onto: "nav"))
        #expect(try model.apply(.popToRoot(stack: "nav")) == [gone("b"), gone("c"), shown("a")])
        #expect(model.children(of: "nav") == ["a"])
    }

    @Test func setStackKeepsChildrenStillListedAndDismissesTheOthers() throws {
        var model = try stackWindow()
        _ = try model.apply(.present(view("m"), over: "a"))
        let reports = try model.apply(.setStack("nav", [view("a"), view("c")]))
        #expect(reports == [gone("b"), shown("c")])
        #expect(model.children(of: "nav") == ["a", "c"])
        #expect(model.presented(over: "a") == "m")
    }

    /// D21: the kept presentable takes the command's type and data (what a presenter shows), keeps its subtree and
    /// is not reported; a different kind is not taken. The byte count follows.
    @Test func aScreenKeptInPlaceTakesTheCommandsTypeAndData() throws {
        var model = try stackWindow()
        _ = try model.apply(.present(view("m"), over: "b"))
        let item = Screen.view("b", type: "Item", data: "2 the second payload")
        #expect(try model.apply(.setStack("nav", [view("a"), item])) == [])
        #expect(model.screen("b") == item)
        #expect(model.presented(over: "b") == "m")
        #expect(try model.apply(.setStack("nav", [view("a"), .view("b", type: "Item", data: "3")])) == [])
        #expect(model.screen("b")?.data == "3")
        // Above, the same children in the same order; a reordering takes it too (and reports the new top).
        _ = try model.apply(.setStack("nav", [.view("b", type: "Item", data: "4"), view("a")]))
        #expect(model.screen("b")?.data == "4")
        #expect(try model.apply(.setRoot(Screen(id: "nav", kind: .stack, type: "Main", data: .null))) == [])
        #expect(model.screen("nav")?.type == "Main")
        #expect(model.children(of: "nav") == ["b", "a"])
        // Another kind is not taken: "a" stays a view.
        _ = try model.apply(.setStack("nav", [.view("b", type: "Item", data: "4"), .stack("a")]))
        #expect(model.screen("a") == view("a"))
        #expect(model.estimatedBytes == model.presentables.reduce(0) { $0 + model.screen($1)!.estimatedBytes })
        var split = PresentationModel()
        _ = try split.apply(.setRoot(.split("split")))
        _ = try split.apply(.showDetail("split", .view("d", type: "Detail", data: 1)))
        #expect(try split.apply(.showDetail("split", .view("d", type: "Detail", data: 2))) == [])
        #expect(split.screen("d")?.data == 2)
    }

    /// D21 with the children's nodes out of their order (a removal moves the last node into its place): each kept
    /// child still takes its own data, whatever where its node sits.
    @Test func reListedChildrenTakeTheirOwnDataWhereverTheirNodesAre() throws {
        var model = PresentationModel()
        _ = try model.apply(.setRoot(.stack("nav")))
        _ = try model.apply(.setStack("nav", [view("a"), view("x"), view("b"), view("c")]))
        _ = try model.apply(.setStack("nav", [view("a"), view("b"), view("c")]))
        func listed(_ data: Int) -> [Screen] {
            ["a", "b", "c"].enumerated().map { .view($1, type: "Item", data: .int(data + $0)) }
        }
        #expect(try model.apply(.setStack("nav", listed(10))) == [])
        #expect(["a", "b", "c"].map { model.screen($0)?.data } == [10, 11, 12])
        #expect(try model.apply(.setStack("nav", listed(20))) == [])
        #expect(["a", "b", "c"].map { model.screen($0)?.data } == [20, 21, 22])
        #expect(model.children(of: "nav") == ["a", "b", "c"])
        #expect(model.estimatedBytes == model.presentables.reduce(0) { $0 + model.screen($1)!.estimatedBytes })
    }

    // MARK: - Modals

    @Test func presentCoversThePresenterAndEverythingUnderIt() throws {
        var model = try tabsWindow()
        let reports = try model.apply(.present(.stack("modal"), over: "tabs"))
        #expect(reports == [hidden("tabs"), hidden("s0"), hidden("l0"), shown("modal")])
        #expect(model.visiblePresentables == ["modal"])
    }

    @Test func presentOverAChildLeavesItsSiblingsAndContainersVisible() throws {
        var model = PresentationModel()
        _ = try model.apply(.setRoot(.split("split")))
        _ = try model.apply(.showMaster("split", view("master")))
        _ = try model.apply(.showDetail("split", view("detail")))
        #expect(try model.apply(.present(view("sheet"), over: "detail")) == [hidden("detail"), shown("sheet")])
        #expect(model.visiblePresentables == ["split", "master", "sheet"])
    }

    @Test func presentOverAHiddenPresentableIsNotVisible() throws {
        var model = try tabsWindow()
        #expect(try model.apply(.present(view("m1"), over: "l1")) == [])
        #expect(!model.isVisible("m1"))
        #expect(try model.apply(.selectTab("tabs", index: 1)) == [hidden("s0"), hidden("l0"), shown("s1"), shown("m1")])
    }

    @Test func aModalOverAnAncestorHidesAModalPresentedDeeper() throws {
        var model = try stackWindow()
        _ = try model.apply(.present(view("inner"), over: "b"))
        let reports = try model.apply(.present(view("outer"), over: "nav"))
        #expect(reports == [hidden("nav"), hidden("inner"), shown("outer")])
        #expect(try model.apply(.dismiss(presentedOver: "nav")) == [gone("outer"), shown("nav"), shown("inner")])
    }

    @Test func modalsPresentedOverModalsStack() throws {
        var model = try stackWindow()
        _ = try model.apply(.present(.stack("sheet"), over: "nav"))
        let reports = try model.apply(.present(.alert("alert", message: "Sure?"), over: "sheet"))
        #expect(reports == [hidden("sheet"), shown("alert")])
        #expect(model.visiblePresentables == ["alert"])
    }

    @Test func dismissRemovesThePresentedChainAndShowsThePresenterAgain() throws {
        var model = try stackWindow()
        _ = try model.apply(.present(.stack("sheet"), over: "nav"))
        _ = try model.apply(.push(view("page"), onto: "sheet"))
        _ = try model.apply(.present(.alert("alert", message: "Sure?"), over: "page"))
        let reports = try model.apply(.dismiss(presentedOver: "nav"))
        #expect(reports == [gone("sheet"), gone("page"), gone("alert"), shown("nav"), shown("b")])
        #expect(model.presented(over: "nav") == nil)
    }

    @Test func dismissWithNothingPresentedChangesNothingAndIsNoError() throws {
        var model = try stackWindow()
        #expect(try model.apply(.dismiss(presentedOver: "nav")) == [])
    }

    @Test func presentOverAPresenterThatAlreadyPresentsIsRefused() throws {
        var model = try stackWindow()
        _ = try model.apply(.present(view("m"), over: "b"))
        let before = model
        #expect(throws: PresentationError.alreadyPresenting("b", presented: "m")) {
            try model.apply(.present(view("n"), over: "b"))
        }
        #expect(model == before)
    }

    @Test func anAlertIsAModal() throws {
        var model = try stackWindow()
        #expect(try model.apply(.present(.alert("alert", message: "Hi"), over: "b")) == [hidden("b"), shown("alert")])
        #expect(model.placement(of: "alert") == .presented(over: "b"))
    }

    // MARK: - Tabs

    @Test func setTabsShowsTheSelectedTabOnly() throws {
        var model = PresentationModel()
        _ = try model.apply(.setRoot(.tabs("tabs")))
        let reports = try model.apply(.setTabs("tabs", [.stack("s0"), .stack("s1"), .stack("s2")], selected: 1))
        #expect(reports == [shown("s1")])
        #expect(model.selectedTab(of: "tabs") == 1)
    }

    @Test func setTabsKeepsTabsStillListedAndDismissesTheOthers() throws {
        var model = try tabsWindow()
        let reports = try model.apply(.setTabs("tabs", [.stack("s1"), .stack("s2")], selected: 0))
        #expect(reports == [gone("s0"), gone("l0"), shown("s1"), shown("l1")])
        #expect(model.children(of: "s1") == ["l1"])
    }

    @Test func setTabsWithTheSelectedIndexOutOfRangeIsRefused() throws {
        var model = try tabsWindow()
        let before = model
        #expect(throws: PresentationError.tabOutOfRange("tabs", index: 2, count: 2)) {
            try model.apply(.setTabs("tabs", [.stack("s0"), .stack("s1")], selected: 2))
        }
        #expect(model == before)
    }

    @Test func selectTabHidesTheOldTabAndShowsTheNewOne() throws {
        var model = try tabsWindow()
        #expect(try model.apply(.selectTab("tabs", index: 1)) == [hidden("s0"), hidden("l0"), shown("s1"), shown("l1")])
        #expect(try model.apply(.selectTab("tabs", index: 1)) == [])
    }

    @Test func selectTabOutOfRangeIsRefused() throws {
        var model = try tabsWindow()
        #expect(throws: PresentationError.tabOutOfRange("tabs", index: 5, count: 2)) {
            try model.apply(.selectTab("tabs", index: 5))
        }
    }

    // MARK: - Split views

    @Test func showMasterAndShowDetailAreBothVisible() throws {
        var model = PresentationModel()
        _ = try model.apply(.setRoot(.split("split")))
        #expect(try model.apply(.showMaster("split", .stack("master"))) == [shown("master")])
        #expect(try model.apply(.showDetail("split", view("login"))) == [shown("login")])
        #expect(model.visiblePresentables == ["split", "master", "login"])
    }

    @Test func showDetailReplacesTheDetailAndDismissesTheOldOne() throws {
        var model = PresentationModel()
        _ = try model.apply(.setRoot(.split("split")))
        _ = try model.apply(.showMaster("split", .stack("master")))
        _ = try model.apply(.push(view("list"), onto: "master"))
        _ = try model.apply(.showDetail("split", view("login")))
        #expect(try model.apply(.showDetail("split", view("about"))) == [gone("login"), shown("about")])
        #expect(try model.apply(.showDetail("split", view("about"))) == [])
        #expect(try model.apply(.showMaster("split", view("other"))) == [gone("master"), gone("list"), shown("other")])
        #expect(model.children(of: "split") == ["other", "about"])
    }

    // MARK: - Mistakes

    @Test func commandsForAContainerThatDoesNotExistAreRefusedWithoutChange() throws {
        var model = try stackWindow()
        let before = model
        let commands: [NavigationCommand] = [
            .push(view("x"), onto: "ghost"), .pop(stack: "ghost"), .popToRoot(stack: "ghost"),
            .setStack("ghost", [view("x")]), .present(view("x"), over: "ghost"), .dismiss(presentedOver: "ghost"),
            .setTabs("ghost", [view("x")], selected: 0), .selectTab("ghost", index: 0),
            .showMaster("ghost", view("x")), .showDetail("ghost", view("x")),
        ]
        for command in commands {
            #expect(throws: PresentationError.unknownTarget("ghost")) { try model.apply(command) }
        }
        #expect(model == before)
    }

    @Test func commandsForTheWrongKindOfContainerAreRefused() throws {
        var model = try stackWindow()
        #expect(throws: PresentationError.wrongKind("nav", expected: .tabs, found: .stack)) {
            try model.apply(.selectTab("nav", index: 0))
        }
        #expect(throws: PresentationError.wrongKind("a", expected: .stack, found: .view)) {
            try model.apply(.push(view("x"), onto: "a"))
        }
        #expect(throws: PresentationError.wrongKind("nav", expected: .split, found: .stack)) {
            try model.apply(.showDetail("nav", view("x")))
        }
    }

    @Test func aScreenAlreadyInTheUIElsewhereIsRefused() throws {
        var model = try tabsWindow()
        let before = model
        #expect(throws: PresentationError.alreadyShown("l0")) { try model.apply(.push(view("l0"), onto: "s1")) }
        #expect(throws: PresentationError.alreadyShown("l0")) { try model.apply(.setStack("s1", [view("l0")])) }
        #expect(throws: PresentationError.alreadyShown("x")) {
            try model.apply(.setStack("s1", [view("x"), view("x")]))
        }
        #expect(throws: PresentationError.alreadyShown("s0")) { try model.apply(.setRoot(.stack("s0"))) }
        #expect(model == before)
    }

    @Test func aBatchCarriesOutTheValidCommandsListsTheRejectedOnesAndReportsTheNetChange() throws {
        var model = try stackWindow()
        let update = model.apply([
            .push(view("c"), onto: "nav"),
            .push(view("x"), onto: "ghost"),
            .push(view("d"), onto: "nav"),
        ])
        #expect(update.reports == [hidden("b"), shown("d")])
        #expect(update.rejected == [.init(command: .push(view("x"), onto: "ghost"), error: .unknownTarget("ghost"))])
        #expect(model.children(of: "nav") == ["a", "b", "c", "d"])
    }

    @Test func aBatchReportsAScreenRemovedAndShownAgainAsDismissedThenVisible() throws {
        var model = try stackWindow()
        let update = model.apply([.pop(stack: "nav"), .push(view("b"), onto: "nav")])
        #expect(update.reports == [gone("b"), shown("b")])
        #expect(update.rejected.isEmpty)
    }

    @Test func aBatchPushedAndCoveredInTheSameTurnIsNeverReportedVisible() throws {
        var model = try stackWindow()
        let update = model.apply([.push(view("c"), onto: "nav"), .present(view("m"), over: "nav")])
        #expect(update.reports == [hidden("nav"), hidden("b"), shown("m")])
    }

    // MARK: - User operations

    @Test func theBackButtonPopsTheTopOfAVisibleStack() throws {
        var model = try stackWindow()
        #expect(try model.userTapsBack(in: "nav") == [gone("b"), shown("a")])
        #expect(throws: PresentationError.nothingToGoBackTo("nav")) { try model.userTapsBack(in: "nav") }
    }

    @Test func theBackButtonOfAStackThatIsNotOnScreenCannotBeTapped() throws {
        var model = try tabsWindow()
        _ = try model.apply(.push(view("d1"), onto: "s1"))
        #expect(throws: PresentationError.notVisible("s1")) { try model.userTapsBack(in: "s1") }
        #expect(throws: PresentationError.unknownTarget("ghost")) { try model.userTapsBack(in: "ghost") }
        #expect(throws: PresentationError.wrongKind("tabs", expected: .stack, found: .tabs)) {
            try model.userTapsBack(in: "tabs")
        }
    }

    @Test func theUserSelectsATab() throws {
        var model = try tabsWindow()
        #expect(try model.userSelectsTab(1, in: "tabs") == [hidden("s0"), hidden("l0"), shown("s1"), shown("l1")])
        #expect(throws: PresentationError.tabOutOfRange("tabs", index: 2, count: 2)) {
            try model.userSelectsTab(2, in: "tabs")
        }
        _ = try model.apply(.present(.alert("alert", message: "Hi"), over: "tabs"))
        #expect(throws: PresentationError.notVisible("tabs")) { try model.userSelectsTab(0, in: "tabs") }
    }

    @Test func theUserDismissesAVisibleModal() throws {
        var model = try stackWindow()
        _ = try model.apply(.present(.stack("sheet"), over: "b"))
        _ = try model.apply(.present(.alert("alert", message: "Hi"), over: "sheet"))
        #expect(throws: PresentationError.notVisible("sheet")) { try model.userDismisses("sheet") }
        #expect(throws: PresentationError.notPresented("b")) { try model.userDismisses("b") }
        #expect(throws: PresentationError.unknownTarget("ghost")) { try model.userDismisses("ghost") }
        #expect(try model.userDismisses("alert") == [gone("alert"), shown("sheet")])
        #expect(try model.userDismisses("sheet") == [gone("sheet"), shown("b")])
    }

    // MARK: - Queries and rendering

    @Test func theRenderingShowsTheTreeWithVisibilityMarkersAndRoles() throws {
        var model = PresentationModel()
        #expect(model.description == "(no window root)\n")
        _ = try model.apply(.setRoot(.stack("app")))
        _ = try model.apply(.push(.tabs("tabs"), onto: "app"))
        _ = try model.apply(.setTabs("tabs", [.stack("s0"), .split("split")], selected: 1))
        _ = try model.apply(.push(.view("movie", type: "MovieDetail", data: 23452), onto: "s0"))
        _ = try model.apply(.showMaster("split", view("master")))
        _ = try model.apply(.showDetail("split", view("detail")))
        _ = try model.apply(.present(.alert("alert", message: "Hi"), over: "split"))
        #expect(
            model.description == """
                * app (stack)
                  * tabs (tabs)
                    - [tab 0] s0 (stack)
                      - movie (MovieDetail 23452)
                    - [tab 1, selected] split (split)
                      - [master] master (View)
                      - [detail] detail (View)
                      * [modal] alert (alert "Hi")

                """
        )
        #expect(model.visiblePresentables == ["app", "tabs", "alert"])
        #expect(model.presentables == ["app", "tabs", "s0", "movie", "split", "master", "detail", "alert"])
    }

    @Test func reportsFedToTheStateMachineOpenAContributorsVisibilityGate() throws {
        final class ListFlow: Flow {
            let root = Screen.stack("nav")
            let stepper = RecordingStepper()
            func navigate(to step: Step, with navigator: Navigator) -> FlowContributors {
                guard step.name == "start" else { return .none }
                let list = Screen.view("list", type: "List")
                navigator.push(list, onto: root.id)
                return .one(flowContributor: .contribute(withNextPresentable: list, withNextStepper: stepper))
            }
        }
        var machine = FlowCoordinatorStateMachine()
        var model = PresentationModel()
        let actions = try machine.coordinate(flow: ListFlow(), with: OneStepper(withSingleStep: Step("start")))
        let commands = actions.compactMap { action -> NavigationCommand? in
            if case .command(let command, _) = action { return command }
            return nil
        }
        let attachment = try #require(machine.attachments(on: "list").first)
        let tap = CoordinatorInput.stepperEmitted(attachment.id, Step("tap"))
        #expect(machine.handle(tap).map(\.description) == ["drop tap reason=notVisible flow#1 att#2"])

        let update = model.apply(commands)
        #expect(update.reports == [shown("nav"), shown("list")])
        for report in update.reports { _ = machine.handle(report) }
        #expect(machine.handle(tap).map(\.description) == [
            "will navigate flow=ListFlow step=tap", "did navigate flow=ListFlow step=tap",
        ])
    }
}

private final class RecordingStepper: Stepper {
    let steps = StepRelay()
}
