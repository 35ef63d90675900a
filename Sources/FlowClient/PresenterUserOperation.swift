public import FlowCore

/// Something a person did in the presenter's UI, not asked for by the daemon.
public enum PresenterUserOperation: Sendable, Hashable, CustomStringConvertible {
    /// The back button of a stack: its top child is popped.
    case tapBack(stack: PresentableID)
    /// A tab of a tab bar was selected.
    case selectTab(Int, tabs: PresentableID)
    /// A modal was closed.
    case dismiss(modal: PresentableID)

    public var description: String {
        switch self {
        case .tapBack(let stack): return "tap back in \(stack)"
        case .selectTab(let index, let tabs): return "select tab \(index) of \(tabs)"
        case .dismiss(let modal): return "dismiss \(modal)"
        }
    }
}
