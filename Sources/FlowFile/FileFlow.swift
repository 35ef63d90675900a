package import FlowCore

/// A flow declared in a flow file: ``navigate(to:with:)`` does what the file's handler for the step says.
///
/// The handler's screens, steps and contexts are evaluated with the step's payload first, then the commands are
/// recorded, so a step whose payload does not give what the handler names (a step from a service with a payload of
/// another shape) records nothing and returns `.none`, as a Swift flow's `default:` branch does. A step the flow has
/// no handler for returns `.none` too.
///
/// Not `Sendable`: a flow lives in its coordinator's isolation.
package final class FileFlow: Flow {
    package let root: Screen
    /// The file it is declared in.
    package let file: AppFile
    /// Its declaration.
    package let declaration: FlowDecl

    /// The flow `declaration` of `file`; its root id is fixed text (the checks make sure of it).
    package init(_ declaration: FlowDecl, of file: AppFile) {
        self.file = file
        self.declaration = declaration
        root = (try? declaration.root.screen(in: [:])) ?? Screen(id: PresentableID(declaration.root.id.source))
    }

    /// The flow's name in the file.
    package var flowName: String { declaration.name.value }

    /// The steps the file's `adapt` names are asked of its stepper kind (flowd's `ADAPT`); the others go through.
    package func adapt(step: Step) -> Adaptation {
        guard let adapt = declaration.adapt, adapt.steps.contains(where: { $0.value == step.name }) else {
            return .step(step)
        }
        return .asked(of: adapt.kind.value)
    }

    package func navigate(to step: Step, with navigator: Navigator) -> FlowContributors {
        guard let handler = declaration.handler(step.name),
            file.admitsPayload(of: step),
            let navigation = try? Navigation(handler, flow: self, payload: step.payload)
        else { return .none }
        return navigation.record(on: navigator)
    }
}

@available(*, unavailable)
extension FileFlow: Sendable {}

extension FileFlow: DeepLinkTargetFlow {
    /// The screens the handler of `step` shows with its payload (what its commands place and its contributors name),
    /// in order; `nil` when the flow has no handler for `step`, or the payload does not give what the handler names.
    package func screens(showing step: Step) -> [PresentableID]? {
        guard let handler = declaration.handler(step.name),
            file.admitsPayload(of: step),
            let navigation = try? Navigation(handler, flow: self, payload: step.payload)
        else { return nil }
        return navigation.shownScreens
    }
}

/// One handler's navigation, evaluated before anything is recorded.
private struct Navigation {
    var commands: [NavigationCommand] = []
    var created: [NavigationCommand] = []
    var ready: [(flows: [FileFlow], commands: [NavigationCommand])] = []
    var contributors: [FlowContributor] = []
    var end: Step?

    init(_ handler: StepHandler, flow: FileFlow, payload: JSONValue) throws(TemplateError) {
        let scope = ["payload": payload]
        // `flow.file` read in place: a local copy of the file's description retained each of its fields a step.
        var children: [(name: String, flow: FileFlow)] = []
        for contributor in handler.contributors {
            if case .flow(let name, _, _) = contributor.kind, let declaration = flow.file.flow(name.value) {
                children.append((name.value, FileFlow(declaration, of: flow.file)))
            }
        }
        func screen(_ ref: ScreenRef) throws(TemplateError) -> Screen {
            if ref.value == "root" { return flow.root }
            if let declared = flow.declaration.screen(ref.value) { return try declared.screen(in: scope) }
            if let child = children.first(where: { $0.name == ref.value }) { return child.flow.root }
            if let other = flow.file.flow(ref.value) { return FileFlow(other, of: flow.file).root }
            throw TemplateError(template: ref.value, missing: "a screen named '\(ref.value)'")
        }
        func evaluate(_ declared: [CommandDecl]) throws(TemplateError) -> [NavigationCommand] {
            var commands: [NavigationCommand] = []
            for command in declared { commands.append(try Self.command(command, screen: screen)) }
            return commands
        }
        commands = try evaluate(handler.commands)
        for use in handler.uses {
            let recorded = try evaluate(use.commands)
            switch use.when {
            case .created: created += recorded
            case .ready:
                let named = use.flows.map(\.value)
                let flows = children.filter { named.isEmpty || named.contains($0.name) }.map(\.flow)
                ready.append((flows, recorded))
            }
        }
        for contributor in handler.contributors {
            switch contributor.kind {
            case .screen(let ref, let steppers, let allowNotPresented, let allowDismissed):
                let shown = try screen(ref)
                for spec in steppers {
                    contributors.append(
                        .contribute(
                            withNextPresentable: shown, withNextStepper: try spec.stepper(in: scope),
                            allowStepWhenNotPresented: allowNotPresented, allowStepWhenDismissed: allowDismissed
                        )
                    )
                }
            case .flow(let name, let spec, let allowDismissed):
                guard let child = children.first(where: { $0.name == name.value })?.flow,
                    let spec = spec ?? child.declaration.stepper
                else { continue }
                contributors.append(
                    .contribute(
                        withNextPresentable: child, withNextStepper: try spec.stepper(in: scope),
                        allowStepWhenDismissed: allowDismissed
                    )
                )
            case .forwardToCurrentFlow(let ref):
                contributors.append(.forwardToCurrentFlow(withStep: try ref.step(in: scope)))
            case .forwardToParentFlow(let ref):
                contributors.append(.forwardToParentFlow(withStep: try ref.step(in: scope)))
            }
        }
        end = try handler.end?.step(in: scope)
    }

    /// The screens the commands place (pushed, presented, set, shown) and the contributors name, each once.
    var shownScreens: [PresentableID] {
        var shown: [PresentableID] = []
        func add(_ id: PresentableID) { if !shown.contains(id) { shown.append(id) } }
        for command in commands + created + ready.flatMap(\.commands) {
            switch command {
            case .setRoot(let screen), .push(let screen, _), .present(let screen, _), .showMaster(_, let screen),
                .showDetail(_, let screen):
                add(screen.id)
            case .setStack(_, let screens), .setTabs(_, let screens, _):
                screens.forEach { add($0.id) }
            default:
                break
            }
        }
        for case .contribute(let presentable, _, _, _) in contributors { add(presentable.presentableID) }
        return shown
    }

    func record(on navigator: Navigator) -> FlowContributors {
        for command in commands + created { navigator.perform(command) }
        for (flows, commands) in ready {
            Flows.use(flows, when: .ready, in: navigator) { navigator in
                for command in commands { navigator.perform(command) }
            }
        }
        if let end { return .end(forwardToParentFlowWithStep: end) }
        switch contributors.count {
        case 0: return .none
        case 1: return .one(flowContributor: contributors[0])
        default: return .multiple(flowContributors: contributors)
        }
    }

    private static func command(_ command: CommandDecl, screen: (ScreenRef) throws(TemplateError) -> Screen)
        throws(TemplateError) -> NavigationCommand
    {
        func id(_ ref: ScreenRef) throws(TemplateError) -> PresentableID { try screen(ref).id }
        func screens(_ refs: [ScreenRef]) throws(TemplateError) -> [Screen] {
            var screens: [Screen] = []
            for ref in refs { screens.append(try screen(ref)) }
            return screens
        }
        switch command.action {
        case .setRoot(let shown): return .setRoot(try screen(shown))
        case .push(let shown, let stack): return .push(try screen(shown), onto: try id(stack))
        case .pop(let stack): return .pop(stack: try id(stack))
        case .popToRoot(let stack): return .popToRoot(stack: try id(stack))
        case .setStack(let shown, let stack): return .setStack(try id(stack), try screens(shown))
        case .present(let shown, let presenter), .alert(let shown, let presenter):
            return .present(try screen(shown), over: try id(presenter))
        case .dismiss(let presenter): return .dismiss(presentedOver: try id(presenter))
        case .setTabs(let shown, let tabs, let selected):
            return .setTabs(try id(tabs), try screens(shown), selected: selected)
        case .selectTab(let index, let tabs): return .selectTab(try id(tabs), index: index)
        case .showMaster(let shown, let split): return .showMaster(try id(split), try screen(shown))
        case .showDetail(let shown, let split): return .showDetail(try id(split), try screen(shown))
        }
    }
}

@available(*, unavailable)
extension Navigation: Sendable {}

extension StepRef {
    /// The step, its payload evaluated in `scope`.
    func step(in scope: [String: JSONValue]) throws(TemplateError) -> Step {
        Step(name.value, payload: try payload?.evaluate(in: scope) ?? .null)
    }
}

extension StepperSpec {
    /// A new stepper as the spec says, its steps and context evaluated in `scope`.
    func stepper(in scope: [String: JSONValue]) throws(TemplateError) -> any Stepper {
        switch kind {
        case .remote(let kind, let initial, let context):
            return RemoteStepper(
                kind: kind.value, initialStep: try initial?.step(in: scope) ?? .none,
                context: try context?.evaluate(in: scope)
            )
        case .one(let step):
            return OneStepper(withSingleStep: try step.step(in: scope))
        case .actions(let mappings, let initial):
            var actions: [String: Step] = [:]
            for mapping in mappings { actions[mapping.action.value] = try mapping.step.step(in: scope) }
            return ActionStepper(actions, initialStep: try initial?.step(in: scope) ?? .none)
        case .composite(let specs):
            var steppers: [any Stepper] = []
            for spec in specs { steppers.append(try spec.stepper(in: scope)) }
            return CompositeStepper(steppers: steppers)
        }
    }
}

extension AppFile {
    /// Whether `step`'s payload is of the type the file declares for it (yes for a step the file does not declare).
    package func admitsPayload(of step: Step) -> Bool {
        self.step(step.name).map { $0.payloadType.admits(step.payload) } ?? true
    }
}

extension PayloadType {
    /// Whether `value` is of this type (an object with at least the declared fields, each of its type).
    package func admits(_ value: JSONValue) -> Bool {
        switch (self, value) {
        case (.any, _), (.none, .null), (.string, .string), (.int, .int), (.number, .int), (.number, .double),
            (.bool, .bool):
            return true
        case (.object(let fields), .object(let members)):
            return fields.allSatisfy { name, type in members[name].map(type.admits) ?? false }
        default:
            return false
        }
    }
}

extension FileFlow: RestorableFlow {
    /// Which of the file's flows it is, and of which version of the file (``AppFile/appVersion``, when known): a
    /// file-declared flow holds nothing else of its own.
    package struct State: Codable, Hashable, Sendable {
        package var flow: String
        package var appVersion: String?
    }

    package var state: State { State(flow: declaration.name.value, appVersion: file.appVersion) }
}
