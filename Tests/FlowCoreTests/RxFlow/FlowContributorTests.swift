import FlowCore
import Testing

/// RxFlow 2.13.2 `RxFlowTests/FlowContributorTests.swift` (test 35 of `rxflow-semantics.md` §2), translated.
struct FlowContributorTests {
    /// A screen that is its own stepper (RxFlow: a view controller that is a `Stepper`).
    private final class SteppingScreen: Presentable, Stepper {
        let presentableID: PresentableID
        let steps = StepRelay()

        init(_ id: PresentableID) { presentableID = id }
    }

    @Test(
        "RxFlow #35 testContributeWithNext_returnsContributeWithNextPresentable_andNextStepper: same object, no flags"
    )
    func contributeWithNextReturnsContributeWithNextPresentableAndNextStepper() throws {
        let screen = SteppingScreen("screen")

        let contributor = FlowContributor.contribute(withNext: screen)

        guard case .contribute(let presentable, let stepper, let notPresented, let dismissed) = contributor else {
            Issue.record("expected .contribute, got \(contributor)")
            return
        }
        #expect(presentable.presentableID == screen.presentableID)
        #expect((presentable as? SteppingScreen) === screen)
        #expect(stepper === screen)
        #expect(notPresented == false)
        #expect(dismissed == false)

        // The coordinator attaches that object's stepper on that object's presentable, with the default flags.
        let driver = MachineDriver()
        let flow = TestFlow("TestFlow") { _, _ in .one(flowContributor: contributor) }
        let log = try driver.coordinate(flow: flow)
        #expect(log.contains("attach att#2 SteppingScreen on screen (contributor)"))
        let attachments = driver.machine.attachments(on: screen.presentableID)
        #expect(attachments.map(\.id) == [AttachmentID(2)])
        #expect(attachments.first?.stepper === screen)
        #expect(attachments.first?.allowStepWhenNotPresented == false)
        #expect(attachments.first?.allowStepWhenDismissed == false)
    }
}
