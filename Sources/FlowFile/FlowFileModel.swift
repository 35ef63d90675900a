public import FlowCore

/// An application declared in a flow file: its steps, stepper kinds and screen types (the vocabulary), its flows,
/// its root and its URI deep links. docs/FLOWFILE.md describes every key.
///
/// Everything keeps where it was written, for diagnostics. ``FlowFile/load(path:)`` reads and checks one.
///
/// `Sendable`: values.
public struct AppFile: Sendable, Hashable {
    /// The format's version (`flowfile: 1`).
    public var version: Int
    /// The application's name.
    public var app: String
    public var root: RootDecl
    /// The steps, in file order.
    public var steps: [StepDecl]
    public var stepperKinds: [StepperKindDecl]
    public var screenTypes: [ScreenTypeDecl]
    public var flows: [FlowDecl]
    public var deepLinks: [DeepLinkDecl]
    /// The version of the file's bytes as flowd names it (the content id `HEALTH` shows as `app_version`), given by
    /// ``FileApplication/init(_:appVersion:)``; `nil` when not known. A flow's saved state names it.
    public var appVersion: String? = nil

    /// The step declared as `name`.
    public func step(_ name: String) -> StepDecl? { steps.first { $0.name.value == name } }
    /// The flow declared as `name`.
    public func flow(_ name: String) -> FlowDecl? { flows.first { $0.name.value == name } }
    /// The stepper kind declared as `kind`.
    public func stepperKind(_ kind: String) -> StepperKindDecl? { stepperKinds.first { $0.kind.value == kind } }
    /// The screen type declared as `type`.
    public func screenType(_ type: String) -> ScreenTypeDecl? { screenTypes.first { $0.type.value == type } }
}

/// The root flow of every session and what it is coordinated with.
public struct RootDecl: Sendable, Hashable {
    public var flow: Name
    /// The stepper; the flow's own when `nil`.
    public var stepper: StepperSpec?
    public var allowStepWhenDismissed: Bool
    public var location: SourceLocation
}

/// A step the application's flows understand.
public struct StepDecl: Sendable, Hashable {
    public var name: Name
    public var payload: PayloadDecl?
    public var summary: String
    /// Whether an operator may inject it as a deep link (`flowctl step`, `DEEPLINK`).
    public var deepLink: Bool

    /// The payload's type; ``PayloadType/none`` when the step declares none.
    public var payloadType: PayloadType { payload?.type ?? .none }
}

/// A stepper kind served by a stepper process, with the steps it may emit.
public struct StepperKindDecl: Sendable, Hashable {
    public var kind: Name
    public var steps: [Name]
    public var summary: String
}

/// A screen type a presenter draws, its kind, its data and the user actions it accepts.
public struct ScreenTypeDecl: Sendable, Hashable {
    public var type: Name
    public var kind: ScreenKindName
    public var data: String?
    public var actions: [ActionDecl]
    public var summary: String?
}

/// A user action a screen type accepts.
public struct ActionDecl: Sendable, Hashable {
    public var name: Name
    public var payload: PayloadDecl?
    public var summary: String
}

/// A screen kind: `view`, `stack`, `tabs`, `split` or `alert` (FlowCore's ``FlowCore/Screen/Kind``).
public enum ScreenKindName: String, Sendable, Hashable, CaseIterable {
    case view, stack, tabs, split, alert

    /// Whether screens are shown inside it (push, tabs, master and detail).
    public var isContainer: Bool { self == .stack || self == .tabs || self == .split }
}

/// A flow: its root, the screens it shows, its own stepper and what each step does.
public struct FlowDecl: Sendable, Hashable {
    public var name: Name
    public var root: ScreenDecl
    /// The stepper it is coordinated with when its parent (or the root declaration) gives none.
    public var stepper: StepperSpec?
    /// The screens it shows, by the names its handlers use.
    public var screens: [ScreenDecl]
    /// What each step does, in file order.
    public var handlers: [StepHandler]
    /// The steps whose `adapt` is asked of a stepper kind.
    public var adapt: AdaptDecl?
    public var location: SourceLocation

    public func screen(_ name: String) -> ScreenDecl? { screens.first { $0.name.value == name } }
    public func handler(_ step: String) -> StepHandler? { handlers.first { $0.step.value == step } }
}

/// `adapt: {kind, steps}`: a flow's `adapt` for these steps is asked of a process serving the stepper kind (flowd's
/// `ADAPT`), which allows the step, replaces it or refuses it.
public struct AdaptDecl: Sendable, Hashable {
    public var kind: Name
    public var steps: [Name]
    public var location: SourceLocation
}

/// A screen as a flow declares it: its ID and data may be templates over the handled step's payload.
public struct ScreenDecl: Sendable, Hashable {
    /// The name handlers use (`root` for a flow's root).
    public var name: Name
    public var id: Template
    public var kind: ScreenKindName
    /// The type a presenter draws; the kind's name when `nil`.
    public var type: Name?
    public var data: TemplateValue?
    public var location: SourceLocation

    /// The type as FlowCore's ``FlowCore/Screen`` has it.
    public var typeName: String { type?.value ?? kind.rawValue }
}

/// What a flow does for one step: commands, then `use` blocks, then its contributors or its end.
public struct StepHandler: Sendable, Hashable {
    public var step: Name
    public var commands: [CommandDecl]
    public var uses: [UseDecl]
    public var contributors: [ContributorDecl]
    /// `.end(forwardToParentFlowWithStep:)`.
    public var end: StepRef?
    public var location: SourceLocation
}

/// `Flows.use(flows, when:)`: commands recorded once child flows are created (at once) or ready.
public struct UseDecl: Sendable, Hashable {
    public enum When: String, Sendable, Hashable { case created, ready }
    public var when: When
    /// The child flows waited for; every flow the step starts when the file names none.
    public var flows: [Name]
    public var commands: [CommandDecl]
    public var location: SourceLocation
}

/// A reference to a screen from a handler: `root`, a screen of the flow, or a flow (its root).
public typealias ScreenRef = Name

/// A navigation command, as a handler writes it.
public struct CommandDecl: Sendable, Hashable {
    public enum Action: Sendable, Hashable {
        case setRoot(ScreenRef)
        case push(ScreenRef, onto: ScreenRef)
        case pop(ScreenRef)
        case popToRoot(ScreenRef)
        case setStack([ScreenRef], in: ScreenRef)
        case present(ScreenRef, over: ScreenRef)
        /// Presents a screen of kind `alert`.
        case alert(ScreenRef, over: ScreenRef)
        case dismiss(ScreenRef)
        case setTabs([ScreenRef], in: ScreenRef, selected: Int)
        case selectTab(Int, in: ScreenRef)
        case showMaster(ScreenRef, in: ScreenRef)
        case showDetail(ScreenRef, in: ScreenRef)
    }

    public var action: Action
    public var location: SourceLocation

    /// The screens shown by the command and the container it acts on, for checks.
    var shown: [ScreenRef] {
        switch action {
        case .setRoot(let screen), .push(let screen, _), .present(let screen, _), .alert(let screen, _),
            .showMaster(let screen, _), .showDetail(let screen, _):
            return [screen]
        case .setStack(let screens, _), .setTabs(let screens, _, _): return screens
        case .pop, .popToRoot, .dismiss, .selectTab: return []
        }
    }

    var container: ScreenRef? {
        switch action {
        case .setRoot: return nil
        case .push(_, let container), .pop(let container), .popToRoot(let container), .setStack(_, let container),
            .present(_, let container), .alert(_, let container), .dismiss(let container),
            .setTabs(_, let container, _),
            .selectTab(_, let container), .showMaster(_, let container), .showDetail(_, let container):
            return container
        }
    }

    /// The command's name as written (`push`).
    var keyword: String {
        switch action {
        case .setRoot: return "setRoot"
        case .push: return "push"
        case .pop: return "pop"
        case .popToRoot: return "popToRoot"
        case .setStack: return "setStack"
        case .present: return "present"
        case .alert: return "alert"
        case .dismiss: return "dismiss"
        case .setTabs: return "setTabs"
        case .selectTab: return "selectTab"
        case .showMaster: return "showMaster"
        case .showDetail: return "showDetail"
        }
    }
}

/// One contributor of a navigation (RxFlow's `FlowContributor`).
public struct ContributorDecl: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        /// Steppers on a screen (several make as many contributors, in order).
        case screen(ScreenRef, steppers: [StepperSpec], allowStepWhenNotPresented: Bool, allowStepWhenDismissed: Bool)
        /// A child flow with its flow stepper (the flow's own when `nil`).
        case flow(Name, stepper: StepperSpec?, allowStepWhenDismissed: Bool)
        case forwardToCurrentFlow(StepRef)
        case forwardToParentFlow(StepRef)
    }

    public var kind: Kind
    public var location: SourceLocation
}

/// A stepper, as a file declares it.
public struct StepperSpec: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        /// `RemoteStepper(kind:initialStep:context:)`.
        case remote(Name, initial: StepRef?, context: TemplateValue?)
        /// `OneStepper(withSingleStep:)`.
        case one(StepRef)
        /// `ActionStepper`: each user action leads to a step.
        case actions([ActionMapping], initial: StepRef?)
    }

    /// A user action and the step it leads to.
    public struct ActionMapping: Sendable, Hashable {
        public var action: Name
        public var step: StepRef
    }

    public var kind: Kind
    public var location: SourceLocation

    /// Every step the stepper may emit on its own (initial steps, action steps); a remote kind's come from its
    /// declaration.
    var steps: [StepRef] {
        switch kind {
        case .remote(_, let initial, _): return initial.map { [$0] } ?? []
        case .one(let step): return [step]
        case .actions(let actions, let initial): return actions.map(\.step) + (initial.map { [$0] } ?? [])
        }
    }
}

/// A step written in a file: a name and, when the step carries one, a payload (a template).
public struct StepRef: Sendable, Hashable {
    public var name: Name
    public var payload: TemplateValue?
    public var location: SourceLocation
}

/// A URI deep link: a pattern and the chain of steps it stands for.
public struct DeepLinkDecl: Sendable, Hashable {
    public var pattern: URIPattern
    public var steps: [StepRef]
    public var summary: String?
    public var location: SourceLocation
}

extension ScreenDecl {
    /// The screen, its templates evaluated with `scope` (`["payload": <the handled step's payload>]`).
    public func screen(in scope: [String: JSONValue]) throws(TemplateError) -> Screen {
        guard case .string(let id) = try self.id.evaluate(in: scope) else {
            throw TemplateError(template: self.id.source, missing: "a text id")
        }
        return Screen(
            id: PresentableID(id), kind: Screen.Kind(kind.rawValue), type: typeName,
            data: try data?.evaluate(in: scope) ?? .null
        )
    }
}
