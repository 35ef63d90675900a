import FlowCore
import Testing

/// `carryOut` (the daemon's way of keeping a session's UI) changes the model as `apply` does and returns what left
/// the UI, without working out visibility.
@Suite struct PresentationModelCarryOutTests {
    /// Every kind of command, refused ones among them, on a UI with a stack, tabs, a split and modals.
    static let commands: [NavigationCommand] = [
        .setRoot(.stack("nav")),
        .push(.view("list", type: "List"), onto: "nav"),
        .push(.view("detail", type: "Detail", data: 7), onto: "nav"),
        .push(.view("detail", type: "Detail"), onto: "nav"),
        .present(.tabs("tabs"), over: "detail"),
        .setTabs("tabs", [.stack("a"), .stack("b"), .split("s")], selected: 2),
        .showMaster("s", .view("m", type: "M")),
        .showDetail("s", .view("d", type: "D")),
        .showDetail("s", .view("d2", type: "D")),
        .push(.view("a1", type: "A"), onto: "a"),
        .selectTab("tabs", index: 0),
        .selectTab("tabs", index: 5),
        .setTabs("tabs", [.stack("a")], selected: 0),
        .present(.alert("alert", message: "Hi"), over: "a1"),
        .setStack("nav", [.view("list", type: "List"), .view("other", type: "Other")]),
        .pop(stack: "nav"),
        .pop(stack: "missing"),
        .popToRoot(stack: "nav"),
        .dismiss(presentedOver: "nav"),
        .setRoot(.stack("fresh")),
    ]

    @Test func carryingOutChangesTheModelAsApplyingAndReturnsItsDismissals() {
        var applied = PresentationModel()
        var carried = PresentationModel()
        var refused = 0
        for command in Self.commands {
            let reports = Result { () throws(PresentationError) in try applied.apply(command) }
            let removed = Result { () throws(PresentationError) in try carried.carryOut(command) }
            switch (reports, removed) {
            case (.success(let reports), .success(let removed)):
                let dismissed = reports.compactMap { report -> PresentableID? in
                    if case .dismissed(let id) = report { id } else { nil }
                }
                #expect(removed == dismissed, "\(command)")
            case (.failure(let applyError), .failure(let carryError)):
                #expect(applyError == carryError, "\(command)")
                refused += 1
            default:
                Issue.record("apply and carryOut disagree on \(command)")
            }
            #expect(carried == applied, "\(command)")
        }
        #expect(refused == 3)
    }
}
