package import FlowCore

/// An application declared in a flow file: its steps, stepper kinds and screen types (the vocabulary), its flows,
/// its root and its URI deep links. docs/FLOWFILE.md describes every key.
///
/// Everything keeps where it was written, for diagnostics. ``FlowFile/load(path:)`` reads and checks one.
///
/// `Sendable`: values.
public struct AppFile: Sendable, Hashable {
    /// The format's version (`flowfile: 1`).
    package var version: Int
    /// The application's name.
    package var app: String
    package var root: RootDecl
    /// The steps, in file order.
    package var steps: [StepDecl]
    package var stepperKinds: [StepperKindDecl]
    package var screenTypes: [ScreenTypeDecl]
    package var flows: [FlowDecl]
    package var deepLinks: [DeepLinkDecl]
    /// The version of the file's bytes as flowd names it (the content id `HEALTH` shows as `app_version`), given by
    /// ``FileApplication/init(_:appVersion:)``; `nil` when not known. A flow's saved state names it.
    package var appVersion: String? = nil

    /// The step declared as `name`.
    package func step(_ name: String) -> StepDecl? { steps.first { $0.name.value == name } }
    /// The flow declared as `name`.
    package func flow(_ name: String) -> FlowDecl? { flows.first { $0.name.value == name } }
    /// The stepper kind declared as `kind`.
    package func stepperKind(_ kind: String) -> StepperKindDecl? { stepperKinds.first { $0.kind.value == kind } }
    /// The screen type declared as `type`.
    package func screenType(_ type: String) -> ScreenTypeDecl? { screenTypes.first { $0.type.value == type } }
}

/// The root flow of every session and what it is coordinated with.
package struct RootDecl: Sendable, Hashable {
    package var flow: Name
    /// The stepper; the flow's own when `nil`.
    package var stepper: StepperSpec?
    package var allowStepWhenDismissed: Bool
    package var location: SourceLocation
}

/// A step the application's flows understand.
package struct StepDecl: Sendable, Hashable {
    package var name: Name
    package var payload: PayloadDecl?
    package var summary: String
    /// Whether an operator may inject it as a deep link (`flowctl step`, `DEEPLINK`).
    package var deepLink: Bool

    /// The payload's type; ``PayloadType/none`` when the step declares none.
    package var payloadType: PayloadType { payload?.type ?? .none }
}

/// A stepper kind served by a stepper process, with the steps it may emit.
package struct StepperKindDecl: Sendable, Hashable {
    package var kind: Name
    package var steps: [Name]
    package var summary: String
}

/// A screen type a presenter draws, its kind, its data and the user actions it accepts.
package struct ScreenTypeDecl: Sendable, Hashable {
    package var type: Name
    package var kind: ScreenKindName
    package var data: String?
    package var actions: [ActionDecl]
    package var summary: String?
}

/// A user action a screen type accepts.
package struct ActionDecl: Sendable, Hashable {
    package var name: Name
    package var payload: PayloadDecl?
    package var summary: String
}

/// A screen kind: `view`, `stack`, `tabs`, `split` or `alert` (FlowCore's ``FlowCore/Screen/Kind``).
package enum ScreenKindName: String, Sendable, Hashable, CaseIterable {
    case view, stack, tabs, split, alert

    /// Whether screens are shown inside it (push, tabs, master and detail).
    package var isContainer: Bool { self == .stack || self == .tabs || self == .split }
}

/// A flow: its root, the screens it shows, its own stepper and what each step does.
package struct FlowDecl: Sendable, Hashable {
    package var name: Name
    package var root: ScreenDecl
    /// The stepper it is coordinated with when its parent (or the root declaration) gives none.
    package var stepper: StepperSpec?
    /// The screens it shows, by the names its handlers use.
    package var screens: [ScreenDecl]
    /// What each step does, in file order.
    package var handlers: [StepHandler]
    /// The steps whose `adapt` is asked of a stepper kind.
    package var adapt: AdaptDecl?
    package var location: SourceLocation

    package func screen(_ name: String) -> ScreenDecl? { screens.first { $0.name.value == name } }
    package func handler(_ step: String) -> StepHandler? { handlers.first { $0.step.value == step } }
}

/// `adapt: {kind, steps}`: a flow's `adapt` for these steps is asked of a process serving the stepper kind (flowd's
/// `ADAPT`), which allows the step, replaces it or refuses it.
package struct AdaptDecl: Sendable, Hashable {
    package var kind: Name
    package var steps: [Name]
    package var location: SourceLocation
}

/// A screen as a flow declares it: its ID and data may be templates over the handled step's payload.
package struct ScreenDecl: Sendable, Hashable {
    /// The name handlers use (`root` for a flow's root).
    package var name: Name
    package var id: Template
    package var kind: ScreenKindName
    /// The type a presenter draws; the kind's name when `nil`.
    package var type: Name?
    package var data: TemplateValue?
    package var location: SourceLocation

    /// The type as FlowCore's ``FlowCore/Screen`` has it.
    package var typeName: String { type?.value ?? kind.rawValue }
}

/// What a flow does for one step: commands, then `use` blocks, then its contributors or its end.
package struct StepHandler: Sendable, Hashable {
    package var step: Name
    package var commands: [CommandDecl]
    package var uses: [UseDecl]
    package var contributors: [ContributorDecl]
    /// `.end(forwardToParentFlowWithStep:)`.
    package var end: StepRef?
    package var location: SourceLocation
}

/// `Flows.use(flows, when:)`: commands recorded once child flows are created (at once) or ready.
package struct UseDecl: Sendable, Hashable {
    package enum When: String, Sendable, Hashable { case created, ready }
    package var when: When
    /// The child flows waited for; every flow the step starts when the file names none.
    package var flows: [Name]
    package var commands: [CommandDecl]
    package var location: SourceLocation
}

/// A reference to a screen from a handler: `root`, a screen of the flow, or a flow (its root).
package typealias ScreenRef = Name

/// A navigation command, as a handler writes it.
package struct CommandDecl: Sendable, Hashable {
    package enum Action: Sendable, Hashable {
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

    package var action: Action
    package var location: SourceLocation

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
package struct ContributorDecl: Sendable, Hashable {
    package enum Kind: Sendable, Hashable {
        /// Steppers on a screen (several make as many contributors, in order).
        case screen(ScreenRef, steppers: [StepperSpec], allowStepWhenNotPresented: Bool, allowStepWhenDismissed: Bool)
        /// A child flow with its flow stepper (the flow's own when `nil`).
        case flow(Name, stepper: StepperSpec?, allowStepWhenDismissed: Bool)
        case forwardToCurrentFlow(StepRef)
        case forwardToParentFlow(StepRef)
    }

    package var kind: Kind
    package var location: SourceLocation
}

/// A stepper, as a file declares it.
package struct StepperSpec: Sendable, Hashable {
    package enum Kind: Sendable, Hashable {
        /// `RemoteStepper(kind:initialStep:context:)`.
        case remote(Name, initial: StepRef?, context: TemplateValue?)
        /// `OneStepper(withSingleStep:)`.
        case one(StepRef)
        /// `ActionStepper`: each user action leads to a step.
        case actions([ActionMapping], initial: StepRef?)
        /// `CompositeStepper(steppers:)`: its steppers, each attached on its own (SEMANTICS R12).
        case composite([StepperSpec])
    }

    /// A user action and the step it leads to.
    package struct ActionMapping: Sendable, Hashable {
        package var action: Name
        package var step: StepRef
    }

    package var kind: Kind
    package var location: SourceLocation

    /// Every step the stepper may emit on its own (initial steps, action steps); a remote kind's come from its
    /// declaration.
    var steps: [StepRef] {
        switch kind {
        case .remote(_, let initial, _): return initial.map { [$0] } ?? []
        case .one(let step): return [step]
        case .actions(let actions, let initial): return actions.map(\.step) + (initial.map { [$0] } ?? [])
        case .composite(let steppers): return steppers.flatMap(\.steps)
        }
    }

    /// The stepper and every stepper inside it, depth first (a composite's, nested ones' too).
    var leaves: [StepperSpec] {
        if case .composite(let steppers) = kind { return steppers.flatMap(\.leaves) }
        return [self]
    }
}

/// A step written in a file: a name and, when the step carries one, a payload (a template).
package struct StepRef: Sendable, Hashable {
    package var name: Name
    package var payload: TemplateValue?
    package var location: SourceLocation
}

/// A URI deep link: a pattern and the chain of steps it stands for.
package struct DeepLinkDecl: Sendable, Hashable {
    package var pattern: URIPattern
    package var steps: [StepRef]
    package var summary: String?
    package var location: SourceLocation
}

extension ScreenDecl {
    /// The screen, its templates evaluated with `scope` (`["payload": <the handled step's payload>]`).
    package func screen(in scope: [String: JSONValue]) throws(TemplateError) -> Screen {
        guard case .string(let id) = try self.id.evaluate(in: scope) else {
            throw TemplateError(template: self.id.source, missing: "a text id")
        }
        return Screen(
            id: PresentableID(id), kind: Screen.Kind(kind.rawValue), type: typeName,
            data: try data?.evaluate(in: scope) ?? .null
        )
    }
}
