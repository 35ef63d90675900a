/// A UI side effect of a navigation, as a value addressed to containers and screens.
///
/// A flow's `navigate(to:with:)` records these on its ``Navigator`` instead of calling a UI; the coordinator outputs
/// them in order, and a presenter (a process, or ``PresentationModel``) carries them out.
///
/// The cases that carry screens are `indirect`: a command is copied several times on its way from a flow to a presenter
/// (the coordinator's actions, a session's outbox, the message that sends it), and a copy of a boxed case is one
/// retain instead of one per string in its screens.
public enum NavigationCommand: Hashable, Sendable, Codable {
    /// Shows `screen` as the whole window's content (the root flow's root).
    indirect case setRoot(Screen)
    /// Pushes `screen` on top of the navigation stack `stack`.
    indirect case push(Screen, onto: PresentableID)
    /// Pops the top of the navigation stack `stack`.
    case pop(stack: PresentableID)
    /// Pops the navigation stack `stack` down to its first child.
    case popToRoot(stack: PresentableID)
    /// Replaces the children of the navigation stack `stack`.
    indirect case setStack(PresentableID, [Screen])
    /// Presents `screen` modally over `presenter`.
    indirect case present(Screen, over: PresentableID)
    /// Dismisses what is presented modally over `presenter`.
    case dismiss(presentedOver: PresentableID)
    /// Replaces the tabs of `tabs`, selecting the one at `selected`.
    indirect case setTabs(PresentableID, [Screen], selected: Int)
    /// Selects the tab at `index` of `tabs`.
    case selectTab(PresentableID, index: Int)
    /// Shows `screen` as the master of the split view `split`.
    indirect case showMaster(PresentableID, Screen)
    /// Shows `screen` as the detail of the split view `split`.
    indirect case showDetail(PresentableID, Screen)

    /// The container or screen the command is addressed to.
    public var target: PresentableID? {
        switch self {
        case .setRoot: return nil
        case .push(_, let stack), .pop(let stack), .popToRoot(let stack), .setStack(let stack, _): return stack
        case .present(_, let presenter), .dismiss(let presenter): return presenter
        case .setTabs(let tabs, _, _), .selectTab(let tabs, _): return tabs
        case .showMaster(let split, _), .showDetail(let split, _): return split
        }
    }
}

extension NavigationCommand: CustomStringConvertible {
    public var description: String {
        switch self {
        case .setRoot(let screen): return "setRoot \(screen.id)"
        case .push(let screen, let stack): return "push \(screen.id) onto \(stack)"
        case .pop(let stack): return "pop \(stack)"
        case .popToRoot(let stack): return "popToRoot \(stack)"
        case .setStack(let stack, let screens): return "setStack \(stack) [\(Self.list(screens))]"
        case .present(let screen, let presenter): return "present \(screen.id) over \(presenter)"
        case .dismiss(let presenter): return "dismiss over \(presenter)"
        case .setTabs(let tabs, let screens, let selected):
            return "setTabs \(tabs) [\(Self.list(screens))] selected=\(selected)"
        case .selectTab(let tabs, let index): return "selectTab \(tabs) \(index)"
        case .showMaster(let split, let screen): return "showMaster \(split) \(screen.id)"
        case .showDetail(let split, let screen): return "showDetail \(split) \(screen.id)"
        }
    }

    private static func list(_ screens: [Screen]) -> String {
        screens.map(\.id.rawValue).joined(separator: ", ")
    }
}
