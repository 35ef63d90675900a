import FlowCore

/// A line being typed at the bottom of the screen (a user name, a password, an API key).
struct Prompt: Hashable, Sendable {
    enum Purpose: Hashable, Sendable {
        /// The login form's user, then its password.
        case loginUser(form: PresentableID)
        case loginPassword(form: PresentableID, user: String)
        /// The API key form's key.
        case apiKey(form: PresentableID)
    }

    var purpose: Purpose
    var text = ""

    var label: String {
        switch purpose {
        case .loginUser: return "User"
        case .loginPassword: return "Password"
        case .apiKey: return "API key"
        }
    }

    /// What is shown of the text typed (a password is masked).
    var shown: String {
        if case .loginPassword = purpose { return String(repeating: "*", count: text.count) }
        return text
    }
}

/// What the interactive presenter keeps besides the model.
struct ViewState: Sendable {
    /// The session hosted and this presenter's name, for the title bar.
    var session = "default"
    var name = "movie-presenter"
    /// The selected row of each list, by the list's screen.
    var selection: [PresentableID: Int] = [:]
    /// The last change of the UI (a command from flowd, a snapshot, a person's operation).
    var activity = "waiting for flowd…"
    /// What that change reported to flowd.
    var reports = ""
    /// The answer to the last key (an error is shown as one).
    var message: (text: String, isError: Bool)?
    /// The last warning logged.
    var warning: String?
    /// The line being typed, if any.
    var prompt: Prompt?
    /// The last sequence number applied.
    var lastSeq: UInt64 = 0

    /// The selected row of `list`, kept within `count` rows.
    func selected(in list: PresentableID, count: Int) -> Int {
        guard count > 0 else { return 0 }
        return min(max(selection[list] ?? 0, 0), count - 1)
    }
}
