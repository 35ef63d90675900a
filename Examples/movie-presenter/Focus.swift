import FlowCore

/// The way from the window root to the screen in front, and what lies on it: the screen a person sees and acts on.
///
/// The way follows the shown child of every container (the top of a stack, the selected tab) and every modal but an
/// alert, which is drawn as a box over the screen it covers. The part after the last modal is "in front": only its
/// tab bars and stacks are drawn and can be used (a tab bar under a full-screen modal is not on screen).
struct Focus: Sendable {
    /// Root to front, modal hops included.
    var path: [PresentableID] = []
    /// Where the front part of ``path`` starts (the last modal, or the root).
    var frontStart = 0
    /// The alert over the front, if one.
    var alert: PresentableID?

    init(model: PresentationModel) {
        guard var current = model.rootID else { return }
        while path.count < 64 {
            path.append(current)
            if let presented = model.presented(over: current) {
                if model.screen(presented)?.kind == .alert {
                    alert = presented
                } else {
                    frontStart = path.count
                    current = presented
                    continue
                }
            }
            guard let screen = model.screen(current) else { break }
            let children = model.children(of: current)
            if screen.kind == .stack, let top = children.last {
                current = top
            } else if screen.kind == .tabs, let selected = model.selectedTab(of: current),
                children.indices.contains(selected)
            {
                current = children[selected]
            } else {
                break
            }
        }
    }

    /// The screen in front: a view, a split view, or an empty container.
    var front: PresentableID? { path.last }
    /// The front part of the way.
    var frontPath: ArraySlice<PresentableID> { path[frontStart...] }
    /// The modal the front part starts with, if any.
    var modal: PresentableID? { frontStart > 0 ? path[frontStart] : nil }
}
