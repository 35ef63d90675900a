import FlowCore
import Testing

/// Same inputs in the same order, same actions and same tree: what makes the core recoverable by replaying a journal.
struct DeterminismTests {
    /// A journey as data: every input of a session, with the IDs the machine hands out (they are deterministic).
    private static let journey: [CoordinatorInput] = [
        .visibilityChanged("app.tabs", visible: true),
        .visibilityChanged("wish.list", visible: true),
        .stepperEmitted(AttachmentID(4), Step("pick", payload: 23452)),
        .stepperEmitted(AttachmentID(6), Step("fetch")),
        .stepperEmitted(AttachmentID(6), Step("rate")),
        .adaptCompleted(AdaptRequestID(2), Step("rated")),
        .adaptCompleted(AdaptRequestID(1), Step("fetched", payload: ["title": "Heat"])),
        .stepperEmitted(AttachmentID(4), Step("settings")),
        .stepperEmitted(AttachmentID(8), Step("done")),
        .dismissed("wish.detail"),
        .stepperEmitted(AttachmentID(6), Step("afterDismissal")),
        .deepLink(Step("about")),
        .visibilityChanged("watch.list", visible: true),
        .stepperEmitted(AttachmentID(5), Step("watched")),
        .stepperEmitted(AttachmentID(4), Step("fetch")),
        .presentablesLost(["wish.list"]),
        .stepperEmitted(AttachmentID(4), Step("whileLost")),
        .adaptCompleted(AdaptRequestID(3), nil),
        .dismissed("About.root"),
        .deepLink(Step("home")),
    ]

    /// Fresh flows for the journey: a tab bar of two flows, a detail screen, an async adaptation, a settings flow
    /// that ends, an about flow opened by a deep link.
    private static func makeRootFlow() -> ScenarioFlow {
        let app = ScenarioFlow("App", root: .tabs("app.tabs"))
        let wishlist = ScenarioFlow("Wishlist")
        let watched = ScenarioFlow("Watched")
        let settings = ScenarioFlow("Settings")
        let about = ScenarioFlow("About")
        app.on("boot") { _, navigator in
            Flows.use(wishlist, watched, when: .created, in: navigator) { navigator in
                navigator.setTabs("app.tabs", [wishlist.root, watched.root])
            }
            Flows.use(wishlist, watched, when: .ready, in: navigator) { navigator in
                navigator.selectTab("app.tabs", index: 0)
            }
            return .multiple(
                Contribute.flow(wishlist, OneStepper(withSingleStep: Step("list"))),
                Contribute.flow(watched, OneStepper(withSingleStep: Step("list")))
            )
        }
        app.on("about") { _, navigator in
            navigator.present(about.root, over: "app.tabs")
            return .one(flowContributor: Contribute.flow(about, OneStepper(withSingleStep: Step("intro"))))
        }
        wishlist.adaptation = { step in
            switch step.name {
            case "fetch", "rate": return .later { step }
            default: return .step(step)
            }
        }
        wishlist.on("list") { _, navigator in
            navigator.push(.view("wish.list", type: "WishlistList"), onto: "Wishlist.root")
            return .one(flowContributor: Contribute.screen("wish.list", ScenarioStepper("list", initial: "loaded")))
        }
        wishlist.on("pick") { step, navigator in
            navigator.push(.view("wish.detail", type: "MovieDetail", data: step.payload), onto: "Wishlist.root")
            return .multiple(
                Contribute.screen("wish.detail", ScenarioStepper("detail", initial: "shown"), notPresented: true),
                .forwardToCurrentFlow(withStep: Step("picked"))
            )
        }
        wishlist.on("settings") { _, navigator in
            navigator.present(settings.root, over: "Wishlist.root")
            return .one(flowContributor: Contribute.flow(settings, OneStepper(withSingleStep: Step("start"))))
        }
        wishlist.on("settingsDone") { _, navigator in
            navigator.dismiss(presentedOver: "Wishlist.root")
            return .none
        }
        watched.on("list") {
            .one(flowContributor: Contribute.screen("watch.list", ScenarioStepper("watchList")))
        }
        settings.on("start") {
            .one(flowContributor: Contribute.screen("settings.form", ScenarioStepper("form"), notPresented: true))
        }
        settings.on("done") { .end(forwardToParentFlowWithStep: Step("settingsDone")) }
        return app
    }

    /// Runs the journey on a fresh machine: the action lines and the tree after each input.
    private static func run() throws -> (log: [String], snapshots: [FlowTreeSnapshot]) {
        var machine = FlowCoordinatorStateMachine()
        var log = try machine.coordinate(flow: makeRootFlow(), with: OneStepper(withSingleStep: Step("boot")))
            .map(\.description)
        var snapshots = [machine.snapshot()]
        for input in journey {
            log += machine.handle(input).map(\.description)
            snapshots.append(machine.snapshot())
        }
        return (log, snapshots)
    }

    @Test("Determinism: the same inputs on two fresh machines give the same actions and the same snapshots")
    func sameInputsSameOutputs() throws {
        let first = try Self.run()
        let second = try Self.run()

        #expect(first.log == second.log)
        #expect(first.snapshots == second.snapshots)

        // The journey does what it says (so the comparison above compares something).
        #expect(
            first.log.navigations == [
                "App: boot", "Wishlist: list", "Watched: list",
                "Wishlist: loaded",
                "Wishlist: pick(23452)", "Wishlist: shown", "Wishlist: picked",
                "Wishlist: rated", "Wishlist: fetched({\"title\":\"Heat\"})",
                "Wishlist: settings", "Settings: start",
                "Settings: done", "Wishlist: settingsDone",
                "App: about", "About: intro", "Wishlist: about", "Watched: about",
                "Watched: watched",
                "App: home", "Wishlist: home", "Watched: home",
            ]
        )
        #expect(
            first.log.only("drop", "end", "detach", "adapt") == [
                "adapt adapt#1 flow#2 fetch",
                "adapt adapt#2 flow#2 rate",
                "detach att#7 (flowEnded)",
                "detach att#8 (flowEnded)",
                "end flow#4 (ended)",
                "detach att#6 (presentableDismissed)",
                "drop afterDismissal reason=attachmentEnded att#6",
                "adapt adapt#3 flow#2 fetch",
                "drop whileLost reason=notVisible flow#2 att#4",
                "drop fetch reason=adaptFailed flow#2",
                "detach att#9 (flowEnded)",
                "end flow#5 (rootDismissed)",
            ]
        )
        #expect(first.snapshots.count == Self.journey.count + 1)
        #expect(first.snapshots.last?.allNodes.map(\.flow) == ["App", "Wishlist", "Watched"])
    }
}
