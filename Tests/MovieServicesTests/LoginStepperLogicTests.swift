import FlowCore
import MovieVocabulary
import MovieServices
import Testing

/// The login service process's logic: `login.app` follows the session's login state; forms answer actions.
struct LoginStepperLogicTests {
    let start = ContinuousClock.now
    let app = AttachmentKey(session: "default", attachment: 1)
    let form = AttachmentKey(session: "default", attachment: 7)
    let apiKey = AttachmentKey(session: "default", attachment: 8)
    let logout = AttachmentKey(session: "default", attachment: 13)
    let proceed = Step(DemoAction.proceed, payload: ["user": "demo", "password": "demo"])
    let setKey = Step(DemoAction.setApiKey, payload: ["key": "k"])

    func attachment(_ key: AttachmentKey, _ kind: String) -> ServiceAttachment {
        ServiceAttachment(key: key, kind: kind, presentable: "screen")
    }

    /// Attaches login.app, a form and the API key form, and logs in with the key set.
    func onboardedLogic(tokenLifetime: Duration = .seconds(3600)) throws -> LoginStepperLogic {
        var logic = LoginStepperLogic(service: LoginService(tokenLifetime: tokenLifetime))
        _ = try logic.attach(attachment(app, DemoStepperKind.loginApp), now: start)
        _ = try logic.attach(attachment(form, DemoStepperKind.loginForm), now: start)
        _ = try logic.attach(attachment(apiKey, DemoStepperKind.loginApiKey), now: start)
        _ = try logic.handle(action: proceed, on: form, now: start)
        _ = try logic.handle(action: setKey, on: apiKey, now: start)
        return logic
    }

    @Test func loginAppIsToldTheStateOnAttachAndAnAttachAgainIsANoOp() throws {
        var logic = LoginStepperLogic()
        let first = try logic.attach(attachment(app, DemoStepperKind.loginApp), now: start)
        let again = try logic.attach(attachment(app, DemoStepperKind.loginApp), now: start)
        let form = try logic.attach(attachment(form, DemoStepperKind.loginForm), now: start)
        #expect(first == [ServiceEmission(app, DemoStep.onboardingIsRequired.step)])
        #expect(again == [])
        #expect(form == [])
    }

    @Test func theOnboardingLogsInSetsTheKeyAndLoginAppEmitsOnboardingIsCompleteThenLogoutRequiresItAgain() throws {
        var logic = LoginStepperLogic()
        _ = try logic.attach(attachment(app, DemoStepperKind.loginApp), now: start)
        _ = try logic.attach(attachment(form, DemoStepperKind.loginForm), now: start)
        let loggedIn = try logic.handle(action: proceed, on: form, now: start)
        #expect(loggedIn == [ServiceEmission(form, DemoStep.userIsLoggedIn.step)])
        _ = try logic.attach(attachment(apiKey, DemoStepperKind.loginApiKey), now: start)
        let keySet = try logic.handle(action: setKey, on: apiKey, now: start)
        #expect(keySet == [ServiceEmission(app, DemoStep.onboardingIsComplete.step)])
        _ = try logic.attach(attachment(logout, DemoStepperKind.loginLogout), now: start)
        let loggedOut = try logic.handle(action: Step(DemoAction.logout), on: logout, now: start)
        #expect(loggedOut == [ServiceEmission(app, DemoStep.onboardingIsRequired.step)])
    }

    @Test func aWrongPasswordEmitsAnAlertForTheFormAndChangesNothing() throws {
        var logic = LoginStepperLogic()
        _ = try logic.attach(attachment(app, DemoStepperKind.loginApp), now: start)
        _ = try logic.attach(attachment(form, DemoStepperKind.loginForm), now: start)
        #expect(
            try logic.handle(action: Step("proceed", payload: ["user": "demo", "password": "x"]), on: form, now: start)
                == [ServiceEmission(form, DemoStep.alert("Wrong user name or password for 'demo'").step)]
        )
        #expect(logic.service.tokens.isEmpty)
        #expect(logic.app.told == [app: .onboardingIsRequired])
    }

    @Test func aResumedLoginAppIsToldNothingOnAttachButIsToldWhenAPersonActsInItsSession() throws {
        var logic = LoginStepperLogic()
        let resumed = ServiceAttachment(key: app, kind: DemoStepperKind.loginApp, presentable: "app", resumed: true)
        #expect(try logic.attach(resumed, now: start) == [])
        _ = try logic.attach(attachment(logout, DemoStepperKind.loginLogout), now: start)
        // Time passing changes nothing it was not told.
        #expect(logic.tick(now: start + .seconds(5)) == [])
        // Logging out (no token: the state is the same) is told all the same.
        #expect(
            try logic.handle(action: Step("logout"), on: logout, now: start)
                == [ServiceEmission(app, DemoStep.onboardingIsRequired.step)])
        #expect(try logic.handle(action: Step("logout"), on: logout, now: start) == [])
    }

    @Test func anExpiringTokenMakesLoginAppRequireTheOnboardingAtTheDeadline() throws {
        var logic = try onboardedLogic(tokenLifetime: .seconds(30))
        let deadline = try #require(logic.nextDeadline(after: start))
        #expect(deadline == start + .seconds(30))
        let early = logic.tick(now: start + .seconds(29))
        let atDeadline = logic.tick(now: deadline)
        let later = logic.tick(now: deadline + .seconds(1))
        #expect(early == [])
        #expect(atDeadline == [ServiceEmission(app, DemoStep.onboardingIsRequired.step)])
        #expect(later == [])
        #expect(logic.nextDeadline(after: deadline) == nil)
    }

    @Test func aRevocationFromOutsideReachesOnlyThatSessionsLoginApp() throws {
        var logic = try onboardedLogic()
        let kioskApp = AttachmentKey(session: "kiosk", attachment: 1)
        let kioskForm = AttachmentKey(session: "kiosk", attachment: 5)
        let kioskKey = AttachmentKey(session: "kiosk", attachment: 6)
        _ = try logic.attach(attachment(kioskApp, DemoStepperKind.loginApp), now: start)
        _ = try logic.attach(attachment(kioskForm, DemoStepperKind.loginForm), now: start)
        _ = try logic.attach(attachment(kioskKey, DemoStepperKind.loginApiKey), now: start)
        _ = try logic.handle(action: proceed, on: kioskForm, now: start)
        let kioskOnboarded = try logic.handle(action: setKey, on: kioskKey, now: start)
        #expect(kioskOnboarded == [ServiceEmission(kioskApp, DemoStep.onboardingIsComplete.step)])
        let revoked = logic.revoke(session: "kiosk", now: start)
        #expect(revoked == [ServiceEmission(kioskApp, DemoStep.onboardingIsRequired.step)])
        #expect(logic.service.appState(session: "default", now: start) == .onboardingIsComplete)
    }

    @Test func aDetachedAttachmentIsToldNothingAndItsActionsAreRefused() throws {
        var logic = LoginStepperLogic()
        _ = try logic.attach(attachment(app, DemoStepperKind.loginApp), now: start)
        _ = try logic.attach(attachment(form, DemoStepperKind.loginForm), now: start)
        _ = try logic.attach(attachment(apiKey, DemoStepperKind.loginApiKey), now: start)
        _ = try logic.handle(action: proceed, on: form, now: start)
        logic.detach(app)
        logic.detach(form)
        let keySet = try logic.handle(action: setKey, on: apiKey, now: start)
        #expect(keySet == [])
        #expect(throws: ServiceError.unknownAttachment(form)) {
            try logic.handle(action: proceed, on: form, now: start)
        }
    }

    @Test func aKindTheServiceDoesNotServeIsRefused() {
        var logic = LoginStepperLogic()
        #expect(throws: ServiceError.unknownKind("movies.wishlist")) {
            try logic.attach(attachment(form, "movies.wishlist"), now: start)
        }
    }
}
