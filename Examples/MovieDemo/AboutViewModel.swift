import FlowCore
import MovieVocabulary

/// The About screen, presentable and stepper at once (RxFlowDemo's `SettingsAboutViewController`): its Done button
/// emits `aboutIsComplete`.
public final class AboutViewModel: Stepper, Presentable, CustomStringConvertible {
    public let steps = StepRelay()
    public let presentableID: PresentableID

    /// The About screen shown as `presentableID`.
    public init(presentableID: PresentableID) {
        self.presentableID = presentableID
    }

    /// The Done button: `aboutIsComplete`.
    public func done() { steps.accept(DemoStep.aboutIsComplete) }

    public var description: String { "AboutViewModel" }
}
