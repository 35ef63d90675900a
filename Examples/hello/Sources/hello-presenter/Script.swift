import FlowClient
import FlowCore
import Foundation

/// What the presenter does after connecting, one step at a time, from its arguments: `wait:ID` (until ID is
/// visible), `gone:ID` (until ID is no longer shown), `action:ID:NAME` or `action:ID:NAME:JSON` (a person's action on
/// ID, with JSON as its payload: `action:catalog.list:pick:7`), `back:STACK`, `tab:TABS:INDEX` and `dismiss:MODAL`
/// (a person's back button, choice of a tab and closing of a modal).
enum ScriptStep: Equatable, CustomStringConvertible {
    case wait(PresentableID)
    case gone(PresentableID)
    case action(PresentableID, String, JSONValue)
    case back(PresentableID)
    case tab(PresentableID, Int)
    case dismiss(PresentableID)

    init?(_ argument: String) {
        // An action's payload is the rest of the argument: JSON may hold colons.
        let maxSplits = argument.hasPrefix("action:") ? 3 : Int.max
        let parts = argument.split(separator: ":", maxSplits: maxSplits, omittingEmptySubsequences: false)
            .map(String.init)
        switch (parts.first, parts.count) {
        case ("wait", 2): self = .wait(PresentableID(parts[1]))
        case ("gone", 2): self = .gone(PresentableID(parts[1]))
        case ("action", 3): self = .action(PresentableID(parts[1]), parts[2], .null)
        case ("action", 4):
            guard let payload = try? JSONDecoder().decode(JSONValue.self, from: Data(parts[3].utf8)) else { return nil }
            self = .action(PresentableID(parts[1]), parts[2], payload)
        case ("back", 2): self = .back(PresentableID(parts[1]))
        case ("tab", 3):
            guard let index = Int(parts[2]) else { return nil }
            self = .tab(PresentableID(parts[1]), index)
        case ("dismiss", 2): self = .dismiss(PresentableID(parts[1]))
        default: return nil
        }
    }

    var description: String {
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

    /// Whether the step is done in `model`: a wait is done when its condition holds, the others at once.
    func holds(in model: PresentationModel) -> Bool {
        switch self {
        case .wait(let id): model.isVisible(id)
        case .gone(let id): !model.contains(id)
        case .action, .back, .tab, .dismiss: true
        }
    }

    /// Does what a person would (nothing for a wait); for an action, says how many steppers got it (`delivered 0`:
    /// none, as when the screen's stepper process has not attached yet, docs/PROTOCOL.md §6.6).
    func perform(on presenter: PresenterClient) async throws -> String {
        switch self {
        case .wait, .gone: break
        case .action(let id, let name, let payload):
            let delivered = try await presenter.userAction(Step(name, payload: payload), on: id)
            return " (delivered \(delivered))"
        case .back(let stack): try await presenter.tapBack(in: stack)
        case .tab(let tabs, let index): try await presenter.selectTab(index, in: tabs)
        case .dismiss(let modal): try await presenter.dismiss(modal)
        }
        return ""
    }
}

extension PresentationModel {
    /// One line of what is visible, outermost first: `hello, hello.greeting "Hello, default!"`.
    var visibleLine: String {
        visiblePresentables.map { id in
            if case .string(let text)? = screen(id)?.data { return "\(id) \"\(text)\"" }
            return id.rawValue
        }.joined(separator: ", ")
    }
}
