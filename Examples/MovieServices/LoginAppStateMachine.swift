/// `login.app`, AppFlow's flow stepper, as a state machine: it tells each attachment the app's state
/// (``LoginService/AppState``) when it attaches, and again whenever that state changes: a login with the API key set,
/// a logout, a token that expires or is revoked.
///
/// Feed it the attachments (``attach(_:service:now:)``, ``detach(_:)``) and call ``refresh(service:now:)`` after
/// every change to the ``LoginService`` and when a token expires (``LoginService/nextExpiry(after:)``); it returns
/// the steps to emit, in attachment order. A state that did not change is not emitted again (as RxFlowDemo's
/// `PreferencesService` notifies only changes).
///
/// `Sendable`: a value.
public struct LoginAppStateMachine: Sendable {
    /// The state each attachment was last told.
    public private(set) var told: [AttachmentKey: LoginService.AppState] = [:]

    /// A machine with no attachments.
    public init() {}

    /// An attachment of `login.app` begins: it is told the current state at once. An attachment already known
    /// (`ATTACH` again after a reconnection) is told nothing.
    public mutating func attach(_ key: AttachmentKey, service: LoginService, now: LoginService.Instant)
        -> [ServiceEmission]
    {
        guard told[key] == nil else { return [] }
        let state = service.appState(session: key.session, now: now)
        told[key] = state
        return [ServiceEmission(key, state.step)]
    }

    /// An attachment ended.
    public mutating func detach(_ key: AttachmentKey) {
        told[key] = nil
    }

    /// The attachments whose session's state changed since they were last told, with the new state's step.
    public mutating func refresh(service: LoginService, now: LoginService.Instant) -> [ServiceEmission] {
        var emissions: [ServiceEmission] = []
        for key in told.keys.sorted() {
            let state = service.appState(session: key.session, now: now)
            guard told[key] != state else { continue }
            told[key] = state
            emissions.append(ServiceEmission(key, state.step))
        }
        return emissions
    }
}
