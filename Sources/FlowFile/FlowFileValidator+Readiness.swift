extension FlowFileValidator {
    /// A `when: ready` block runs after the child flows' first steps (D6): one that places a child's root, when that
    /// child's first step acts on its own root, places it too late (the child's commands found no such screen).
    func checkReadyPlacements() {
        for flow in app.flows {
            for handler in flow.handlers {
                let children = handler.contributors.compactMap { contributor -> (FlowDecl, StepperSpec?)? in
                    guard case .flow(let name, let stepper, _) = contributor.kind, let child = app.flow(name.value)
                    else { return nil }
                    return (child, stepper ?? child.stepper)
                }
                // Placed at once as well (in the commands or a created block): in the UI before the first step.
                let placedAtOnce = Set(
                    (handler.commands + handler.uses.filter { $0.when == .created }.flatMap(\.commands))
                        .flatMap(\.shown).map(\.value))
                for use in handler.uses where use.when == .ready {
                    for command in use.commands {
                        for ref in command.shown {
                            guard !placedAtOnce.contains(ref.value),
                                let (child, stepper) = children.first(where: { $0.0.name.value == ref.value }),
                                let first = stepper?.firstStep, let acting = commandOnOwnRoot(of: child, at: first)
                            else { continue }
                            sink.report(
                                .notAllowedHere, at: ref.location,
                                "'\(ref)' is placed when it is ready, after its first step '\(first)' made '\(acting)' "
                                    + "on its root, which was not in the UI yet",
                                fix: "place '\(ref)' in 'commands' or a 'when: created' block"
                            )
                        }
                    }
                }
            }
        }
    }

    /// The first command of `flow`'s handler of `step` (its commands and `created` blocks) that acts on the flow's
    /// own root, by keyword.
    private func commandOnOwnRoot(of flow: FlowDecl, at step: String) -> String? {
        guard let handler = flow.handler(step) else { return nil }
        let recorded = handler.commands + handler.uses.filter { $0.when == .created }.flatMap(\.commands)
        let own = ["root", flow.name.value]
        return recorded.first { command in command.container.map { own.contains($0.value) } ?? false }?.keyword
    }
}

extension StepperSpec {
    /// The step the stepper emits first, when the file says: a one-step stepper's, or an initial step.
    var firstStep: String? {
        switch kind {
        case .one(let step): return step.name.value
        case .remote(_, let initial, _), .actions(_, let initial): return initial?.name.value
        case .composite(let steppers):
            // RxFlow's order: its own steppers' initial steps, then what a nested composite emits as it is readied.
            let own = steppers.filter { if case .composite = $0.kind { false } else { true } }
            return own.lazy.compactMap(\.firstStep).first ?? steppers.lazy.compactMap(\.firstStep).first
        }
    }
}
