import FlowCore
import FlowDaemon
import MovieDemo
import MovieVocabulary
import Testing

/// The demo declares what it speaks (`DESCRIBE`): every name a client may need, and nothing it does not use.
struct VocabularyTests {
    let vocabulary = MovieDemoApplication().vocabulary

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
