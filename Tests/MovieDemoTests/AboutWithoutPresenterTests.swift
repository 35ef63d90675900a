import FlowCore
import FlowDaemon
import MovieDemo
import MovieVocabulary
import Testing

/// The demo reuses the screen ID `wishlist.about`: each About screen that a command closes ends its `ActionStepper`
/// at once, with or without a presenter to report it (docs/SEMANTICS.md D18).
struct AboutWithoutPresenterTests {
    /// The stepper attachments in the session's tree, on `presentable` or on anything.
    private func attachmentCount(_ system: InMemoryDemoSystem, on presentable: PresentableID? = nil) -> Int {
        let steppers = system.daemon.tree()?.allNodes.flatMap(\.steppers) ?? []
        return steppers.filter { presentable == nil || $0.presentable.id == presentable }.count
    }

    @Test func aboutOpenedAndClosedWithoutAPresenterLeavesNoStepperBehindAndDoneIsDeliveredOnce() throws {
        let system = RemoteDemoTests().onboardedSystem()
        system.presenter?.bye()
        let attachmentsBefore = attachmentCount(system)

        for _ in 0..<200 {
            system.deepLink(DemoStep.aboutIsRequired.step)  // every other one is adapted to the alert
            #expect(attachmentCount(system) <= attachmentsBefore + 1)
            system.deepLink(DemoStep.aboutIsComplete.step)
        }
        #expect(attachmentCount(system) == attachmentsBefore)
        #expect(attachmentCount(system, on: "wishlist.about") == 0)
        #expect(system.core.ui(of: "default")?.contains("wishlist.about") == false)

        system.connectPresenter()
        system.act(DemoAction.about, on: "wishlist.list")  // the 201st: the alert
        try system.dismiss("wishlist.alert")
        system.act(DemoAction.about, on: "wishlist.list")
        #expect(attachmentCount(system, on: "wishlist.about") == 1)
        #expect(system.presentation.isVisible("wishlist.about"))
        let start = system.didNavigate.count
        #expect(system.act(DemoAction.done, on: "wishlist.about") == 1)
        #expect(system.didNavigate.dropFirst(start) == ["did navigate flow=WishlistFlow step=aboutIsComplete"])
        #expect(!system.presentation.contains("wishlist.about"))
        #expect(attachmentCount(system) == attachmentsBefore)
    }
}
