/// Checks an ``AppFile``'s names against each other: steps, flows, screens, stepper kinds, screen types, actions,
/// templates and payloads; then the graph (``FlowFileValidator/checkGraph()``): reachable flows, handled steps,
/// screen IDs, deep links. Every mistake is reported; nothing stops at the first.
struct FlowFileValidator {
    let app: AppFile
    let sink: DiagnosticSink

    var stepNames: [String] { app.steps.map(\.name.value) }
    var flowNames: [String] { app.flows.map(\.name.value) }

    func validate() {
        checkWireNames()
        checkVocabulary()
        checkRoot()
        for flow in app.flows { check(flow) }
        checkGraph()
    }

    // MARK: - Vocabulary

    private func checkVocabulary() {
        for kind in app.stepperKinds {
            for step in kind.steps { _ = knownStep(step) }
        }
    }

    /// The step declared as `name`; reported when there is none.
    func knownStep(_ name: Name) -> StepDecl? {
        known(name, app.step(name.value), .unknownStep, "step", among: stepNames, under: "steps")
    }

    /// The flow declared as `name`; reported when there is none.
    func knownFlow(_ name: Name) -> FlowDecl? {
        known(name, app.flow(name.value), .unknownFlow, "flow", among: flowNames, under: "flows")
    }

    /// `declaration`; when `name` declares nothing, `nil`, reported as `code` (`unknown <what> '<name>'`, `in
    /// place` when given) with the nearest of `names` to write instead.
    private func known<Declaration>(
        _ name: Name, _ declaration: Declaration?, _ code: FlowFileDiagnostic.Code, _ what: String,
        among names: @autoclosure () -> [String], under section: String, in place: String? = nil
    ) -> Declaration? {
        if let declaration { return declaration }
        sink.report(
            code, at: name.location, "unknown \(what) '\(name)'" + (place.map { " in \($0)" } ?? ""),
            fix: instead(of: name.value, among: names(), otherwise: "declare '\(name)' under '\(section):'")
        )
        return nil
    }

    // MARK: - Root

    private func checkRoot() {
        guard let flow = knownFlow(app.root.flow) else { return }
        if let stepper = app.root.stepper {
            _ = check(stepper, scope: nil, screen: nil)
        } else if flow.stepper == nil {
            sink.report(
                .missingStepper, at: app.root.location, "the root flow '\(flow.name)' has no stepper",
                fix: "give 'root' a 'stepper:' or the flow '\(flow.name)' one of its own"
            )
        }
    }

    // MARK: - Flows

    private func check(_ flow: FlowDecl) {
        if flow.name.value == "root" {
            sink.report(
                .duplicateName, at: flow.name.location,
                "the flow name 'root' is taken: in a handler, 'root' names the handling flow's own root",
                fix: "give the flow another name")
        }
        if !flow.root.id.isLiteral {
            sink.report(
                .notAllowedHere, at: flow.root.id.location, "the root id of '\(flow.name)' is a template",
                fix: "write a fixed id: a flow's root is its identity (two live flows cannot share one, D17)"
            )
        }
        for screen in flow.screens {
            if screen.name.value == "root" || app.flow(screen.name.value) != nil {
                let what =
                    screen.name.value == "root"
                    ? "'root' names the flow's root" : "a flow is named '\(screen.name)' too"
                sink.report(
                    .duplicateName, at: screen.name.location, "the screen name '\(screen.name)' is taken: \(what)",
                    fix: "give the screen another name"
                )
            }
        }
        for screen in [flow.root] + flow.screens { checkScreenType(screen) }
        if let stepper = flow.stepper { _ = check(stepper, scope: nil, screen: nil) }
        if let adapt = flow.adapt { check(adapt) }
        for handler in flow.handlers { check(handler, in: flow) }
    }

    private func check(_ adapt: AdaptDecl) {
        _ = known(
            adapt.kind, app.stepperKind(adapt.kind.value), .unknownStepperKind, "stepper kind",
            among: app.stepperKinds.map(\.kind.value), under: "stepperKinds", in: "'adapt'"
        )
        for step in adapt.steps { _ = knownStep(step) }
    }

    private func checkScreenType(_ screen: ScreenDecl) {
        guard let type = screen.type else { return }
        guard
            let declared = known(
                type, app.screenType(type.value), .unknownScreenType, "screen type",
                among: app.screenTypes.map(\.type.value), under: "screenTypes"
            )
        else { return }
        if declared.kind != screen.kind {
            sink.report(
                .wrongType, at: type.location,
                "the screen type '\(type)' is a \(declared.kind.rawValue), but this screen is a \(screen.kind.rawValue)",
                fix: "write 'kind: \(declared.kind.rawValue)' or another type"
            )
        }
    }

    private func check(_ handler: StepHandler, in flow: FlowDecl) {
        let step = knownStep(handler.step)
        let scope = TemplateScope.handler(of: step, name: handler.step.value)
        var checked: Set<String> = []
        func screen(_ ref: ScreenRef) -> ScreenDecl? {
            let screen = resolve(ref, in: flow)
            if let screen, !app.flows.contains(where: { $0.root == screen }), checked.insert(screen.name.value).inserted
            {
                checkTemplates(of: screen, scope: scope)
            }
            return screen
        }
        let started = handler.contributors.compactMap { contributor -> Name? in
            if case .flow(let name, _, _) = contributor.kind { return name }
            return nil
        }
        for command in handler.commands { check(command, screen: screen) }
        for use in handler.uses {
            for name in use.flows
            where app.flow(name.value) != nil && !started.contains(where: { $0.value == name.value }) {
                sink.report(
                    .notAllowedHere, at: name.location, "'use' waits for '\(name)', which this step does not start",
                    fix: "name a flow this step's 'contribute' starts ("
                        + started.map { "'\($0)'" }.joined(separator: ", ") + ")"
                )
            }
            for name in use.flows { _ = knownFlow(name) }
            if use.flows.isEmpty && started.isEmpty {
                sink.report(
                    .notAllowedHere, at: use.location, "'use' waits for child flows, and this step starts none",
                    fix: "start a flow in 'contribute' ('- flow: <name>'), or move the commands to 'commands'"
                )
            }
            for command in use.commands { check(command, screen: screen) }
        }
        for contributor in handler.contributors {
            switch contributor.kind {
            case .screen(let ref, let steppers, _, _):
                let shown = screen(ref)
                if steppers.isEmpty {
                    sink.report(
                        .missingStepper, at: contributor.location, "the contributor of '\(ref)' has no stepper",
                        fix: "add 'stepper: {remote: <kind>}', '{one: <step>}' or '{actions: {<action>: <step>}}'"
                    )
                }
                for stepper in steppers { _ = check(stepper, scope: scope, screen: shown) }
            case .flow(let name, let stepper, _):
                let child = knownFlow(name)
                if name.value == flow.name.value {
                    sink.report(
                        .notAllowedHere, at: name.location, "the flow '\(name)' starts itself",
                        fix: "start another flow: its root is in use while it runs, so the child would be refused (D17)")
                }
                if let stepper {
                    _ = check(stepper, scope: scope, screen: nil)
                } else if let child, child.stepper == nil {
                    sink.report(
                        .missingStepper, at: contributor.location, "the flow '\(name)' is started without a stepper",
                        fix: "add 'stepper:' here, or give the flow '\(name)' a 'stepper:' of its own"
                    )
                }
            case .forwardToCurrentFlow(let ref), .forwardToParentFlow(let ref):
                check(ref, scope: scope)
            }
        }
        if let end = handler.end { check(end, scope: scope) }
        checkStartedRoots(of: handler)
        checkRepeatedPlacements(of: handler, in: flow)
    }

    /// The flows one handler starts run at once, so their roots (fixed ids, D17) must differ: a flow started twice,
    /// or two flows with one root id, would have the second refused (`rootInUse`).
    private func checkStartedRoots(of handler: StepHandler) {
        var started: [String: String] = [:]  // root id -> the flow started with it
        for contributor in handler.contributors {
            guard case .flow(let name, _, _) = contributor.kind, let child = app.flow(name.value) else { continue }
            guard let first = started[child.root.id.source] else {
                started[child.root.id.source] = name.value
                continue
            }
            let what =
                first == name.value
                ? "the handler of '\(handler.step)' starts '\(name)' twice"
                : "the handler of '\(handler.step)' starts '\(first)' and '\(name)', whose roots are both "
                    + "'\(child.root.id.source)'"
            sink.report(
                .notAllowedHere, at: name.location, what,
                fix: "start each flow once, with roots of their own: two live flows cannot share a root, so the "
                    + "second would be refused (D17)")
        }
    }

    private func check(_ command: CommandDecl, screen: (ScreenRef) -> ScreenDecl?) {
        let shown = command.shown.map { ($0, screen($0)) }
        // A setStack or setTabs showing one screen (one id) twice never fits the UI: a screen is shown once.
        for (index, (ref, resolved)) in shown.enumerated() {
            guard let resolved,
                let (earlier, _) = shown[..<index].first(where: { $0.1?.id.source == resolved.id.source })
            else { continue }
            sink.report(
                .notAllowedHere, at: ref.location,
                "'\(command.keyword)' shows '\(ref)' where it shows '\(earlier)' already (the id '\(resolved.id.source)')",
                fix: "name each screen once: a screen is in the UI once")
        }
        guard let containerRef = command.container, let container = screen(containerRef) else { return }
        let needed: ScreenKindName?
        switch command.action {
        case .push, .pop, .popToRoot, .setStack: needed = .stack
        case .setTabs, .selectTab: needed = .tabs
        case .showMaster, .showDetail: needed = .split
        default: needed = nil
        }
        if let needed, container.kind != needed {
            sink.report(
                .wrongContainer, at: containerRef.location,
                "'\(command.keyword)' needs a \(needed.rawValue), and '\(containerRef)' is a \(container.kind.rawValue)",
                fix: "name a \(needed.rawValue) here (a flow's root or a screen of kind \(needed.rawValue))"
            )
        }
        if case .alert = command.action, let (ref, alert) = shown.first, let alert, alert.kind != .alert {
            sink.report(
                .wrongContainer, at: ref.location,
                "'alert' shows a screen of kind alert, and '\(ref)' is a \(alert.kind.rawValue)",
                fix: "write 'present: \(ref)', or give the screen 'kind: alert'"
            )
        }
    }

    /// The screen a handler names: `root`, one of the flow's screens, or a flow's root; reported when none.
    func resolve(_ ref: ScreenRef, in flow: FlowDecl) -> ScreenDecl? {
        if ref.value == "root" { return flow.root }
        if let screen = flow.screen(ref.value) { return screen }
        if let other = app.flow(ref.value) { return other.root }
        sink.report(
            .unknownScreen, at: ref.location, "unknown screen '\(ref)' in the flow '\(flow.name)'",
            fix: instead(
                of: ref.value, among: ["root"] + flow.screens.map(\.name.value) + flowNames,
                otherwise: "declare '\(ref)' under the flow's 'screens:'"
            )
        )
        return nil
    }

    private func checkTemplates(of screen: ScreenDecl, scope: TemplateScope) {
        _ = scope.type(of: screen.id, sink: sink)
        if let data = screen.data { _ = scope.type(of: data, sink: sink) }
    }

    // MARK: - Steppers and steps

    /// Checks a stepper; returns the steps it may emit (a remote kind's declared steps included).
    @discardableResult
    func check(_ stepper: StepperSpec, scope: TemplateScope?, screen: ScreenDecl?) -> [String] {
        let fixedScope = scope ?? TemplateScope(names: [:], owner: "this stepper", isDeepLink: false)
        switch stepper.kind {
        case .remote(let kind, let initial, let context):
            if let initial { check(initial, scope: fixedScope) }
            if let context { _ = fixedScope.type(of: context, sink: sink) }
            guard
                let declared = known(
                    kind, app.stepperKind(kind.value), .unknownStepperKind, "stepper kind",
                    among: app.stepperKinds.map(\.kind.value), under: "stepperKinds"
                )
            else { return stepper.steps.map(\.name.value) }
            return stepper.steps.map(\.name.value) + declared.steps.map(\.value)
        case .one(let step):
            check(step, scope: fixedScope)
        case .composite(let steppers):
            return steppers.flatMap { check($0, scope: scope, screen: screen) }
        case .actions(let actions, let initial):
            if let initial { check(initial, scope: fixedScope) }
            let type = screen.flatMap { app.screenType($0.typeName) }
            for mapping in actions {
                let action = type?.actions.first { $0.name.value == mapping.action.value }
                if let screen, type == nil {
                    sink.report(
                        .unknownAction, at: mapping.action.location,
                        "the screen '\(screen.name)' has no declared type, so it accepts no action '\(mapping.action)'",
                        fix: "give it a 'type:' declared under 'screenTypes:' with '\(mapping.action)' under its 'actions:'"
                    )
                } else if let screen, action == nil {
                    let accepted = type?.actions.map(\.name.value) ?? []
                    sink.report(
                        .unknownAction, at: mapping.action.location,
                        "the screen type '\(screen.typeName)' accepts no action '\(mapping.action)'",
                        fix: instead(
                            of: mapping.action.value, among: accepted,
                            otherwise:
                                "declare '\(mapping.action)' under 'actions:' of the screen type '\(screen.typeName)'"
                        )
                    )
                }
                check(mapping.step, scope: fixedScope, carried: action?.payload?.type)
            }
        }
        return stepper.steps.map(\.name.value)
    }

    /// Checks a written step: declared, and its payload of the declared type. `carried` is the payload an action
    /// hands over when the step gives none (ActionStepper).
    func check(_ ref: StepRef, scope: TemplateScope, carried: PayloadType? = nil) {
        guard let step = knownStep(ref.name) else {
            if let payload = ref.payload { _ = scope.type(of: payload, sink: sink) }
            return
        }
        let declared = step.payloadType
        guard let payload = ref.payload else {
            let given = carried ?? .none
            if declared == .none && given != .none {
                // ActionStepper hands the action's payload to a step written without one, and a FileFlow drops a
                // step that carries a payload it does not declare.
                sink.report(
                    .payloadMismatch, at: ref.location,
                    "the step '\(step.name)' carries no payload, and the action hands it its payload (\(given))",
                    fix: "declare a payload for the step under 'steps:', or map the action to a step that carries one"
                )
            } else if declared != .none && !(declared.accepts(given) && given != .none) {
                sink.report(
                    .payloadMismatch, at: ref.location,
                    "the step '\(step.name)' carries a payload (\(declared)), and none is given here",
                    fix: "write '{step: \(step.name), payload: <\(declared)>}'"
                )
            }
            return
        }
        guard let given = scope.type(of: payload, sink: sink) else { return }
        // 'payload: null' is the payload of a step that carries none, as the wire's null is.
        if declared == .none && given == .none { return }
        if declared == .none {
            sink.report(
                .payloadMismatch, at: ref.location, "the step '\(step.name)' carries no payload, and one is given here",
                fix: "write '\(step.name)' alone, or declare a payload for it under 'steps:'"
            )
        } else if !declared.accepts(given) {
            sink.report(
                .payloadMismatch, at: ref.location,
                "the step '\(step.name)' carries \(declared), and this payload is \(given)",
                fix: "give a payload of type \(declared)"
            )
        }
    }
}

@available(*, unavailable)
extension FlowFileValidator: Sendable {}
