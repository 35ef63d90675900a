extension FlowFileValidator {
    /// A flow started by another, with the stepper it is coordinated with.
    struct ChildEdge {
        var parent: FlowDecl
        var child: FlowDecl
        var stepper: StepperSpec?
        var location: SourceLocation
        /// Where the child's name is written.
        var nameLocation: SourceLocation
    }

    /// Every child-flow contribution, in file order.
    var childEdges: [ChildEdge] {
        app.flows.flatMap { parent in
            parent.handlers.flatMap { handler in
                handler.contributors.compactMap { contributor -> ChildEdge? in
                    guard case .flow(let name, let stepper, _) = contributor.kind, let child = app.flow(name.value)
                    else { return nil }
                    return ChildEdge(
                        parent: parent, child: child, stepper: stepper ?? child.stepper, location: contributor.location,
                        nameLocation: name.location)
                }
            }
        }
    }

    func checkGraph() {
        let edges = childEdges
        checkReachability(edges)
        checkStartsOfRunningFlows(edges)
        checkRouting(edges)
        checkScreenIDs()
        checkDeepLinks()
    }

    private func checkReachability(_ edges: [ChildEdge]) {
        guard app.flow(app.root.flow.value) != nil else { return }
        let reached = reachable(edges)
        for flow in app.flows where !reached.contains(flow.name.value) {
            sink.report(
                .unreachableFlow, at: flow.name.location, "the flow '\(flow.name)' is never started",
                fix: "start it from a reachable flow ('contribute: - flow: \(flow.name)') or remove it"
            )
        }
    }

    /// The flows reached from the root through `edges` without going through `avoided`.
    private func reachable(_ edges: [ChildEdge], avoiding avoided: String? = nil) -> Set<String> {
        guard app.flow(app.root.flow.value) != nil, app.root.flow.value != avoided else { return [] }
        var reached: Set<String> = [app.root.flow.value]
        var queue = [app.root.flow.value]
        while let next = queue.popLast() {
            for edge in edges where edge.parent.name.value == next && edge.child.name.value != avoided
                && reached.insert(edge.child.name.value).inserted
            {
                queue.append(edge.child.name.value)
            }
        }
        return reached
    }

    /// A flow that starts one of the flows every way to it goes through (the root, or a flow above it on each path)
    /// starts a flow that is running: its root is in use, so the daemon refuses the child (D17, `rootInUse`). A flow
    /// starting itself is reported where its handler is checked.
    private func checkStartsOfRunningFlows(_ edges: [ChildEdge]) {
        let reached = reachable(edges)
        var withoutFlow: [String: Set<String>] = [:]
        for edge in edges where edge.parent.name.value != edge.child.name.value {
            let parent = edge.parent.name.value, child = edge.child.name.value
            guard reached.contains(parent) else { continue }
            let rest = withoutFlow[child] ?? reachable(edges, avoiding: child)
            withoutFlow[child] = rest
            guard !rest.contains(parent) else { continue }
            sink.report(
                .notAllowedHere, at: edge.nameLocation,
                "the flow '\(parent)' starts '\(child)', which runs whenever '\(parent)' does (every way to '\(parent)' "
                    + "goes through it)",
                fix: "start another flow: its root is in use while it runs, so the child would be refused (D17)")
        }
    }

    /// Every step that reaches a flow (from its stepper, its screens' steppers, forwards, its children's ends) must
    /// have a handler there; every declared step must have one somewhere.
    private func checkRouting(_ edges: [ChildEdge]) {
        func require(_ step: String, in flow: FlowDecl, at location: SourceLocation, from source: String) {
            guard app.step(step) != nil, flow.handler(step) == nil else { return }
            sink.report(
                .unhandledStep, at: location, "the flow '\(flow.name)' has no handler for '\(step)', which \(source)",
                fix: "add '\(step):' under 'navigate:' of '\(flow.name)' (an empty handler does nothing)"
            )
        }
        func requireAll(_ stepper: StepperSpec, in flow: FlowDecl, what: String) {
            let steps = check(stepper, scope: nil, screen: nil, quietly: true)
            for step in Array(Set(steps)).sorted() {
                require(step, in: flow, at: stepper.location, from: "\(what) may emit")
            }
        }
        if let root = app.flow(app.root.flow.value), let stepper = app.root.stepper ?? root.stepper {
            requireAll(stepper, in: root, what: "its stepper")
        }
        for edge in edges {
            if let stepper = edge.stepper {
                requireAll(stepper, in: edge.child, what: "the stepper it is started with")
            }
        }
        let isChild = Set(edges.map(\.child.name.value))
        for flow in app.flows {
            let parents = edges.filter { $0.child.name.value == flow.name.value }.map(\.parent)
            func toParents(_ ref: StepRef, what: String) {
                if parents.isEmpty && flow.name.value == app.root.flow.value && !isChild.contains(flow.name.value) {
                    sink.report(
                        .noParentFlow, at: ref.location,
                        "the root flow '\(flow.name)' has no parent to hand '\(ref.name)' to (\(what))",
                        fix:
                            "handle the step in '\(flow.name)' itself (a forward or end on the root flow is dropped, D10)"
                    )
                }
                for parent in parents {
                    require(
                        ref.name.value, in: parent, at: ref.location,
                        from: "its child '\(flow.name)' hands it (\(what))")
                }
            }
            for handler in flow.handlers {
                for contributor in handler.contributors {
                    switch contributor.kind {
                    case .screen(_, let steppers, _, _):
                        for stepper in steppers { requireAll(stepper, in: flow, what: "a stepper of its screen") }
                    case .forwardToCurrentFlow(let ref):
                        require(ref.name.value, in: flow, at: ref.location, from: "it forwards to itself")
                    case .forwardToParentFlow(let ref): toParents(ref, what: "forwardToParentFlow")
                    case .flow: break
                    }
                }
                if let end = handler.end { toParents(end, what: "end") }
            }
        }
        let handled = Set(app.flows.flatMap { $0.handlers.map(\.step.value) })
        for step in app.steps where !handled.contains(step.name.value) {
            sink.report(
                .unhandledStep, at: step.name.location, "no flow handles the step '\(step.name)'",
                fix: "add '\(step.name):' under 'navigate:' of the flow that should handle it, or remove the step"
            )
        }
    }

    private func checkScreenIDs() {
        var seen: [(screen: ScreenDecl, flow: FlowDecl)] = []
        for flow in app.flows {
            for screen in [flow.root] + flow.screens {
                let name = describe((screen, flow))
                if let other = seen.first(where: { $0.screen.id.source == screen.id.source }) {
                    // The same screen written in two flows (a detail both push onto a shared stack) is one screen.
                    if other.flow.name.value != flow.name.value && other.screen.sameScreen(as: screen) { continue }
                    sink.report(
                        .duplicateScreenID, at: screen.id.location,
                        "the screen id '\(screen.id)' of \(name) is already the id of \(describe(other)) (\(other.screen.id.location.lineAndColumn))",
                        fix:
                            "give each screen its own id (a screen written in two flows has the same kind, type and data in both); "
                                + "a screen whose data changes is declared once, with a template: data: \"{payload}\""
                    )
                } else if let other = seen.first(where: { IDPattern($0.screen.id).collides(with: IDPattern(screen.id)) }
                ) {
                    sink.report(
                        .collidingScreenIDs, at: screen.id.location,
                        "the screen id '\(screen.id)' of \(name) can be the same as '\(other.screen.id)' of \(describe(other)) (\(other.screen.id.location.lineAndColumn))",
                        fix: "make the ids differ in their fixed text (a prefix of their own, say)"
                    )
                }
                seen.append((screen, flow))
            }
        }
    }

    private func describe(_ entry: (screen: ScreenDecl, flow: FlowDecl)) -> String {
        entry.screen.name.value == "root"
            ? "the root of the flow '\(entry.flow.name)'"
            : "the screen '\(entry.screen.name)' of the flow '\(entry.flow.name)'"
    }

    private func checkDeepLinks() {
        var shapes: [String: DeepLinkDecl] = [:]
        for link in app.deepLinks {
            if let other = shapes[link.pattern.shape] {
                sink.report(
                    .duplicateURIPattern, at: link.pattern.location,
                    "the URI pattern '\(link.pattern)' matches the same URIs as '\(other.pattern)' (\(other.pattern.location.lineAndColumn))",
                    fix: "make the patterns differ in a fixed segment, or merge them"
                )
            } else {
                shapes[link.pattern.shape] = link
            }
            let scope = TemplateScope(
                names: link.pattern.variables, owner: "the URI pattern '\(link.pattern)'", isDeepLink: true)
            if link.steps.isEmpty {
                sink.report(
                    .missingKey, at: link.location, "the deep link '\(link.pattern)' has no steps",
                    fix: "list the steps it stands for under 'steps:'")
            }
            for ref in link.steps {
                check(ref, scope: scope)
                if let step = app.step(ref.name.value), !step.deepLink {
                    sink.report(
                        .notDeepLinkable, at: ref.name.location,
                        "the step '\(ref.name)' is not one an operator may deep-link",
                        fix: "add 'deepLink: true' to the step '\(ref.name)' under 'steps:'"
                    )
                }
            }
        }
    }
}

extension FlowFileValidator {
    /// The steps a stepper may emit, without reporting anything (its checks ran with its flow's).
    func check(_ stepper: StepperSpec, scope: TemplateScope?, screen: ScreenDecl?, quietly: Bool) -> [String] {
        let quiet = FlowFileValidator(app: app, sink: DiagnosticSink())
        return quiet.check(stepper, scope: scope, screen: screen)
    }
}

extension ScreenDecl {
    /// Whether both declare the same screen: the same id, kind, type and data, wherever written.
    func sameScreen(as other: ScreenDecl) -> Bool {
        id.source == other.id.source && kind == other.kind && typeName == other.typeName
            && data.map(\.shape) == other.data.map(\.shape)
    }
}

extension TemplateValue {
    /// The value as written, without where.
    var shape: String {
        switch self {
        case .literal(let value): return value.description
        case .text(let template): return "\"" + template.source + "\""
        case .array(let items): return "[" + items.map(\.shape).joined(separator: ",") + "]"
        case .object(let members):
            return "{" + members.keys.sorted().map { "\($0):\(members[$0]!.shape)" }.joined(separator: ",") + "}"
        }
    }
}

/// A screen id template as fixed text and wildcards, each reference matching one or more characters.
struct IDPattern {
    enum Piece: Equatable {
        case text(String)
        case wildcard
    }
    var pieces: [Piece]

    init(_ template: Template) {
        pieces = template.parts.map { part in
            if case .literal(let text) = part { return .text(text) }
            return .wildcard
        }
    }

    /// Whether some id can be made by both: the same shape, or a fixed id the other pattern matches. (Two different
    /// patterns are not compared further: a check that says no may miss a collision, never invent one.)
    func collides(with other: IDPattern) -> Bool {
        if pieces == other.pieces { return true }
        if let fixed = fixedText { return other.matches(Array(fixed.unicodeScalars)[...], other.pieces[...]) }
        if let fixed = other.fixedText { return matches(Array(fixed.unicodeScalars)[...], pieces[...]) }
        return false
    }

    private var fixedText: String? {
        if pieces.contains(.wildcard) { return nil }
        return pieces.map { if case .text(let text) = $0 { return text } else { return "" } }.joined()
    }

    private func matches(_ text: ArraySlice<Unicode.Scalar>, _ pattern: ArraySlice<Piece>) -> Bool {
        guard let first = pattern.first else { return text.isEmpty }
        switch first {
        case .text(let literal):
            let scalars = Array(literal.unicodeScalars)
            guard text.starts(with: scalars) else { return false }
            return matches(text.dropFirst(scalars.count), pattern.dropFirst())
        case .wildcard:
            guard !text.isEmpty else { return false }
            for length in 1...text.count where matches(text.dropFirst(length), pattern.dropFirst()) { return true }
            return false
        }
    }
}
