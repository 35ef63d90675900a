internal import OrderedCollections

/// A presenter as a pure value: it carries out ``NavigationCommand``s on a model of the UI and says what a truthful
/// presenter would report back to the coordinator.
///
/// The model is a window root and the tree under it:
/// - a navigation **stack** (``Screen/Kind/stack``) has ordered children, bottom to top; the top one is shown;
/// - a **tab bar** (``Screen/Kind/tabs``) has ordered tabs and shows the selected one;
/// - a **split view** (``Screen/Kind/split``) has a master and a detail, both shown;
/// - anything can **present** one modal (an ``Screen/Kind/alert`` is a modal too), which covers its presenter and
///   everything under it.
///
/// A presentable is *visible* when it is on screen: its container is visible, it is the shown child of that
/// container (top of the stack, selected tab, master or detail), and nothing is presented over it or over one of
/// its ancestors (containers and presenters, up to the window root). A modal is visible when its presenter would be
/// visible without it and nothing is presented over the modal.
///
/// A presentable is *dismissed* when it leaves the UI: popped, replaced (``NavigationCommand/setStack(_:_:)``,
/// ``NavigationCommand/setTabs(_:_:selected:)``, master/detail, window root) or, as a modal, dismissed. Its whole
/// subtree (children and modals presented over them) leaves with it. A flow's root is a ``Screen`` like any other, so
/// a child flow pushed, presented or set as a tab is just a screen here.
///
/// ## Reports
/// Every change returns the reports to give the coordinator (``FlowCoordinatorStateMachine/handle(_:)``), in this
/// order:
/// 1. ``CoordinatorInput/dismissed(_:)`` for every presentable that left the UI, in the order they left, each
///    subtree parent first (children in container order, then the modal presented over it);
/// 2. ``CoordinatorInput/visibilityChanged(_:visible:)`` `false` for every presentable that was visible and still is
///    in the UI but no longer visible, in tree order (pre-order: a presentable, its children, then its modal);
/// 3. ``CoordinatorInput/visibilityChanged(_:visible:)`` `true` for every presentable that is now visible and was not,
///    in tree order.
///
/// A batch (`apply(_ commands:)`) reports the net change over the whole batch, as a presenter that
/// runs the commands in one UI turn would: a screen pushed and covered in the same batch is never reported visible.
/// A dismissed presentable gets no `visible: false` report (dismissal implies it). A presentable that left the UI and
/// came back in the same batch is reported dismissed, then visible if it is.
///
/// ## Mistakes
/// A command that cannot be carried out is ignored: the model does not change and no report is made for it. Single
/// commands and user operations throw a ``PresentationError``; a batch skips the command and lists it in
/// ``PresentationUpdate/rejected``. Nothing traps. The mistakes are: a target (stack, tab bar, split view, presenter)
/// that is not in the UI (``PresentationError/unknownTarget(_:)``), a target of the wrong kind, a screen whose ID is
/// already in the UI somewhere else (IDs are identities), presenting over a presentable that already presents
/// something (UIKit refuses too), and a tab index out of range.
///
/// Some commands are valid but change nothing, as in UIKit: `pop` or `popToRoot` on a stack with one child or none,
/// `dismiss(presentedOver:)` with nothing presented, `setRoot` with the current root, `showMaster`/`showDetail` with
/// the screen already there. A screen already shown at the place a command puts it (the current root, a child kept by
/// `setStack`/`setTabs`) keeps its subtree.
///
/// `Sendable`: a value made of values.
public struct PresentationModel: Hashable, Sendable, CustomStringConvertible {
    /// Where a presentable sits in the UI.
    public enum Placement: Hashable, Sendable, Codable {
        /// The window's root.
        case window
        /// A child of a container: a stack entry, a tab, a master or a detail.
        case child(of: PresentableID)
        /// Presented modally over a presentable.
        case presented(over: PresentableID)
    }

    /// The nodes densely, in no meaningful order (a removal moves the last one into its place): a dictionary's empty
    /// buckets of wide nodes cost more than the nodes in a small UI, and a small table is searched without hashing
    /// (docs/PERFORMANCE.md, issue 11: an idle session).
    var nodes: OrderedDictionary<PresentableID, Node> = [:]
    /// The window's root, `nil` before the first ``NavigationCommand/setRoot(_:)``.
    public internal(set) var rootID: PresentableID?

    /// What the screens in the UI count against a byte bound, summed (``Screen/estimatedBytes``): kept as nodes come
    /// and go, so reading it costs nothing; a model read back from its saved form counts its screens again, alike.
    package internal(set) var estimatedBytes = 0

    /// How many presentables the model's commands visited since it was made (what walks and lookups touched): the
    /// cost of a command follows what is on screen and what it changes, not the size of the UI. Not part of the
    /// model's value (``==`` ignores it).
    private(set) var visitedNodes = 0

    /// An empty window.
    public init() {}

    /// The same UI whatever order the nodes are stored in.
    public static func == (lhs: PresentationModel, rhs: PresentationModel) -> Bool {
        guard lhs.rootID == rhs.rootID, lhs.nodes.count == rhs.nodes.count else { return false }
        return lhs.nodes.allSatisfy { rhs.nodes[$0.key] == $0.value }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(rootID)
        hasher.combine(nodes.count)
        // Order-independent, as a dictionary's hash.
        var combined = 0
        for (id, node) in nodes {
            var nodeHasher = Hasher()
            nodeHasher.combine(id)
            nodeHasher.combine(node)
            combined ^= nodeHasher.finalize()
        }
        hasher.combine(combined)
    }

    /// Gives back the room a burst of changes left unused (after a session's UI is first built).
    public mutating func trim() {
        var trimmed = OrderedDictionary<PresentableID, Node>(minimumCapacity: nodes.count)
        for (id, node) in nodes { trimmed.updateValue(node, forKey: id) }
        nodes = trimmed
    }

    /// Adds a node for `screen`, which is not in the UI.
    private mutating func addNode(_ screen: Screen, _ placement: Placement) {
        nodes[screen.id] = Node(screen: screen, placement: placement)
        estimatedBytes &+= screen.estimatedBytes
    }

    /// A screen a command puts where it already is (the current root, a child `setStack`/`setTabs` keep, the shown
    /// master or detail) takes the command's type and data, as a presenter applying the command shows them; its
    /// subtree stays. A different kind is not taken: the subtree was built for the kind it has (docs/SEMANTICS.md D21).
    /// Returns where its node is. `guess`: where it may be, checked before hashing its ID (a container's children
    /// added together sit together, and a re-listed container refreshes them all, docs/PERFORMANCE.md).
    @discardableResult
    private mutating func refresh(_ screen: Screen, guess: Int? = nil) -> Int? {
        let index: Int
        if let guess, guess < nodes.count, nodes.keys[guess] == screen.id {
            index = guess
        } else {
            guard let found = nodes.index(forKey: screen.id) else { return nil }
            index = found
        }
        let kept = nodes.values[index].screen
        guard kept.kind == screen.kind, kept != screen else { return index }
        estimatedBytes &+= screen.estimatedBytes &- kept.estimatedBytes
        nodes.values[index].screen = screen
        return index
    }

    /// Removes a node in O(1): the last node takes its place.
    private mutating func removeNode(_ id: PresentableID) {
        guard let index = nodes.index(forKey: id) else { return }
        estimatedBytes &-= nodes.values[index].screen.estimatedBytes
        nodes.swapAt(index, nodes.count - 1)
        nodes.removeLast()
    }

    // MARK: - Commands

    /// Carries out one command and returns the reports, in the order described in the type's documentation.
    ///
    /// - Throws: a ``PresentationError`` when the command cannot be carried out; the model is then unchanged.
    public mutating func apply(_ command: NavigationCommand) throws(PresentationError) -> [CoordinatorInput] {
        var visits = 0
        let before = visibleOrder(&visits)
        let removed = try perform(command)
        let reports = reports(visibleBefore: before, removed: removed, &visits)
        visitedNodes += visits + removed.count
        return reports
    }

    /// Carries out one command without working out what became visible or hidden, for a holder of the model that
    /// needs only what left the UI (the daemon's copy of a session's UI: its presenter reports visibility).
    ///
    /// - Returns: the presentables the command took out of the UI, parent first: the `dismissed` reports that
    ///   applying the one command gives, in their order.
    /// - Throws: a ``PresentationError`` when the command cannot be carried out; the model is then unchanged.
    public mutating func carryOut(_ command: NavigationCommand) throws(PresentationError) -> [PresentableID] {
        let removed = try perform(command)
        visitedNodes += removed.count
        return removed
    }

    /// Carries out commands in order, as one UI turn, and returns the net reports.
    ///
    /// A command that cannot be carried out is skipped and listed in ``PresentationUpdate/rejected``; the others are
    /// carried out.
    public mutating func apply(_ commands: [NavigationCommand]) -> PresentationUpdate {
        var visits = 0
        let before = visibleOrder(&visits)
        var removed: [PresentableID] = []
        var rejected: [PresentationUpdate.Rejection] = []
        for command in commands {
            do {
                removed += try perform(command)
            } catch {
                rejected.append(PresentationUpdate.Rejection(command: command, error: error))
            }
        }
        let reports = reports(visibleBefore: before, removed: removed, &visits)
        visitedNodes += visits + removed.count
        return PresentationUpdate(reports: reports, rejected: rejected)
    }

    // MARK: - User operations

    /// The user taps the back button of `stack`: its top child is popped.
    ///
    /// - Throws: ``PresentationError/unknownTarget(_:)``, ``PresentationError/wrongKind(_:expected:found:)``,
    ///   ``PresentationError/notVisible(_:)`` when the stack is not on screen, and
    ///   ``PresentationError/nothingToGoBackTo(_:)`` when it has one child or none (no back button).
    public mutating func userTapsBack(in stack: PresentableID) throws(PresentationError) -> [CoordinatorInput] {
        let count = try stackTop(stack).count
        guard isVisible(stack) else { throw .notVisible(stack) }
        guard count > 1 else { throw .nothingToGoBackTo(stack) }
        return try apply(.pop(stack: stack))
    }

    /// The user selects the tab at `index` of `tabs`.
    ///
    /// - Throws: ``PresentationError/unknownTarget(_:)``, ``PresentationError/wrongKind(_:expected:found:)``,
    ///   ``PresentationError/notVisible(_:)`` when the tab bar is not on screen, and
    ///   ``PresentationError/tabOutOfRange(_:index:count:)``.
    public mutating func userSelectsTab(_ index: Int, in tabs: PresentableID) throws(PresentationError)
        -> [CoordinatorInput]
    {
        try requireContainer(tabs, .tabs)
        guard isVisible(tabs) else { throw .notVisible(tabs) }
        return try apply(.selectTab(tabs, index: index))
    }

    /// The user dismisses a modal (closes a sheet, taps an alert's button): it leaves with its subtree.
    ///
    /// - Throws: ``PresentationError/unknownTarget(_:)``, ``PresentationError/notPresented(_:)`` when `modal` is not
    ///   presented modally, and ``PresentationError/notVisible(_:)`` when it is covered or under a hidden presenter.
    public mutating func userDismisses(_ modal: PresentableID) throws(PresentationError) -> [CoordinatorInput] {
        guard let node = nodes[modal] else { throw .unknownTarget(modal) }
        guard case .presented(let presenter) = node.placement else { throw .notPresented(modal) }
        guard isVisible(modal) else { throw .notVisible(modal) }
        return try apply(.dismiss(presentedOver: presenter))
    }

    /// Takes `id` and everything under it out of the UI without reports: the presenter removed it on its own and
    /// reported so already. Returns the IDs removed, parent first (none when `id` is not in the UI).
    @discardableResult
    public mutating func remove(_ id: PresentableID) -> [PresentableID] {
        removeSubtree(id)
    }

    // MARK: - Queries

    /// The visible presentables, in tree order.
    public var visiblePresentables: [PresentableID] {
        var visits = 0
        return visibleOrder(&visits)
    }

    /// Every presentable in the UI, in tree order.
    public var presentables: [PresentableID] {
        var all: [PresentableID] = []
        walk { id, _, _, _, _ in all.append(id) }
        return all
    }

    /// Whether `id` is on screen.
    public func isVisible(_ id: PresentableID) -> Bool { visiblePresentables.contains(id) }

    /// How many presentables the UI holds.
    public var count: Int { nodes.count }

    /// Whether `id` is in the UI, visible or not. By its index: the subscript would copy the node out (a command's
    /// held-commands check asks this for every command, docs/PERFORMANCE.md).
    public func contains(_ id: PresentableID) -> Bool { nodes.index(forKey: id) != nil }

    /// The screen shown as `id`, while it is in the UI.
    public func screen(_ id: PresentableID) -> Screen? { nodes[id]?.screen }

    /// Where `id` sits, while it is in the UI.
    public func placement(of id: PresentableID) -> Placement? { nodes[id]?.placement }

    /// The children of a container: stack entries bottom to top, tabs in order, master then detail.
    public func children(of id: PresentableID) -> [PresentableID] {
        guard let node = nodes[id] else { return [] }
        return containedChildren(of: node).map(\.id)
    }

    /// What is presented modally over `id`.
    public func presented(over id: PresentableID) -> PresentableID? { nodes[id]?.presented }

    /// The master of a split view.
    public func master(of split: PresentableID) -> PresentableID? { nodes[split]?.master }

    /// The detail of a split view.
    public func detail(of split: PresentableID) -> PresentableID? { nodes[split]?.detail }

    /// The selected tab's index, for a tab bar.
    public func selectedTab(of tabs: PresentableID) -> Int? {
        guard let node = nodes[tabs], node.screen.kind == .tabs else { return nil }
        return node.selectedTab
    }

    /// The screens as an indented tree, one line per presentable: `*` marks a visible one, `-` one that is not;
    /// tabs, master, detail and modals are labelled; a screen shows its type and its data.
    ///
    /// ```
    /// - app.stack (stack)
    ///   - dashboard.tabs (tabs)
    ///     - [tab 0, selected] wishlist.stack (stack)
    ///       - wishlist.list (WishlistList)
    ///   * [modal] onboarding.stack (stack)
    ///     * onboarding.login (Login)
    /// ```
    public var description: String {
        guard rootID != nil else { return "(no window root)\n" }
        var lines: [String] = []
        walk { id, node, depth, isVisible, role in
            var line = String(repeating: "  ", count: depth) + (isVisible ? "* " : "- ")
            switch role {
            case .window, .stackEntry: break
            case .tab(let index, let selected): line += selected ? "[tab \(index), selected] " : "[tab \(index)] "
            case .master: line += "[master] "
            case .detail: line += "[detail] "
            case .modal: line += "[modal] "
            }
            line += "\(id) (\(node.screen.type)"
            if node.screen.data != .null { line += " \(node.screen.data)" }
            lines.append(line + ")")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    // MARK: - Carrying out commands

    /// Validates, then changes the model; returns the presentables that left the UI, in order.
    private mutating func perform(_ command: NavigationCommand) throws(PresentationError) -> [PresentableID] {
        switch command {
        case .setRoot(let screen):
            if rootID == screen.id {
                refresh(screen)
                return []
            }
            guard nodes[screen.id] == nil else { throw .alreadyShown(screen.id) }
            let removed = rootID.map { removeSubtree($0) } ?? []
            addNode(screen, .window)
            rootID = screen.id
            return removed

        case .push(let screen, let stack):
            try requireContainer(stack, .stack)
            guard nodes[screen.id] == nil else { throw .alreadyShown(screen.id) }
            addNode(screen, .child(of: stack))
            nodes[stack]?.children.append(screen.id)
            return []

        case .pop(let stack):
            let (count, top) = try stackTop(stack)
            guard count > 1, let top else { return [] }
            return removeSubtree(top)

        case .popToRoot(let stack):
            let node = try container(stack, .stack)
            return node.children.dropFirst().flatMap { removeSubtree($0) }

        case .setStack(let stack, let screens):
            try requireContainer(stack, .stack)
            return try replaceChildren(of: stack, with: screens)

        case .present(let screen, let presenter):
            guard let node = nodes[presenter] else { throw .unknownTarget(presenter) }
            if let presented = node.presented { throw .alreadyPresenting(presenter, presented: presented) }
            guard nodes[screen.id] == nil else { throw .alreadyShown(screen.id) }
            addNode(screen, .presented(over: presenter))
            nodes[presenter]?.presented = screen.id
            return []

        case .dismiss(let presenter):
            guard let node = nodes[presenter] else { throw .unknownTarget(presenter) }
            return node.presented.map { removeSubtree($0) } ?? []

        case .setTabs(let tabs, let screens, let selected):
            try requireContainer(tabs, .tabs)
            guard screens.isEmpty || screens.indices.contains(selected) else {
                throw .tabOutOfRange(tabs, index: selected, count: screens.count)
            }
            let removed = try replaceChildren(of: tabs, with: screens)
            nodes[tabs]?.selectedTab = screens.isEmpty ? 0 : selected
            return removed

        case .selectTab(let tabs, let index):
            let node = try container(tabs, .tabs)
            guard node.children.indices.contains(index) else {
                throw .tabOutOfRange(tabs, index: index, count: node.children.count)
            }
            nodes[tabs]?.selectedTab = index
            return []

        case .showMaster(let split, let screen):
            return try show(screen, in: split, asMaster: true)

        case .showDetail(let split, let screen):
            return try show(screen, in: split, asMaster: false)
        }
    }

    /// A stack's child count and top, without holding on to its children (a copy held while the stack changes
    /// would copy them all).
    private func stackTop(_ stack: PresentableID) throws(PresentationError) -> (count: Int, top: PresentableID?) {
        try requireContainer(stack, .stack)
        let children = nodes.values[nodes.index(forKey: stack)!].children
        return (children.count, children.last)
    }

    private func container(_ id: PresentableID, _ kind: Screen.Kind) throws(PresentationError) -> Node {
        try requireContainer(id, kind)
        return nodes[id]!
    }

    /// Checks that `id` is in the UI and is a `kind`, without copying its node.
    private func requireContainer(_ id: PresentableID, _ kind: Screen.Kind) throws(PresentationError) {
        guard let index = nodes.index(forKey: id) else { throw .unknownTarget(id) }
        let found = nodes.values[index].screen.kind
        guard found == kind else { throw .wrongKind(id, expected: kind, found: found) }
    }

    /// `setStack` / `setTabs`: children already in `container` stay with their subtrees, the others leave.
    private mutating func replaceChildren(
        of container: PresentableID,
        with screens: [Screen]
    ) throws(PresentationError) -> [PresentableID] {
        let old = nodes.index(forKey: container).map { nodes.values[$0].children } ?? []
        // The children it has, in their order: each is in the UI once, as this container's child, so nothing to check;
        // each takes the command's type and data. By index: a `for` or `zip` over the screens copies each one.
        if old.count == screens.count, screens.indices.allSatisfy({ old[$0] == screens[$0].id }) {
            var next: Int?
            for index in screens.indices { next = refresh(screens[index], guess: next).map { $0 + 1 } }
            return []
        }
        // A short list is checked pairwise: hashing every ID into a set costs more than comparing a few.
        let short = screens.count <= 8
        var seen: Set<PresentableID> = []
        for (index, screen) in screens.enumerated() {
            let repeated = short ? screens[..<index].contains { $0.id == screen.id } : !seen.insert(screen.id).inserted
            guard !repeated else { throw .alreadyShown(screen.id) }
            if let existing = nodes.index(forKey: screen.id), nodes.values[existing].placement != .child(of: container)
            {
                throw .alreadyShown(screen.id)
            }
        }
        let removed = old.filter { id in short ? !screens.contains { $0.id == id } : !seen.contains(id) }
            .flatMap { removeSubtree($0) }
        for screen in screens {
            if nodes.index(forKey: screen.id) == nil { addNode(screen, .child(of: container)) } else { refresh(screen) }
        }
        nodes[container]?.children = screens.map(\.id)
        return removed
    }

    private mutating func show(
        _ screen: Screen,
        in split: PresentableID,
        asMaster: Bool
    ) throws(PresentationError) -> [PresentableID] {
        let node = try container(split, .split)
        let current = asMaster ? node.master : node.detail
        if current == screen.id {
            refresh(screen)
            return []
        }
        guard nodes[screen.id] == nil else { throw .alreadyShown(screen.id) }
        let removed = current.map { removeSubtree($0) } ?? []
        addNode(screen, .child(of: split))
        if asMaster { nodes[split]?.master = screen.id } else { nodes[split]?.detail = screen.id }
        return removed
    }

    /// Takes `id` and everything under it out of the UI; returns their IDs, parent first.
    private mutating func removeSubtree(_ id: PresentableID) -> [PresentableID] {
        guard let node = nodes[id] else { return [] }
        switch node.placement {
        case .window:
            rootID = nil
        case .child(let parent):
            if let index = nodes[parent]?.children.lastIndex(of: id) { nodes[parent]?.children.remove(at: index) }
            if nodes[parent]?.master == id { nodes[parent]?.master = nil }
            if nodes[parent]?.detail == id { nodes[parent]?.detail = nil }
            if let count = nodes[parent]?.children.count, let selected = nodes[parent]?.selectedTab, selected >= count {
                nodes[parent]?.selectedTab = max(0, count - 1)
            }
        case .presented(let presenter):
            nodes[presenter]?.presented = nil
        }
        let removed = subtree(id)
        for removedID in removed { removeNode(removedID) }
        return removed
    }

    private func subtree(_ id: PresentableID) -> [PresentableID] {
        guard let node = nodes[id] else { return [] }
        var ids = [id]
        for child in containedChildren(of: node) { ids += subtree(child.id) }
        if let presented = node.presented { ids += subtree(presented) }
        return ids
    }
}
