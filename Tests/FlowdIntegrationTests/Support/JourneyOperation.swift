/// One operation of a scripted journey through the movie demo, as a person at the presenter or an operator does it.
///
/// An operation is done when its effect is visible (the daemon's tree and sequence number, the presenter's
/// screens); a fault-injection run re-issues one only when its effect is definitely absent.
struct JourneyOperation: Sendable, Hashable, CustomStringConvertible {
    enum Kind: Sendable, Hashable {
        /// A line for the headless presenter's standard input (`action …`, `tab …`, `back …`, `dismiss …`).
        case presenter(String)
        /// `flowctl step <arguments>`: a deep link.
        case deepLink([String])
    }

    let kind: Kind

    /// Whether the daemon answers it only once it has handled it (a deep link: the `OK` counts the navigations), so
    /// that an answer acknowledges the operation's step.
    var acknowledgedByDaemon: Bool {
        if case .deepLink = kind { return true }
        return false
    }

    /// A user action on a screen whose stepper runs in the daemon (an `ActionStepper`): the `OK` to `USER_ACTION`
    /// says the action was delivered to it (`docs/PROTOCOL.md` §6.6), not that the step it emits was handled.
    let handledInDaemon: Bool

    static func presenter(_ line: String, handledInDaemon: Bool = false) -> JourneyOperation {
        JourneyOperation(kind: .presenter(line), handledInDaemon: handledInDaemon)
    }

    static func deepLink(_ arguments: String...) -> JourneyOperation {
        JourneyOperation(kind: .deepLink(arguments), handledInDaemon: false)
    }

    /// Whether it is a person's action on a screen (`USER_ACTION`), the kind whose step a stepper emits.
    var isUserAction: Bool {
        if case .presenter(let line) = kind { return line.hasPrefix("action ") }
        return false
    }

    var description: String {
        switch kind {
        case .presenter(let line): return line
        case .deepLink(let arguments): return "flowctl step " + arguments.joined(separator: " ")
        }
    }
}

/// The journey the fault-injection tests play: the onboarding, every tab, movie and cast details, back buttons,
/// the settings with their alert and rows, About refused then shown (the alternating adaptation), a deep link, a
/// logout and a second onboarding. Each operation changes what the daemon or the presenter shows, so its effect can
/// be told apart from its absence.
enum MovieJourney {
    static let login = #"action onboarding.login proceed {"user":"demo","password":"demo"}"#
    static let apiKey = #"action onboarding.apikey setApiKey {"key":"k"}"#

    static let operations: [JourneyOperation] = [
        .presenter(login),
        .presenter(apiKey),
        .presenter("tab dashboard.tabs 1"),
        .presenter("action watched.list pick 43424"),
        .presenter("back watched.stack"),
        .presenter("tab dashboard.tabs 2"),
        .presenter("action trending.movies pick 55423"),
        .presenter("back trending.stack"),
        .presenter("tab trending.pages 1"),
        .presenter("action trending.casts pick 5"),
        .presenter("back trending.stack"),
        .presenter("tab trending.pages 0"),
        .presenter("tab dashboard.tabs 0"),
        .presenter("action wishlist.list pick 21212"),
        .presenter("action wishlist.movie.21212 pickCast 4"),
        .presenter("back wishlist.stack"),
        .presenter("back wishlist.stack"),
        .presenter("action wishlist.list settings"),
        .presenter("dismiss settings.alert"),
        .presenter("action settings.list apiKey", handledInDaemon: true),
        .presenter("action settings.list login", handledInDaemon: true),
        .presenter("action settings.split done", handledInDaemon: true),
        .presenter("action wishlist.list about"),
        .presenter("dismiss wishlist.alert"),
        .presenter("action wishlist.list about"),
        .presenter("action wishlist.about done", handledInDaemon: true),
        .deepLink("movieIsPicked", "23452"),
        .presenter("back wishlist.stack"),
        .presenter("action wishlist.list logout"),
        .presenter(login),
        .presenter(apiKey),
    ]
}
