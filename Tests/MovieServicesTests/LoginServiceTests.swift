import FlowCore
import MovieVocabulary
import MovieServices
import Testing

/// Users, session tokens (expiry, revocation) and the onboarding, with time passed in.
struct LoginServiceTests {
    let start = ContinuousClock.now

    @Test func theRightPasswordIssuesATokenForTheSessionNotYetOnboarded() throws {
        var service = LoginService(tokenLifetime: .seconds(60))
        let token = try service.logIn(user: "demo", password: "demo", session: "default", now: start)
        #expect(token.user == "demo")
        #expect(token.expiresAt == start + .seconds(60))
        #expect(!token.onboarded)
        #expect(service.validToken(for: "default", now: start) == token)
        #expect(service.appState(session: "default", now: start) == .onboardingIsRequired)
    }

    @Test func aWrongPasswordOrAnUnknownUserIsRefusedAndIssuesNothing() {
        var service = LoginService()
        #expect(throws: ServiceError.invalidCredentials(user: "demo")) {
            try service.logIn(user: "demo", password: "nope", session: "default", now: start)
        }
        #expect(throws: ServiceError.invalidCredentials(user: "mallory")) {
            try service.logIn(user: "mallory", password: "demo", session: "default", now: start)
        }
        #expect(service.tokens.isEmpty)
    }

    @Test func theApiKeyCompletesTheOnboardingOnlyWithAValidToken() throws {
        var service = LoginService()
        #expect(throws: ServiceError.notLoggedIn(session: "default")) {
            try service.setApiKey("k", session: "default", now: start)
        }
        try service.logIn(user: "alice", password: "wonderland", session: "default", now: start)
        #expect(throws: ServiceError.invalidApiKey) { try service.setApiKey("", session: "default", now: start) }
        try service.setApiKey("k", session: "default", now: start)
        #expect(service.appState(session: "default", now: start) == .onboardingIsComplete)
    }

    @Test func aTokenIsValidUntilItsExpiryAndTheNextExpiryIsAnnounced() throws {
        var service = LoginService(tokenLifetime: .seconds(10))
        try service.logIn(user: "demo", password: "demo", session: "a", now: start)
        try service.setApiKey("k", session: "a", now: start)
        try service.logIn(user: "demo", password: "demo", session: "b", now: start + .seconds(5))
        #expect(service.nextExpiry(after: start) == start + .seconds(10))
        #expect(service.appState(session: "a", now: start + .seconds(9)) == .onboardingIsComplete)
        #expect(service.appState(session: "a", now: start + .seconds(10)) == .onboardingIsRequired)
        #expect(service.nextExpiry(after: start + .seconds(10)) == start + .seconds(15))
        #expect(service.nextExpiry(after: start + .seconds(15)) == nil)
        #expect(throws: ServiceError.notLoggedIn(session: "a")) {
            try service.setApiKey("k", session: "a", now: start + .seconds(11))
        }
    }

    @Test func aRevokedTokenIsGoneWhetherRevokedBySessionOrByValue() throws {
        var service = LoginService()
        try service.logIn(user: "demo", password: "demo", session: "a", now: start)
        let b = try service.logIn(user: "alice", password: "wonderland", session: "b", now: start)
        let revokedA = service.revoke(session: "a")
        let revokedAAgain = service.revoke(session: "a")
        let revokedB = service.revoke(token: b.value)
        let revokedBAgain = service.revoke(token: b.value)
        #expect(revokedA && !revokedAAgain)
        #expect(revokedB && !revokedBAgain)
        #expect(service.validToken(for: "a", now: start) == nil)
        #expect(service.validToken(for: "b", now: start) == nil)
    }

    @Test func loggingInAgainAsTheSameUserKeepsTheOnboardingAnotherUserStartsOver() throws {
        var service = LoginService()
        let first = try service.logIn(user: "demo", password: "demo", session: "default", now: start)
        try service.setApiKey("k", session: "default", now: start)
        let again = try service.logIn(user: "demo", password: "demo", session: "default", now: start + .seconds(1))
        #expect(again.value == first.value)
        #expect(service.appState(session: "default", now: start + .seconds(1)) == .onboardingIsComplete)
        let other = try service.logIn(user: "alice", password: "wonderland", session: "default", now: start)
        #expect(other.value != first.value)
        #expect(service.appState(session: "default", now: start) == .onboardingIsRequired)
    }

    @Test func actionsMapToStepsByKind() throws {
        var service = LoginService()
        let proceed = Step(DemoAction.proceed, payload: ["user": "demo", "password": "demo"])
        let loggedIn = try service.step(for: DemoStepperKind.loginForm, action: proceed, session: "s", now: start)
        #expect(loggedIn == DemoStep.userIsLoggedIn.step)
        let setKey = Step(DemoAction.setApiKey, payload: ["key": "abc"])
        let keySet = try service.step(for: DemoStepperKind.loginApiKey, action: setKey, session: "s", now: start)
        #expect(keySet == nil)
        #expect(service.appState(session: "s", now: start) == .onboardingIsComplete)
        let logout = Step(DemoAction.logout)
        let loggedOut = try service.step(for: DemoStepperKind.loginLogout, action: logout, session: "s", now: start)
        #expect(loggedOut == nil)
        #expect(service.appState(session: "s", now: start) == .onboardingIsRequired)
    }

    @Test func badActionsAreRefusedWithTheirReason() {
        var service = LoginService()
        let expected = #"{"user": <string>, "password": <string>}"#
        #expect(throws: ServiceError.badPayload(action: "proceed", expected: expected)) {
            try service.step(
                for: DemoStepperKind.loginForm, action: Step("proceed", payload: 1), session: "s", now: start
            )
        }
        #expect(throws: ServiceError.unknownAction(kind: "login.app", action: "proceed")) {
            try service.step(for: DemoStepperKind.loginApp, action: Step("proceed"), session: "s", now: start)
        }
        #expect(throws: ServiceError.unknownKind("movies.detail")) {
            try service.step(for: "movies.detail", action: Step("pickCast"), session: "s", now: start)
        }
        #expect(throws: ServiceError.notLoggedIn(session: "s")) {
            try service.step(
                for: DemoStepperKind.loginApiKey, action: Step("setApiKey", payload: ["key": "k"]), session: "s",
                now: start
            )
        }
    }
}
