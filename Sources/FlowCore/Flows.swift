/// When ``Flows/use(_:when:in:_:)`` runs its block.
public enum FlowReadiness: Sendable, Hashable {
    /// Right away: the flows exist.
    case created
    /// Once every flow has navigated for the first time and, if that navigation started child flows, once those are
    /// ready too. Readiness is latched: a flow that is already ready runs the block at once. Placing the flows' roots
    /// here, as RxFlow's README does, shows them with what their first steps built in them (`docs/SEMANTICS.md` D20).
    case ready
}

/// RxFlow's `Flows.use(_:when:block:)`: run UI work once some flows are created or ready.
///
/// Typical use, inside a flow's `navigate(to:with:)`, before returning the child flows as contributors:
/// ```swift
/// Flows.use([wishlistFlow, watchedFlow], when: .created, in: navigator) { navigator in
///     navigator.setTabs(root.id, [wishlistFlow.root, watchedFlow.root])
/// }
/// ```
public enum Flows: Sendable {
    /// Runs `block` with a navigator whose commands are output when `flows` are created (now) or ready (later).
    ///
    /// With ``FlowReadiness/ready``, a flow that is never coordinated, or ends before it is ready, keeps the block
    /// from running; the block is dropped with the coordinator of the flow that registered it.
    public static func use(
        _ flows: [any Flow],
        when readiness: FlowReadiness,
        in navigator: Navigator,
        _ block: @escaping (Navigator) -> Void
    ) {
        switch readiness {
        case .created:
            block(navigator)
        case .ready:
            navigator.addReadinessWaiter(ReadinessWaiter(flows: flows, block: block))
        }
    }

    /// Variadic form of ``use(_:when:in:_:)``.
    public static func use(
        _ flows: any Flow...,
        when readiness: FlowReadiness,
        in navigator: Navigator,
        _ block: @escaping (Navigator) -> Void
    ) {
        use(flows, when: readiness, in: navigator, block)
    }
}
