/// `login.app`, AppFlow's flow stepper, as a state machine: it tells each attachment the app's state
/// (``LoginService/AppState``) when it attaches, and again whenever that state changes: a login with the API key set,
/// a logout, a token that expires or is revoked.
///
/// Feed it the attachments (``attach(_:service:now:)``, ``detach(_:)``) and call ``refresh(service:now:)`` after
/// every change to the ``LoginService`` and when a token expires (``LoginService/nextExpiry(after:)``); it returns
/// the steps to emit, in attachment order. A state that did not change is not emitted again (as RxFlowDemo's
/// `PreferencesService` notifies only changes).
///
/// A resumed attachment (`ATTACH.resumed`: a step of its was carried out before, by this service before a restart
/// or by another) is told nothing on attaching: the tree shows what it was told, which this service may not know
/// (its tokens died with the old process). It is told the state again when the state changes, or when a person acts
/// in its session (logging in, setting the key, logging out), whether the state changed or not.
///
/// `Sendable`: a value.
public struct LoginAppStateMachine: Sendable {
    /// The state each attachment was last told (for a resumed one: the state when it resumed).
    public private(set) var told: [AttachmentKey: LoginService.AppState] = [:]
    /// Resumed attachments not told anything by this machine yet.
    public private(set) var unconfirmed: Set<AttachmentKey> = []

    /// A machine with no attachments.
    public init() {}

    /// An attachment of `login.app` begins: it is told the current state at once, unless it is `resumed`. An
    /// attachment already known (`ATTACH` again after a reconnection) is told nothing.
    public mutating func attach(
        _ key: AttachmentKey, service: LoginService, now: LoginService.Instant, resumed: Bool = false
    ) -> [ServiceEmission] {
        guard told[key] == nil else { return [] }
        let state = service.appState(session: key.session, now: now)
        told[key] = state
        guard !resumed else {
            unconfirmed.insert(key)
            return []
        }
        return [ServiceEmission(key, state.step)]
    }

    /// An attachment ended.
    public mutating func detach(_ key: AttachmentKey) {
        told[key] = nil
        unconfirmed.remove(key)
    }

    /// The attachments whose session's state changed since they were last told, and the resumed ones of the session
    /// a person `actedIn`, with the state's step.
    public mutating func refresh(
        service: LoginService, now: LoginService.Instant, actedIn session: String? = nil
    ) -> [ServiceEmission] {
        var emissions: [ServiceEmission] = []
        for key in told.keys.sorted() {
            let state = service.appState(session: key.session, now: now)
            let confirming = key.session == session && unconfirmed.contains(key)
            guard told[key] != state || confirming else { continue }
            told[key] = state
            unconfirmed.remove(key)
            emissions.append(ServiceEmission(key, state.step))
        }
        return emissions
    }
}
