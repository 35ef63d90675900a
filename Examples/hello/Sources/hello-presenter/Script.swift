import FlowClient
import FlowCore

/// What the presenter does after connecting, one step at a time, from its arguments: `wait:ID` (until ID is
/// visible), `gone:ID` (until ID is no longer shown), `action:ID:NAME` (a person's action on ID), `back:STACK` and
/// `dismiss:MODAL` (a person's back button and closing of a modal).
enum ScriptStep: Equatable, CustomStringConvertible {
    case wait(PresentableID)
    case gone(PresentableID)
    case action(PresentableID, String)
    case back(PresentableID)
    case dismiss(PresentableID)

    init?(_ argument: String) {
        let parts = argument.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        switch (parts.first, parts.count) {
        case ("wait", 2): self = .wait(PresentableID(parts[1]))
        case ("gone", 2): self = .gone(PresentableID(parts[1]))
        case ("action", 3): self = .action(PresentableID(parts[1]), parts[2])
        case ("back", 2): self = .back(PresentableID(parts[1]))
        case ("dismiss", 2): self = .dismiss(PresentableID(parts[1]))
        default: return nil
        }
    }

    var description: String {
        switch self {
        case .wait(let id): "wait:\(id)"
        case .gone(let id): "gone:\(id)"
        case .action(let id, let name): "action:\(id):\(name)"
        case .back(let id): "back:\(id)"
        case .dismiss(let id): "dismiss:\(id)"
        }
    }

    /// Whether the step is done in `model`: a wait is done when its condition holds, the others at once.
    func holds(in model: PresentationModel) -> Bool {
        switch self {
        case .wait(let id): model.isVisible(id)
        case .gone(let id): !model.contains(id)
        case .action, .back, .dismiss: true
        }
    }

    /// Does what a person would (nothing for a wait).
    func perform(on presenter: PresenterClient) async throws {
        switch self {
        case .wait, .gone: break
        case .action(let id, let name): try await presenter.userAction(Step(name), on: id)
        case .back(let stack): try await presenter.tapBack(in: stack)
        case .dismiss(let modal): try await presenter.dismiss(modal)
        }
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
