import FlowCore
import FlowDaemon
import FlowWire
import FlowdTesting
import Testing

/// A tab bar `tabs` at the window's root with the tabs `one` and `two`, each with a `RemoteStepper` of its own kind;
/// the step `alert` presents the alert `oops` over the tab bar.
private struct TabsApplication: FlowApplication {
    func makeRoot(session: String) -> FlowRoot {
        FlowRoot(flow: TabsFlow(), stepper: OneStepper(withSingleStep: Step("start")))
    }
}

private final class TabsFlow: Flow {
    let root = Screen.tabs("tabs")

    func navigate(to step: Step, with navigator: Navigator) -> FlowContributors {
        switch step.name {
        case "start":
            let one = Screen.view("one", type: "One")
            let two = Screen.view("two", type: "Two")
            navigator.setRoot(root)
            navigator.setTabs("tabs", [one, two])
            return .multiple(
                .contribute(withNextPresentable: one, withNextStepper: RemoteStepper(kind: "one")),
                .contribute(withNextPresentable: two, withNextStepper: RemoteStepper(kind: "two"))
            )
        case "alert":
            navigator.present(.alert("oops", message: "Oops"), over: "tabs")
            return .none
        default:
            return .none
        }
    }
}

/// docs/PROTOCOL.md §6.5.1: a person navigates on the presenter; the daemon's UI model follows the reports.
struct PersonNavigationTests {
    /// The daemon with `tabs-service` serving `one` and `two` (attachments 2 and 3) and `tui` showing tab one.
    private func tabsShown() -> DaemonHarness {
        let h = DaemonHarness(application: TabsApplication())
        h.hello(Peers.movies, .stepper, name: "tabs-service", serves: ["one", "two"])
        h.presenter(Peers.tui, name: "tui")
        h.report(Peers.tui, [("tabs", .visible), ("one", .visible)])
        return h
    }

    private func tabsEntry(_ h: DaemonHarness) -> UISnapshot.Entry? {
        h.core.ui(of: "default").flatMap { UISnapshot($0).screens.first { $0.screen.id == "tabs" } }
    }

    @Test func selectingATabMovesTheSnapshotsSelectionAndTheVisibilityGate() {
        let h = tabsShown()
        let seq = h.core.seq(of: "default")
        #expect(tabsEntry(h)?.selected == 0)
        #expect(h.step(Peers.movies, Step("noop"), attachment: 3, req: 4).to(Peers.movies) == [ok(4, dropped("notVisible"))])
        // The person selects tab two: one hidden, two visible.
        #expect(h.report(Peers.tui, [("one", .hidden), ("two", .visible)], req: 5).sent == [Delivery(Peers.tui, ok(5))])
        #expect(tabsEntry(h)?.selected == 1)
        #expect(h.step(Peers.movies, Step("noop"), attachment: 3, req: 6).to(Peers.movies).last == ok(6, accepted))
        #expect(h.step(Peers.movies, Step("noop"), attachment: 2, req: 7).to(Peers.movies) == [ok(7, dropped("notVisible"))])
        #expect(h.core.seq(of: "default") == seq, "a person's navigation sequences no command")
    }

    @Test func theDaemonAcceptsReportsThatDisagreeAndTheLastTabReportedVisibleIsSelected() {
        let h = tabsShown()
        #expect(h.report(Peers.tui, [("two", .visible)], req: 5).sent == [Delivery(Peers.tui, ok(5))])
        #expect(tabsEntry(h)?.selected == 1)
        // Both tabs now count as visible: each one's stepper is heard.
        #expect(h.step(Peers.movies, Step("noop"), attachment: 2, req: 6).to(Peers.movies).last == ok(6, accepted))
        #expect(h.step(Peers.movies, Step("noop"), attachment: 3, req: 7).to(Peers.movies).last == ok(7, accepted))
    }

    @Test func closingAnAlertTakesItOutOfTheSnapshotAndUncoversWhatItHid() {
        let h = tabsShown()
        let seq = h.core.seq(of: "default") ?? 0
        let alert = h.step(Peers.movies, Step("alert"), attachment: 2, req: 4)
        #expect(alert.to(Peers.tui) == [command(seq + 1, .present(.alert("oops", message: "Oops"), over: "tabs"))])
        #expect(tabsEntry(h)?.presented == "oops")
        // The alert covers the tab bar and what it shows.
        h.report(Peers.tui, [("tabs", .hidden), ("one", .hidden), ("oops", .visible)], req: 5)
        #expect(h.step(Peers.movies, Step("noop"), attachment: 2, req: 6).to(Peers.movies) == [ok(6, dropped("notVisible"))])
        // The person closes it: dismissed, and what it covered is visible again.
        #expect(
            h.report(Peers.tui, [("oops", .dismissed), ("tabs", .visible), ("one", .visible)], req: 7).sent
                == [Delivery(Peers.tui, ok(7))])
        #expect(tabsEntry(h)?.presented == nil)
        #expect(h.core.ui(of: "default")?.presentables == ["tabs", "one", "two"])
        #expect(h.step(Peers.movies, Step("noop"), attachment: 2, req: 8).to(Peers.movies).last == ok(8, accepted))
        // Gone from the UI, the alert can no longer be reported visible.
        #expect(
            h.report(Peers.tui, [("oops", .visible)], req: 9).sent
                == [Delivery(Peers.tui, refused(9, .unknownPresentable, .report))])
    }
}
