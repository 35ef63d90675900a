extension FlowFileDecoder {
    static let commandKeywords = [
        "setRoot", "push", "pop", "popToRoot", "setStack", "present", "alert", "dismiss", "setTabs", "selectTab",
        "showMaster", "showDetail",
    ]
    /// The keys each command takes besides its own (`push: S, onto: C`).
    static let commandModifiers: [String: [String]] = [
        "push": ["onto"], "setStack": ["in"], "present": ["over"], "alert": ["over"], "setTabs": ["in", "selected"],
        "selectTab": ["in"], "showMaster": ["in"], "showDetail": ["in"],
    ]
    static let contributorKeywords = ["screen", "flow", "forwardToCurrentFlow", "forwardToParentFlow"]
    static let stepperKeywords = ["remote", "one", "actions", "composite"]

    func decodeFlows(_ node: FileNode) -> [FlowDecl] {
        guard let entries = MappingReader.namedEntries(node, as: "'flows'", sink: sink) else { return [] }
        return entries.compactMap { name, value in
            guard
                let flow = MappingReader(
                    value, as: "the flow '\(name)'", keys: ["root", "stepper", "adapt", "screens", "navigate"], sink: sink),
                let rootNode = flow.required("root", "{id: <screen id>, kind: stack}"),
                let root = decodeScreen(Name(value: "root", location: rootNode.location), rootNode, in: name.value)
            else { return nil }
            let screens =
                flow.value("screens").flatMap {
                    MappingReader.namedEntries($0, as: "'screens' of '\(name)'", sink: sink)
                } ?? []
            let handlers =
                flow.value("navigate").flatMap { MappingReader.namedEntries($0, as: "'navigate' of '\(name)'", sink: sink) } ?? []
            return FlowDecl(
                name: name, root: root, stepper: flow.value("stepper").flatMap(decodeStepper),
                screens: screens.compactMap { decodeScreen($0.name, $0.value, in: name.value) },
                handlers: handlers.compactMap(decodeHandler),
                adapt: flow.value("adapt").flatMap { decodeAdapt($0, in: name.value) }, location: value.location
            )
        }
    }

    /// `adapt: {kind: <stepper kind>, steps: [<step>, …]}`.
    private func decodeAdapt(_ node: FileNode, in flow: String) -> AdaptDecl? {
        let what = "'adapt' of '\(flow)'"
        guard let adapt = MappingReader(node, as: what, keys: ["kind", "steps"], sink: sink),
            let kindNode = adapt.required("kind", "<stepper kind>"),
            let kind = MappingReader.scalar(kindNode, as: "'kind' of \(what)", sink: sink),
            let stepsNode = adapt.required("steps", "[<step>, …]"),
            let steps = MappingReader.list(stepsNode, as: "'steps' of \(what)", sink: sink)
        else { return nil }
        return AdaptDecl(
            kind: kind, steps: steps.compactMap { MappingReader.scalar($0, as: "a step of \(what)", sink: sink) },
            location: node.location
        )
    }

    /// A screen: `{id, kind, type, data}`.
    private func decodeScreen(_ name: Name, _ node: FileNode, in flow: String) -> ScreenDecl? {
        let what = name.value == "root" ? "the root of '\(flow)'" : "the screen '\(name)' of '\(flow)'"
        guard let screen = MappingReader(node, as: what, keys: ["id", "kind", "type", "data"], sink: sink),
            let idNode = screen.required("id", "<a screen id>"),
            let idText = MappingReader.scalar(idNode, as: "'id' of \(what)", sink: sink),
            let id = decodeTemplate(idText.value, idNode)
        else { return nil }
        return ScreenDecl(
            name: name, id: id, kind: decodeKind(screen) ?? .view, type: screen.string("type"),
            data: screen.value("data").flatMap(decodeTemplateValue), location: node.location
        )
    }

    /// `step: {commands, use, contribute, end}`; empty: the step does nothing (`.none`).
    private func decodeHandler(_ step: Name, _ node: FileNode) -> StepHandler? {
        if node.isEmpty {
            return StepHandler(step: step, commands: [], uses: [], contributors: [], end: nil, location: node.location)
        }
        guard
            let handler = MappingReader(
                node, as: "the handler of '\(step)'", keys: ["commands", "use", "contribute", "end"], sink: sink)
        else { return nil }
        let commands = handler.value("commands").map(decodeCommands) ?? []
        let uses =
            handler.value("use").flatMap { MappingReader.list($0, as: "'use'", sink: sink) }?.compactMap(decodeUse)
            ?? []
        let contributors =
            handler.value("contribute").flatMap { MappingReader.list($0, as: "'contribute'", sink: sink) }?
            .compactMap(decodeContributor) ?? []
        var handlerEnd: StepRef?
        if let endNode = handler.value("end") {
            handlerEnd = decodeStepRef(endNode)
            if !contributors.isEmpty, let key = handler.keyNode("end") {
                sink.report(
                    .endWithContributors, at: key.location,
                    "the handler of '\(step)' both ends its flow and has contributors",
                    fix: "keep 'end' (the flow ends: .end(forwardToParentFlowWithStep:)) or 'contribute', not both"
                )
            }
        }
        return StepHandler(
            step: step, commands: commands, uses: uses, contributors: contributors, end: handlerEnd,
            location: node.location)
    }

    private func decodeUse(_ node: FileNode) -> UseDecl? {
        guard let use = MappingReader(node, as: "a 'use' block", keys: ["when", "flows", "commands"], sink: sink),
            let whenName = use.required("when", "created or ready").flatMap({
                MappingReader.scalar($0, as: "'when'", sink: sink)
            })
        else { return nil }
        guard let when = UseDecl.When(rawValue: whenName.value) else {
            sink.report(
                .wrongType, at: whenName.location, "'\(whenName)' is not a readiness",
                fix: "write 'when: created' or 'when: ready'")
            return nil
        }
        let flows =
            use.value("flows").flatMap { MappingReader.list($0, as: "'flows'", sink: sink) }?
            .compactMap { MappingReader.scalar($0, as: "a flow's name", sink: sink) } ?? []
        return UseDecl(
            when: when, flows: flows, commands: use.value("commands").map(decodeCommands) ?? [], location: node.location
        )
    }

    func decodeCommands(_ node: FileNode) -> [CommandDecl] {
        MappingReader.list(node, as: "'commands'", sink: sink)?.compactMap(decodeCommand) ?? []
    }

    private func decodeCommand(_ node: FileNode) -> CommandDecl? {
        let modifiers = ["onto", "over", "in", "selected"]
        guard let command = MappingReader(node, as: "a command", keys: Self.commandKeywords + modifiers, sink: sink)
        else { return nil }
        guard
            let (keyword, valueNode) = command.one(
                of: Self.commandKeywords, none: "a command names no navigation",
                several: { "a command names \($0.count) navigations (\($0.joined(separator: ", ")))" },
                fix: "write one of " + Self.commandKeywords.map { "'\($0)'" }.joined(separator: ", ") + " per command")
        else { return nil }
        let applicable = Self.commandModifiers[keyword] ?? []
        for pair in command.pairs {
            guard let key = pair.key.text, modifiers.contains(key), !applicable.contains(key) else { continue }
            sink.report(
                .unknownKey, at: pair.key.location, "unknown key '\(key)' in a '\(keyword)' command",
                fix: applicable.isEmpty
                    ? "leave it out ('\(keyword)' takes no other key)"
                    : "write " + applicable.map { "'\($0)'" }.joined(separator: " or ") + ", or leave it out"
            )
        }
        // The container defaults to the flow's root, written where the command is.
        func container(_ key: String) -> ScreenRef {
            command.string(key) ?? Name(value: "root", location: node.location)
        }
        func ref() -> ScreenRef? { MappingReader.scalar(valueNode, as: "'\(keyword)'", sink: sink) }
        func refs() -> [ScreenRef]? {
            MappingReader.list(valueNode, as: "'\(keyword)'", sink: sink)?.compactMap {
                MappingReader.scalar($0, as: "a screen", sink: sink)
            }
        }
        let action: CommandDecl.Action?
        switch keyword {
        case "setRoot": action = ref().map { .setRoot($0) }
        case "push": action = ref().map { .push($0, onto: container("onto")) }
        case "pop": action = ref().map { .pop($0) }
        case "popToRoot": action = ref().map { .popToRoot($0) }
        case "setStack": action = refs().map { .setStack($0, in: container("in")) }
        case "present": action = ref().map { .present($0, over: container("over")) }
        case "alert": action = ref().map { .alert($0, over: container("over")) }
        case "dismiss": action = ref().map { .dismiss($0) }
        case "setTabs":
            var selected = 0
            if let node = command.value("selected") {
                if let index = node.integer {
                    selected = index
                } else {
                    sink.report(
                        .wrongType, at: node.location, "'selected' is a tab's index, not \(node.what)",
                        fix: "write 'selected: 0'")
                }
            }
            let tabs = refs()
            if let tabs, !tabs.isEmpty, !tabs.indices.contains(selected), let node = command.value("selected") {
                sink.report(
                    .wrongType, at: node.location, "'selected: \(selected)' names no tab of the \(tabs.count) it sets",
                    fix: "write a tab's index, 0 to \(tabs.count - 1)")
            }
            action = tabs.map { .setTabs($0, in: container("in"), selected: selected) }
        case "selectTab":
            guard let index = valueNode.integer, index >= 0 else {
                sink.report(
                    .wrongType, at: valueNode.location, "'selectTab' is a tab's index, not \(valueNode.what)",
                    fix: "write 'selectTab: 1'")
                return nil
            }
            action = .selectTab(index, in: container("in"))
        case "showMaster": action = ref().map { .showMaster($0, in: container("in")) }
        default: action = ref().map { .showDetail($0, in: container("in")) }
        }
        return action.map { CommandDecl(action: $0, location: node.location) }
    }

    private func decodeContributor(_ node: FileNode) -> ContributorDecl? {
        let modifiers = ["stepper", "steppers", "allowStepWhenNotPresented", "allowStepWhenDismissed"]
        guard
            let contributor = MappingReader(
                node, as: "a contributor", keys: Self.contributorKeywords + modifiers, sink: sink)
        else { return nil }
        guard
            let (keyword, valueNode) = contributor.one(
                of: Self.contributorKeywords, none: "a contributor names no screen, flow or forward",
                several: { "a contributor names \($0.joined(separator: " and "))" },
                fix: "write one of 'screen', 'flow', 'forwardToCurrentFlow', 'forwardToParentFlow' per contributor")
        else { return nil }
        var steppers: [StepperSpec] = []
        if let stepper = contributor.value("stepper") { steppers += decodeStepper(stepper).map { [$0] } ?? [] }
        if let list = contributor.value("steppers") {
            steppers += MappingReader.list(list, as: "'steppers'", sink: sink)?.compactMap(decodeStepper) ?? []
        }
        let kind: ContributorDecl.Kind?
        switch keyword {
        case "screen":
            kind = MappingReader.scalar(valueNode, as: "'screen'", sink: sink).map {
                .screen(
                    $0, steppers: steppers, allowStepWhenNotPresented: contributor.bool("allowStepWhenNotPresented"),
                    allowStepWhenDismissed: contributor.bool("allowStepWhenDismissed")
                )
            }
        case "flow":
            if let key = contributor.keyNode("allowStepWhenNotPresented") {
                sink.report(
                    .notAllowedHere, at: key.location,
                    "'allowStepWhenNotPresented' does not apply to a child flow's stepper",
                    fix: "leave it out (a flow's own stepper is never gated by visibility, R14)"
                )
            }
            // 'steppers' is a screen's list: a child flow has one stepper, written as 'stepper:' (FLOWFILE.md).
            if let key = contributor.keyNode("steppers") {
                sink.report(
                    .notAllowedHere, at: key.location, "a child flow has one stepper",
                    fix: "write 'stepper:' with one stepper")
            }
            kind = MappingReader.scalar(valueNode, as: "'flow'", sink: sink).map {
                .flow($0, stepper: steppers.first, allowStepWhenDismissed: contributor.bool("allowStepWhenDismissed"))
            }
        case "forwardToCurrentFlow": kind = decodeStepRef(valueNode).map { .forwardToCurrentFlow($0) }
        default: kind = decodeStepRef(valueNode).map { .forwardToParentFlow($0) }
        }
        if keyword.hasPrefix("forward"), let key = modifiers.compactMap(contributor.keyNode).first {
            sink.report(
                .notAllowedHere, at: key.location, "a forward has no stepper and no flags",
                fix: "leave '\(key.text ?? "")' out")
        }
        return kind.map { ContributorDecl(kind: $0, location: node.location) }
    }

    /// A stepper: `{remote: kind, initial, context}`, `{one: step}`, `{actions: {action: step}, initial}` or
    /// `{composite: [stepper, …]}`.
    func decodeStepper(_ node: FileNode) -> StepperSpec? {
        guard
            let stepper = MappingReader(
                node, as: "a stepper", keys: Self.stepperKeywords + ["initial", "context"], sink: sink)
        else { return nil }
        guard
            let (keyword, valueNode) = stepper.one(
                of: Self.stepperKeywords, none: "a stepper names no kind",
                several: { "a stepper names \($0.joined(separator: " and "))" },
                fix: "write one of 'remote: <stepper kind>', 'one: <step>', 'actions: {<action>: <step>}', "
                    + "'composite: [<stepper>, …]'")
        else { return nil }
        let initial = stepper.value("initial").flatMap(decodeStepRef)
        switch keyword {
        case "remote":
            guard let kind = MappingReader.scalar(valueNode, as: "'remote'", sink: sink) else { return nil }
            return StepperSpec(
                kind: .remote(kind, initial: initial, context: stepper.value("context").flatMap(decodeTemplateValue)),
                location: node.location
            )
        case "one":
            if let key = stepper.keyNode("initial") ?? stepper.keyNode("context") {
                sink.report(
                    .notAllowedHere, at: key.location, "a one-step stepper has only its step",
                    fix: "leave '\(key.text ?? "")' out")
            }
            return decodeStepRef(valueNode).map { StepperSpec(kind: .one($0), location: node.location) }
        case "composite":
            return decodeComposite(stepper, valueNode, at: node.location)
        default:
            if let key = stepper.keyNode("context") {
                sink.report(
                    .notAllowedHere, at: key.location, "an action stepper has no context", fix: "leave 'context' out")
            }
            guard let entries = MappingReader.namedEntries(valueNode, as: "'actions'", sink: sink) else { return nil }
            let actions = entries.compactMap { action, value in
                decodeStepRef(value).map { StepperSpec.ActionMapping(action: action, step: $0) }
            }
            return StepperSpec(kind: .actions(actions, initial: initial), location: node.location)
        }
    }
}

extension FlowFileDecoder {
    /// `{composite: [stepper, …]}`: `CompositeStepper(steppers:)`, each item a stepper (a composite too). A composite
    /// of none is refused: it would attach nothing (SEMANTICS R12), so the contributor would have no stepper.
    private func decodeComposite(_ stepper: MappingReader, _ list: FileNode, at location: SourceLocation) -> StepperSpec? {
        if let key = stepper.keyNode("initial") ?? stepper.keyNode("context") {
            sink.report(
                .notAllowedHere, at: key.location, "a composite stepper has only its steppers (each its own initial step)",
                fix: "leave '\(key.text ?? "")' out, or write it on one of its steppers")
        }
        guard case .sequence(let items) = list.value else {
            sink.report(
                .wrongType, at: list.location, "'composite' is a list of steppers, not \(list.what)",
                fix: "write it as a list: 'composite: [{remote: <stepper kind>}, {actions: {<action>: <step>}}]'")
            return nil
        }
        guard !items.isEmpty else {
            sink.report(
                .missingStepper, at: list.location, "the composite stepper lists no steppers",
                fix: "list one or more: 'composite: [{remote: <stepper kind>}, {actions: {<action>: <step>}}]'")
            return nil
        }
        let inner = items.compactMap(decodeStepper)
        guard inner.count == items.count else { return nil }
        return StepperSpec(kind: .composite(inner), location: location)
    }
}
