public import FlowCore
import FlowWire
import Foundation

/// What a scripted presenter does, one step at a time, read from arguments such as
/// `wait:hello.greeting action:hello.greeting:about gone:about`:
///
/// - `wait:ID`: until ID is visible;
/// - `gone:ID`: until ID is out of the UI (popped or dismissed: one merely covered, by a modal or a pushed screen,
///   is still in it);
/// - `action:ID:NAME` or `action:ID:NAME:JSON`: a person's action on ID, with JSON as its payload (the rest of the
///   argument, colons and all: `action:catalog.list:pick:7`, `action:login.form:submit:{"user":"ann"}`; so a NAME or
///   an ID holding a colon cannot be scripted);
/// - `back:STACK`, `tab:TABS:INDEX`, `dismiss:MODAL`: a person's back button, choice of a tab, closing of a modal.
///
/// ``ScriptedPresenter`` walks it over a presenter's changes (``PresenterScriptWalk`` decides when a step is due).
public struct PresenterScript: Sendable, Hashable {
    /// One step of a script (a script step; the flows' steps are FlowCore's ``FlowCore/Step``).
    public enum Step: Sendable, Hashable, CustomStringConvertible {
        case wait(PresentableID)
        case gone(PresentableID)
        case action(PresentableID, String, JSONValue)
        case back(PresentableID)
        case tab(PresentableID, Int)
        case dismiss(PresentableID)

        /// Each kind of step and its form, as an error names it.
        private static let forms = [
            "wait": "wait:ID", "gone": "gone:ID", "action": "action:ID:NAME[:JSON]", "back": "back:STACK",
            "tab": "tab:TABS:INDEX", "dismiss": "dismiss:MODAL",
        ]

        /// Reads one argument (see ``PresenterScript``).
        ///
        /// - Throws: ``PresenterScriptError`` (`unknownStep`, `malformedStep`, `badArgument`), naming the argument.
        public init(parsing argument: String) throws(PresenterScriptError) {
            // An action's payload is the rest of the argument: JSON may hold colons.
            let maxSplits = argument.hasPrefix("action:") ? 3 : Int.max
            let parts = argument.split(separator: ":", maxSplits: maxSplits, omittingEmptySubsequences: false)
                .map(String.init)
            let kind = parts[0]
            guard let form = Self.forms[kind] else {
                throw PresenterScriptError(
                    .unknownStep, "'\(argument)' is not a step: " + Self.forms.values.sorted().joined(separator: ", "))
            }
            // The form's parts, an action's payload being optional; none may be empty.
            let count = form.split(separator: ":").count
            let counts = kind == "action" ? [count - 1, count] : [count]
            guard counts.contains(parts.count), !parts.dropFirst().contains(where: \.isEmpty) else {
                throw PresenterScriptError(
                    .malformedStep,
                    "'\(argument)' is not \(form) (no part may be empty; colons part it, so an ID with one cannot "
                        + "be given)")
            }
            let id = PresentableID(parts[1])
            switch kind {
            case "wait": self = .wait(id)
            case "gone": self = .gone(id)
            case "back": self = .back(id)
            case "dismiss": self = .dismiss(id)
            case "tab":
                guard let index = Int(parts[2]), index >= 0 else {
                    throw PresenterScriptError(.badArgument, "'\(argument)': the tab's index is not a whole number ≥ 0")
                }
                self = .tab(id, index)
            default:
                guard WireProtocol.isValidStepName(parts[2]) else {
                    throw PresenterScriptError(
                        .badArgument, "'\(argument)': the action's name is not [A-Za-z0-9._-]{1,128} (a colon ends it)")
                }
                guard parts.count == 4 else {
                    self = .action(id, parts[2], .null)
                    return
                }
                guard let payload = try? JSONDecoder().decode(JSONValue.self, from: Data(parts[3].utf8)) else {
                    throw PresenterScriptError(
                        .badArgument,
                        "'\(argument)': the action's payload, after the name's colon, is not JSON: '\(parts[3])'")
                }
                self = .action(id, parts[2], payload)
            }
        }

        /// The step as an argument: `action:hello.greeting:about`.
        public var description: String {
            switch self {
            case .wait(let id): "wait:\(id)"
            case .gone(let id): "gone:\(id)"
            case .action(let id, let name, .null): "action:\(id):\(name)"
            case .action(let id, let name, let payload): "action:\(id):\(name):\(payload)"
            case .back(let id): "back:\(id)"
            case .tab(let id, let index): "tab:\(id):\(index)"
            case .dismiss(let id): "dismiss:\(id)"
            }
        }

        /// Whether the step is due in `model`: a wait when its condition holds, the others at once.
        public func isDue(in model: PresentationModel) -> Bool {
            switch self {
            case .wait(let id): model.isVisible(id)
            case .gone(let id): !model.contains(id)
            case .action, .back, .tab, .dismiss: true
            }
        }

        /// Does what a person would (nothing for a wait); for an action, says how many steppers got it (`delivered
        /// 0`: none, as when the screen's stepper process has not attached yet, docs/PROTOCOL.md §6.6).
        ///
        /// - Returns: what to print after the step (` (delivered 1)` for an action, else nothing).
        /// - Throws: ``PresenterScriptError/Code/stepFailed`` when the UI or the daemon refused the step.
        public func perform(on presenter: some PresenterOperations) async throws(PresenterScriptError) -> String {
            do {
                switch self {
                case .wait, .gone: break
                case .action(let id, let name, let payload):
                    let delivered = try await presenter.userAction(FlowCore.Step(name, payload: payload), on: id)
                    return " (delivered \(delivered))"
                case .back(let stack): try await presenter.tapBack(in: stack)
                case .tab(let tabs, let index): try await presenter.selectTab(index, in: tabs)
                case .dismiss(let modal): try await presenter.dismiss(modal)
                }
            } catch {
                throw PresenterScriptError(.stepFailed, "\(self) failed: \(error)")
            }
            return ""
        }
    }

    /// The steps, in order.
    public var steps: [Step]

    /// A script of `steps`.
    public init(_ steps: [Step]) { self.steps = steps }

    /// Reads each argument as a step (see ``PresenterScript``).
    ///
    /// - Throws: ``PresenterScriptError`` for the first argument that is not a step.
    public init(parsing arguments: [String]) throws(PresenterScriptError) {
        var steps: [Step] = []
        for argument in arguments { steps.append(try Step(parsing: argument)) }
        self.steps = steps
    }
}
