import FlowCore
import FlowDaemon
import FlowWire
import FlowdTesting
import Testing

/// A presenter killed right after the daemon told it to dismiss something never reports the dismissal, and a session
/// without a presenter has nobody to report it: what the session's own command removed is dismissed in the tree at
/// once (docs/SEMANTICS.md D18; RxFlow: a flow whose root is dismissed tears down its subtree), and the presenter's
/// own report of it later is not news.
struct UnreportedDismissalTests {
    let presenter = PeerAddress([1])
    let nextPresenter = PeerAddress([2])
    let operatorPeer = PeerAddress([3])

    private func flowNames(_ harness: DaemonHarness) -> [String] {
        harness.core.tree(of: "default")?.allNodes.map(\.flow) ?? []
    }

    @Test("What the session's commands removed is dismissed in the tree at once, before any presenter reports it")
    func commandRemovalsAreDismissedAtOnce() {
        let harness = DaemonHarness()
        harness.presenter(presenter, name: "tui")
        harness.hello(operatorPeer, .operator, name: "ops")
        harness.deepLink(operatorPeer, Step("openSettings"))
        #expect(flowNames(harness) == ["AppFlow", "SettingsFlow"])

        // AppFlow dismisses the settings modal; the presenter dies before it reports the dismissal.
        harness.deepLink(operatorPeer, Step("settingsClosed"), req: 3)
        #expect(harness.core.ui(of: "default")?.contains("settings") == false)
        #expect(flowNames(harness) == ["AppFlow"])
        harness.receive(.bye, from: presenter)

        harness.presenter(nextPresenter, name: "tui")
        #expect(flowNames(harness) == ["AppFlow"])
    }

    @Test("A dismissal the presenter reported is not reported again at the next snapshot sync")
    func reportedDismissalsAreNotRepeated() {
        let harness = DaemonHarness()
        harness.presenter(presenter, name: "tui")
        harness.hello(operatorPeer, .operator, name: "ops")
        harness.deepLink(operatorPeer, Step("openSettings"))
        harness.deepLink(operatorPeer, Step("settingsClosed"), req: 3)
        harness.report(presenter, [("settings", .dismissed), ("settings.list", .dismissed)])
        #expect(flowNames(harness) == ["AppFlow"])

        // SettingsFlow opens again under the same root ID; a snapshot sync must not dismiss the new one.
        harness.deepLink(operatorPeer, Step("openSettings"), req: 4)
        harness.receive(.bye, from: presenter)
        harness.presenter(nextPresenter, name: "tui")
        #expect(flowNames(harness) == ["AppFlow", "SettingsFlow"])
    }
}
