import FlowCore
import MovieDemo
import MovieVocabulary
import Synchronization
import Testing

/// The demo's steps and services.
struct DemoModelTests {
    @Test func demoStepsConvertToStepsAndBack() {
        let cases: [(DemoStep, Step)] = [
            (.dashboardIsRequired, Step("dashboardIsRequired")),
            (.movieIsPicked(withId: 23452), Step("movieIsPicked", payload: .int(23452))),
            (.castIsPicked(withId: 4), Step("castIsPicked", payload: .int(4))),
            (.alert("Hi"), Step("alert", payload: .string("Hi"))),
            (.settingsAreComplete, Step("settingsAreComplete")),
        ]
        for (demoStep, step) in cases {
            #expect(demoStep.step == step)
            #expect(DemoStep(step: step) == demoStep)
        }
        #expect(DemoStep.movieIsPicked(withId: 23452).step.description == "movieIsPicked(23452)")
        #expect(DemoStep(step: Step("movieIsPicked", payload: "23452")) == nil)
        #expect(DemoStep(step: Step("home")) == nil)
        #expect(DemoStep(step: Step("fakeStep", payload: 1)) == nil)
    }

    @Test func theCatalogueHasTheDemosTenMoviesAndTenCasts() throws {
        let service = MoviesService()
        #expect(service.movies.count == 10)
        #expect(service.wishlistMovies().map(\.id) == [21212, 14323, 23452, 35423])
        #expect(service.watchedMovies().map(\.id) == [43424, 55423, 64323, 7253, 5864, 9432])
        #expect(service.movie(forId: 23452)?.title == "Avatar")
        #expect(service.movie(forId: 1) == nil)
        #expect(service.allCasts().map(\.id) == Array(0...9))
        #expect(service.cast(forId: 5)?.name == "Schwarzenegger")
        let avatar = try #require(service.movie(forId: 23452))
        let starWars = try #require(service.movie(forId: 14323))
        #expect(service.casts(for: avatar).map(\.id) == [0, 2, 4, 6, 8])
        #expect(service.casts(for: starWars).map(\.id) == [1, 3, 5, 7, 9])
    }

    @Test func theOnboardingFlagIsObservedFromItsCurrentValueAndOnEveryChange() {
        let preferences = PreferencesService(onboarded: false)
        let seen = Mutex<[Bool]>([])
        let observation = preferences.observeOnboarded { value in seen.withLock { $0.append(value) } }
        preferences.setOnboarded()
        preferences.setOnboarded()
        preferences.setNotOnboarded()
        preferences.cancel(observation)
        preferences.setOnboarded()
        #expect(seen.withLock { $0 } == [false, true, false])
        #expect(preferences.isOnboarded)
    }

    @Test func theAppStepperStartsWithTheDashboardThenFollowsTheOnboardingFlag() {
        let preferences = PreferencesService(onboarded: true)
        let stepper = AppStepper(preferencesService: preferences)
        let steps = Mutex<[Step]>([])
        stepper.steps.subscribe { step in steps.withLock { $0.append(step) } }
        #expect(stepper.initialStep == DemoStep.dashboardIsRequired.step)
        stepper.readyToEmitSteps()
        preferences.setNotOnboarded()
        #expect(steps.withLock { $0 } == [DemoStep.onboardingIsComplete.step, DemoStep.onboardingIsRequired.step])
    }
}
