public import FlowCore
import MovieVocabulary

/// The login service's logic: users with passwords, one session token per flowd session (with an expiry, revocable),
/// and the onboarding (the API key) on top of the token. Time is an input (`now`), nothing runs by itself.
///
/// A flowd session stands for one device: logging in on it issues a token for that session; setting the API key
/// marks the token as onboarded; logging out revokes it. The app's state (``AppState``) follows: the onboarding is
/// complete while the session's token is valid (issued, not expired, not revoked) and onboarded, required otherwise.
///
/// Tokens are opaque to the flows (they never leave the service): their values are `t<n>`, numbered in issue order.
///
/// `Sendable`: a value.
public struct LoginService: Sendable {
    /// The clock's instants; `now` is always passed in.
    public typealias Instant = ContinuousClock.Instant

    /// A session token.
    public struct SessionToken: Hashable, Sendable {
        /// The opaque token value (`t1`).
        public let value: String
        /// The user it was issued to.
        public let user: String
        /// When it stops being valid.
        public let expiresAt: Instant
        /// Whether the API key was set with it (the onboarding is complete).
        public internal(set) var onboarded: Bool

        /// Whether it is still valid at `now`.
        public func isValid(at now: Instant) -> Bool { now < expiresAt }
    }

    /// What AppFlow's stepper (`login.app`) says.
    public enum AppState: String, Hashable, Sendable, CustomStringConvertible {
        /// No valid token, or the API key is not set: `onboardingIsRequired`.
        case onboardingIsRequired
        /// A valid, onboarded token: `onboardingIsComplete`.
        case onboardingIsComplete

        /// The step `login.app` emits.
        public var step: Step {
            switch self {
            case .onboardingIsRequired: return DemoStep.onboardingIsRequired.step
            case .onboardingIsComplete: return DemoStep.onboardingIsComplete.step
            }
        }

        public var description: String { rawValue }
    }

    /// The demo's users: `demo`/`demo` and `alice`/`wonderland`.
    public static let demoUsers = ["demo": "demo", "alice": "wonderland"]

    /// Passwords by user name.
    public let users: [String: String]
    /// How long a token stays valid after it is issued.
    public let tokenLifetime: Duration
    /// The tokens by flowd session (expired ones stay until replaced; revoked ones are gone).
    public private(set) var tokens: [String: SessionToken] = [:]
    private var issued = 0

    /// A service knowing `users` (name → password), issuing tokens valid for `tokenLifetime`.
    public init(users: [String: String] = LoginService.demoUsers, tokenLifetime: Duration = .seconds(3600)) {
        self.users = users
        self.tokenLifetime = tokenLifetime
    }

    // MARK: - Tokens

    /// Checks the user and issues a token for `session`. A valid token of the same user is kept (logging in again
    /// from the settings does not undo the onboarding); otherwise a new token, not onboarded, replaces whatever the
    /// session had.
    ///
    /// - Throws: ``ServiceError/invalidCredentials(user:)``.
    @discardableResult
    public mutating func logIn(user: String, password: String, session: String, now: Instant)
        throws(ServiceError) -> SessionToken
    {
        guard let expected = users[user], expected == password else { throw .invalidCredentials(user: user) }
        if let current = tokens[session], current.user == user, current.isValid(at: now) { return current }
        issued += 1
        let token = SessionToken(value: "t\(issued)", user: user, expiresAt: now + tokenLifetime, onboarded: false)
        tokens[session] = token
        return token
    }

    /// Sets the API key for `session`'s token: the onboarding is complete.
    ///
    /// - Throws: ``ServiceError/invalidApiKey`` for an empty key, ``ServiceError/notLoggedIn(session:)`` without a
    ///   valid token.
    public mutating func setApiKey(_ key: String, session: String, now: Instant) throws(ServiceError) {
        guard !key.isEmpty else { throw .invalidApiKey }
        guard validToken(for: session, now: now) != nil else { throw .notLoggedIn(session: session) }
        tokens[session]?.onboarded = true
    }

    /// Revokes `session`'s token (logout). Returns whether there was one.
    @discardableResult
    public mutating func revoke(session: String) -> Bool {
        tokens.removeValue(forKey: session) != nil
    }

    /// Revokes a token by its value, whichever session holds it. Returns whether it was found.
    @discardableResult
    public mutating func revoke(token value: String) -> Bool {
        guard let session = tokens.first(where: { $0.value.value == value })?.key else { return false }
        tokens[session] = nil
        return true
    }

    /// `session`'s token if it is valid at `now`.
    public func validToken(for session: String, now: Instant) -> SessionToken? {
        guard let token = tokens[session], token.isValid(at: now) else { return nil }
        return token
    }

    /// What `login.app` says for `session` at `now`.
    public func appState(session: String, now: Instant) -> AppState {
        validToken(for: session, now: now)?.onboarded == true ? .onboardingIsComplete : .onboardingIsRequired
    }

    /// The first instant after `now` at which a token expires, if any will: when to look at the app states again.
    public func nextExpiry(after now: Instant) -> Instant? {
        tokens.values.map(\.expiresAt).filter { $0 > now }.min()
    }

    // MARK: - Actions

    /// What an action on an attachment of `kind` does: the step to emit for that attachment, if any.
    ///
    /// | kind | action | payload | effect | step |
    /// |---|---|---|---|---|
    /// | `login.form` | `proceed` | `{"user", "password"}` | ``logIn(user:password:session:now:)`` | `userIsLoggedIn` |
    /// | `login.apiKey` | `setApiKey` | `{"key"}` | ``setApiKey(_:session:now:)`` | none (`login.app` follows) |
    /// | `login.logout` | `logout` | none | ``revoke(session:)`` | none (`login.app` follows) |
    ///
    /// `login.app` has no actions: it follows ``appState(session:now:)`` (see ``LoginAppStateMachine``).
    ///
    /// - Throws: a ``ServiceError``: unknown kind or action, bad payload, wrong credentials, not logged in.
    public mutating func step(for kind: String, action: Step, session: String, now: Instant)
        throws(ServiceError) -> Step?
    {
        switch (kind, action.name) {
        case (DemoStepperKind.loginForm, DemoAction.proceed):
            guard let user = action.payload[member: "user"]?.stringValue,
                let password = action.payload[member: "password"]?.stringValue
            else { throw .badPayload(action: action.name, expected: #"{"user": <string>, "password": <string>}"#) }
            try logIn(user: user, password: password, session: session, now: now)
            return DemoStep.userIsLoggedIn.step
        case (DemoStepperKind.loginApiKey, DemoAction.setApiKey):
            guard let key = action.payload[member: "key"]?.stringValue ?? action.payload.stringValue else {
                throw .badPayload(action: action.name, expected: #"{"key": <string>}"#)
            }
            try setApiKey(key, session: session, now: now)
            return nil
        case (DemoStepperKind.loginLogout, DemoAction.logout):
            revoke(session: session)
            return nil
        case (let kind, let name):
            guard DemoStepperKind.login.contains(kind) else { throw .unknownKind(kind) }
            throw .unknownAction(kind: kind, action: name)
        }
    }
}
