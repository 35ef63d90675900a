/// Commands that build a flow's root while the root is in no UI yet (`docs/SEMANTICS.md` D20).
///
/// UIKit lets a flow push onto its root before that root is in a window, and RxFlow's README relies on it: a child
/// flow's first step fills its root, then the parent's `.ready` block presents the root, content and all. A UI model
/// holds only what is in the UI, so the machine keeps such commands back and outputs them right after the command
/// that places the root: a presenter sees the root placed, then filled.
struct HeldCommands {
    /// The held commands by the flow root they wait for, in output order.
    var byRoot: [PresentableID: [(command: NavigationCommand, coordinator: FlowCoordinatorID)]] = [:]
    /// The screens and containers held commands put in a waiting root, by that root: what builds on them waits too.
    var rootOf: [PresentableID: PresentableID] = [:]

    var isEmpty: Bool { byRoot.isEmpty }

    var count: Int { byRoot.values.reduce(0) { $0 + $1.count } }

    /// Takes out what waits for `root`, in order.
    mutating func take(_ root: PresentableID) -> [(command: NavigationCommand, coordinator: FlowCoordinatorID)] {
        guard let held = byRoot.removeValue(forKey: root) else { return [] }
        rootOf = rootOf.filter { $0.value != root }
        return held
    }
}

extension NavigationCommand {
    /// Whether the command builds inside its target (UIKit allows it off-screen), as opposed to placing something
    /// over it or replacing the window's content.
    var buildsInsideTarget: Bool {
        switch self {
        case .push, .pop, .popToRoot, .setStack, .setTabs, .selectTab, .showMaster, .showDetail: return true
        case .setRoot, .present, .dismiss: return false
        }
    }

    /// The screens the command puts in the UI.
    var placedScreens: [Screen] {
        switch self {
        case .setRoot(let screen), .push(let screen, _), .present(let screen, _), .showMaster(_, let screen),
            .showDetail(_, let screen):
            return [screen]
        case .setStack(_, let screens), .setTabs(_, let screens, _): return screens
        case .pop, .popToRoot, .dismiss, .selectTab: return []
        }
    }
}

extension FlowCoordinatorStateMachine {
    /// The root `command` must wait for: its target is a live flow's root the driver's UI does not hold, or was put
    /// in such a root by a held command. `nil` without a driver's UI model (``uiContains``).
    func waitingRoot(of command: NavigationCommand) -> PresentableID? {
        guard uiContains != nil, command.buildsInsideTarget, let target = command.target else { return nil }
        if let root = heldCommands.rootOf[target] { return root }
        if heldCommands.byRoot[target] != nil { return target }
        // The UI first: a driver answers a target it found there before without a lookup (most commands'). Called in
        // place: a `let` binding copied the closure (its context's retain and release) for every command.
        guard uiContains?(target) == false, coordinatorsByRoot[target] != nil else { return nil }
        return target
    }

    mutating func hold(_ command: NavigationCommand, from coordinator: FlowCoordinatorID, until root: PresentableID) {
        heldCommands.byRoot[root, default: []].append((command, coordinator))
        for screen in command.placedScreens { heldCommands.rootOf[screen.id] = root }
    }

    /// Outputs what waited for the roots `command` put in the UI, right after it.
    mutating func releaseHeld(placedBy command: NavigationCommand) {
        guard !heldCommands.isEmpty, let uiContains else { return }
        for screen in command.placedScreens where heldCommands.byRoot[screen.id] != nil && uiContains(screen.id) {
            for held in heldCommands.take(screen.id) { output(held.command, from: held.coordinator) }
        }
    }

    /// A flow root that no live flow has any more: what waited for it goes out as it is (it does not fit the UI,
    /// as it did not when it was made; PROTOCOL §6.3), so nothing a flow recorded is lost without a word.
    mutating func releaseHeld(ofEndedRoot root: PresentableID) {
        guard heldCommands.byRoot[root] != nil, coordinatorsByRoot[root] == nil else { return }
        for held in heldCommands.take(root) { output(held.command, from: held.coordinator) }
    }
}
