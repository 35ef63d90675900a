/// What is on screen in a ``PresentationModel``, and the reports a change makes.
///
/// Visibility is found by visiting only what is on screen (the shown child of each container and the modals), never
/// the entries under a stack's top or the tabs not selected: a command costs what is on screen and what it changes,
/// not the size of the UI (docs/PERFORMANCE.md).
extension PresentationModel {
    /// The children of a container in container order, with whether each is its shown child.
    func containedChildren(of node: Node) -> [(id: PresentableID, shown: Bool, role: Role)] {
        switch node.screen.kind {
        case .stack:
            return node.children.enumerated().map { index, id in
                (id, index == node.children.count - 1, Role.stackEntry)
            }
        case .tabs:
            return node.children.enumerated().map { index, id in
                (id, index == node.selectedTab, Role.tab(index: index, selected: index == node.selectedTab))
            }
        case .split:
            return [node.master.map { ($0, true, Role.master) }, node.detail.map { ($0, true, Role.detail) }]
                .compactMap { $0 }
        default:
            return []
        }
    }

    /// The children a container shows: a stack's top, the selected tab, a split view's master and detail.
    private func shownChildren(of node: Node) -> [PresentableID] {
        switch node.screen.kind {
        case .stack:
            return node.children.last.map { [$0] } ?? []
        case .tabs:
            return node.children.indices.contains(node.selectedTab) ? [node.children[node.selectedTab]] : []
        case .split:
            return [node.master, node.detail].compactMap { $0 }
        default:
            return []
        }
    }

    /// Visits the tree in pre-order (a presentable, its children, then its modal) with each one's visibility.
    func walk(_ visit: (PresentableID, Node, Int, Bool, Role) -> Void) {
        func visitNode(_ id: PresentableID, onScreen: Bool, depth: Int, role: Role) {
            guard let node = nodes[id] else { return }
            let visible = onScreen && node.presented == nil
            visit(id, node, depth, visible, role)
            for child in containedChildren(of: node) {
                visitNode(child.id, onScreen: visible && child.shown, depth: depth + 1, role: child.role)
            }
            if let presented = node.presented {
                visitNode(presented, onScreen: onScreen, depth: depth + 1, role: .modal)
            }
        }
        if let rootID { visitNode(rootID, onScreen: true, depth: 0, role: .window) }
    }

    /// The visible presentables in tree order, as ``walk(_:)`` finds them, visiting only what is on screen; adds the
    /// presentables visited to `visits`.
    func visibleOrder(_ visits: inout Int) -> [PresentableID] {
        var visible: [PresentableID] = []
        func visitOnScreen(_ id: PresentableID) {
            guard let node = nodes[id] else { return }
            visits += 1
            if node.presented == nil {
                visible.append(id)
                for child in shownChildren(of: node) { visitOnScreen(child) }
            }
            if let presented = node.presented { visitOnScreen(presented) }
        }
        if let rootID { visitOnScreen(rootID) }
        return visible
    }

    /// Where `id` comes in the tree's pre-order: its position under each ancestor from the window root down (a modal
    /// after its presenter's children). Positions in stacks and tab bars are looked for from the end, where what
    /// changes usually is; adds what it looked at to `visits`.
    private func treeOrderKey(of id: PresentableID, _ visits: inout Int) -> [Int] {
        var key: [Int] = []
        var current = id
        while let placement = nodes[current]?.placement {
            visits += 1
            switch placement {
            case .window:
                return key.reversed()
            case .presented(let presenter):
                key.append(Int.max)
                current = presenter
            case .child(let parent):
                guard let parentNode = nodes[parent] else { return key.reversed() }
                if parentNode.master == current {
                    key.append(0)
                } else if parentNode.detail == current {
                    key.append(1)
                } else if let index = parentNode.children.lastIndex(of: current) {
                    visits += parentNode.children.count - index
                    key.append(index)
                }
                current = parent
            }
        }
        return key.reversed()
    }

    /// The reports of a change, in the documented order: dismissals, then what became hidden, then what became
    /// visible, each in tree order.
    func reports(
        visibleBefore before: [PresentableID],
        removed: [PresentableID],
        _ visits: inout Int
    ) -> [CoordinatorInput] {
        let after = visibleOrder(&visits)
        // The common turn (a screen's content replaced in place): nothing to report, no sets to build.
        if removed.isEmpty, after == before { return [] }
        let afterSet = Set(after)
        let removedSet = Set(removed)
        let beforeSet = Set(before)
        var hidden: [(key: [Int], id: PresentableID)] = []
        for id in before where !afterSet.contains(id) && !removedSet.contains(id) && nodes[id] != nil {
            hidden.append((treeOrderKey(of: id, &visits), id))
        }
        hidden.sort { $0.key.lexicographicallyPrecedes($1.key) }
        let shown = after.filter { !beforeSet.contains($0) || removedSet.contains($0) }
        return removed.map { .dismissed($0) } + hidden.map { .visibilityChanged($0.id, visible: false) }
            + shown.map { .visibilityChanged($0, visible: true) }
    }
}
