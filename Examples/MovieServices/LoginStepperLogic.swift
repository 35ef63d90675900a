public import FlowCore
import MovieVocabulary

/// Everything the login service process does, without I/O: it serves `login.app`, `login.form`, `login.apiKey` and
/// `login.logout` over a ``LoginService`` and a ``LoginAppStateMachine``.
///
/// The process feeds it what the daemon says (`ATTACH`, `DETACH`, `ACTION`) and the passing of time, and sends the
/// ``ServiceEmission``s it returns as `STEP`s, in order.
///
/// `Sendable`: a value.
public struct LoginStepperLogic: Sendable {
    /// The kinds served.
    public static let kinds = DemoStepperKind.login

    /// Users and tokens.
    public private(set) var service: LoginService
    /// `login.app`'s attachments.
    public private(set) var app = LoginAppStateMachine()
    /// The attachments served, by key.
    public private(set) var attachments: [AttachmentKey: ServiceAttachment] = [:]

    /// The logic over `service`.
    public init(service: LoginService = LoginService()) {
        self.service = service
    }

    /// `ATTACH`: remembers the attachment; a `login.app` attachment is told the app's state at once, unless it is
    /// resumed (``LoginAppStateMachine``). An attachment already known is a no-op.
    ///
    /// - Throws: ``ServiceError/unknownKind(_:)`` for a kind the service does not serve.
    public mutating func attach(_ attachment: ServiceAttachment, now: LoginService.Instant)
        throws(ServiceError) -> [ServiceEmission]
    {
        guard Self.kinds.contains(attachment.kind) else { throw .unknownKind(attachment.kind) }
        guard attachments[attachment.key] == nil else { return [] }
        attachments[attachment.key] = attachment
        guard attachment.kind == DemoStepperKind.loginApp else { return [] }
        return app.attach(attachment.key, service: service, now: now, resumed: attachment.resumed)
    }

    /// `DETACH`: forgets the attachment.
    public mutating func detach(_ key: AttachmentKey) {
        attachments[key] = nil
        app.detach(key)
    }

    /// `ACTION`: the step for the acting attachment (if the action leads to one), then the `login.app` steps the
    /// change caused. Wrong credentials are answered with an `alert` step for the acting attachment, which the
    /// login screen's flow shows (`OnboardingFlow`, `SettingsFlow`), and change nothing.
    ///
    /// - Throws: a ``ServiceError`` when the action is refused (nothing changed, nothing to emit).
    public mutating func handle(action: Step, on key: AttachmentKey, now: LoginService.Instant)
        throws(ServiceError) -> [ServiceEmission]
    {
        guard let attachment = attachments[key] else { throw .unknownAttachment(key) }
        let step: Step?
        do {
            step = try service.step(for: attachment.kind, action: action, session: key.session, now: now)
        } catch .invalidCredentials(let user) {
            return [ServiceEmission(key, Self.wrongCredentials(user: user))]
        }
        var emissions = step.map { [ServiceEmission(key, $0)] } ?? []
        emissions += app.refresh(service: service, now: now, actedIn: key.session)
        return emissions
    }

    /// The step answering wrong credentials: an alert with what a person reads.
    public static func wrongCredentials(user: String) -> Step {
        DemoStep.alert("Wrong user name or password for '\(user)'").step
    }

    /// Time passed: the `login.app` steps of tokens that expired.
    public mutating func tick(now: LoginService.Instant) -> [ServiceEmission] {
        app.refresh(service: service, now: now)
    }

    /// Revokes a session's token from outside (an administrator): the `login.app` steps it causes.
    public mutating func revoke(session: String, now: LoginService.Instant) -> [ServiceEmission] {
        service.revoke(session: session)
        return app.refresh(service: service, now: now, actedIn: session)
    }

    /// When ``tick(now:)`` should be called next: the next token expiry, if any.
    public func nextDeadline(after now: LoginService.Instant) -> LoginService.Instant? {
        service.nextExpiry(after: now)
    }
}
