/// Where a flow records the UI side effects of one navigation.
///
/// The coordinator hands a fresh navigator to every `navigate(to:with:)` call and outputs what was recorded, in
/// order, as ``NavigationCommand``s. ``Flows/use(_:when:in:_:)`` registers work that records more commands when
/// child flows are created or ready.
///
/// Not `Sendable`: it lives for one call, in the coordinator's isolation.
public final class Navigator {
    /// The commands recorded so far, in order.
    public private(set) var commands: [NavigationCommand] = []
    /// Blocks waiting for flows to become ready, handed to the coordinator when the navigation returns.
    private(set) var readinessWaiters: [ReadinessWaiter] = []

    init() {}

    /// Records a command.
    public func perform(_ command: NavigationCommand) { commands.append(command) }

    /// Shows `screen` as the window's content.
    public func setRoot(_ screen: Screen) { perform(.setRoot(screen)) }
    /// Pushes `screen` onto the navigation stack `stack`.
    public func push(_ screen: Screen, onto stack: PresentableID) { perform(.push(screen, onto: stack)) }
    /// Pops the top of `stack`.
    public func pop(_ stack: PresentableID) { perform(.pop(stack: stack)) }
    /// Pops `stack` to its first child.
    public func popToRoot(_ stack: PresentableID) { perform(.popToRoot(stack: stack)) }
    /// Replaces the children of `stack`.
    public func setStack(_ stack: PresentableID, _ screens: [Screen]) { perform(.setStack(stack, screens)) }
    /// Presents `screen` modally over `presenter`.
    public func present(_ screen: Screen, over presenter: PresentableID) { perform(.present(screen, over: presenter)) }
    /// Dismisses what is presented over `presenter`.
    public func dismiss(presentedOver presenter: PresentableID) { perform(.dismiss(presentedOver: presenter)) }
    /// Replaces the tabs of `tabs`.
    public func setTabs(_ tabs: PresentableID, _ screens: [Screen], selected: Int = 0) {
        perform(.setTabs(tabs, screens, selected: selected))
    }
    /// Selects a tab.
    public func selectTab(_ tabs: PresentableID, index: Int) { perform(.selectTab(tabs, index: index)) }
    /// Shows `screen` as the master of `split`.
    public func showMaster(_ split: PresentableID, _ screen: Screen) { perform(.showMaster(split, screen)) }
    /// Shows `screen` as the detail of `split`.
    public func showDetail(_ split: PresentableID, _ screen: Screen) { perform(.showDetail(split, screen)) }

    func addReadinessWaiter(_ waiter: ReadinessWaiter) { readinessWaiters.append(waiter) }
}

@available(*, unavailable)
extension Navigator: Sendable {}

/// Work waiting for flows to be ready, recorded by ``Flows/use(_:when:in:_:)``.
struct ReadinessWaiter {
    /// Held, not just identified: a flow let go while the block waits would leave its address to a later flow.
    let flows: [any Flow]
    let block: (Navigator) -> Void
}
