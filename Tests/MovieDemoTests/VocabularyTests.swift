import FlowCore
import FlowDaemon
import MovieDemo
import MovieVocabulary
import Testing

/// The demo declares what it speaks (`DESCRIBE`): every name a client may need, and nothing it does not use.
struct VocabularyTests {
    let vocabulary = MovieDemoApplication().vocabulary

    /// PROTOCOL.md §3: `invalidPayload`'s message names the type, here as the vocabulary describes the payload.
    @Test func aPayloadRefusalNamesTheStepsDeclaredPayload() throws {
        let application = MovieDemoApplication()
        let refusal = try #require(application.payloadRefusal(for: Step("movieIsPicked", payload: "dune")))
        #expect(refusal == #"the step 'movieIsPicked' takes a payload of type <int: a movie id>, not "dune""#)
        #expect(application.payloadRefusal(for: Step("movieIsPicked", payload: 23452)) == nil)
    }

    @Test func everyStepIsDeclaredOnceAndOnlyTheDemosSteps() {
        let names = vocabulary.steps.map(\.name)
        #expect(Set(names) == DemoStep.names)
        #expect(names.count == DemoStep.names.count)
    }

    @Test func everyStepperKindIsDeclaredWithStepsTheApplicationKnows() {
        #expect(vocabulary.stepperKinds.map(\.kind) == DemoStepperKind.login + DemoStepperKind.movies)
        for kind in vocabulary.stepperKinds {
            #expect(Set(kind.steps).isSubset(of: DemoStep.names), "\(kind.kind)")
        }
        #expect(vocabulary.stepperKinds.first { $0.kind == DemoStepperKind.loginForm }?.steps.contains("alert") == true)
    }

    @Test func everyActionIsAcceptedBySomeScreenTypeAndTheLoginFormsPayloadIsSpelledOut() {
        let actions = Set(vocabulary.screenTypes.flatMap(\.actions).map(\.name))
        #expect(
            actions == [
                DemoAction.pick, DemoAction.pickCast, DemoAction.about, DemoAction.settings, DemoAction.logout,
                DemoAction.proceed, DemoAction.setApiKey, DemoAction.done, DemoAction.login, DemoAction.apiKey,
            ])
        let login = vocabulary.screenTypes.first { $0.type == DemoScreens.onboardingLogin.type }
        #expect(login?.actions.map(\.name) == [DemoAction.proceed])
        #expect(login?.actions.first?.payload == #"{"user": <string>, "password": <string>}"#)
    }
}
