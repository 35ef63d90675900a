extension FlowFileValidator {
    /// Commands of one handler (its `commands`, then its `created` blocks) that the UI refuses whatever it holds: a
    /// screen placed twice, or two presentations over one container, with only additions (push, present, alert)
    /// between. Any other command may remove something, so it ends the comparison: nothing is reported that a
    /// removal could make fit.
    func checkRepeatedPlacements(of handler: StepHandler, in flow: FlowDecl) {
        let commands = handler.commands + handler.uses.filter { $0.when == .created }.flatMap(\.commands)
        var placed: [String: ScreenRef] = [:]  // screen id -> the first reference placing it
        var presented: [String: ScreenRef] = [:]  // container id -> the screen presented over it
        for command in commands {
            let screen: ScreenRef, over: ScreenRef?
            switch command.action {
            case .push(let pushed, _): (screen, over) = (pushed, nil)
            case .present(let shown, let container), .alert(let shown, let container): (screen, over) = (shown, container)
            case .selectTab: continue
            default:
                (placed, presented) = ([:], [:])
                continue
            }
            guard let id = quietlyResolved(screen, in: flow)?.id.source else { continue }
            if let first = Self.firstOf(id, recording: screen, in: &placed) {
                sink.report(
                    .notAllowedHere, at: screen.location,
                    "'\(command.keyword)' shows '\(screen)', which '\(first)' shows already in this handler (the id '\(id)')",
                    fix: "leave one of them out, or remove the first (pop, dismiss) before: a screen is in the UI once")
            }
            guard let over, let container = quietlyResolved(over, in: flow)?.id.source else { continue }
            if let first = Self.firstOf(container, recording: screen, in: &presented) {
                sink.report(
                    .notAllowedHere, at: screen.location,
                    "'\(command.keyword)' presents '\(screen)' over '\(over)', over which this handler presents '\(first)'",
                    fix: "dismiss first ('dismiss: \(over)'): one presentation over a screen at a time")
            }
        }
    }

    /// The reference recorded first for `key`, if any; `reference` is recorded when none was.
    private static func firstOf(
        _ key: String, recording reference: ScreenRef, in table: inout [String: ScreenRef]
    ) -> ScreenRef? {
        if let first = table[key] { return first }
        table[key] = reference
        return nil
    }

    /// The screen a handler names, as ``resolve(_:in:)`` finds it, without reporting an unknown one (reported there).
    private func quietlyResolved(_ ref: ScreenRef, in flow: FlowDecl) -> ScreenDecl? {
        if ref.value == "root" { return flow.root }
        return flow.screen(ref.value) ?? app.flow(ref.value)?.root
    }
}
