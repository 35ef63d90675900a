import ExampleSupport
import FlowCore
import FlowDaemon
import FlowdTesting
import MovieDemo
import MovieServices
import MovieVocabulary
import Testing

/// The login and movie services' logic exactly as their processes run it (ExampleSupport's ``LoginServiceLogic`` and
/// ``MovieServiceLogic``, which `StepperService` serves), run in-process under an ``EmbeddedDaemon`` with
/// ``MovieDemoApplication`` and a truthful presenter; time passes only through ``EmbeddedDaemon/passTime(_:)``.
struct DemoServicesInProcessTests {
    let daemon = EmbeddedDaemon(application: MovieDemoApplication())

    /// The three peers connected, as `scripts/run-system` starts the processes.
    func connect(tokenLifetime: Duration = .seconds(3600)) -> (
        login: LogicStepper<LoginServiceLogic>, movies: LogicStepper<MovieServiceLogic>, presenter: FakePresenter
    ) {
        let login = daemon.connectStepper(
            name: "login-service",
            running: LoginServiceLogic(LoginStepperLogic(service: LoginService(tokenLifetime: tokenLifetime)))
        )
        let movies = daemon.connectStepper(name: "movie-service", running: MovieServiceLogic())
        let presenter = daemon.connectPresenter(name: "movie-presenter")
        return (login, movies, presenter)
    }

    var didNavigate: [String] { daemon.events.filter { $0.event == "did" }.map(\.text) }

    @Test func theOnboardingGoesThroughTheLoginServiceAndTheAPIKeyToTheWishlist() {
        let peers = connect()
        #expect(peers.presenter.presentation.visiblePresentables == ["onboarding.stack", "onboarding.login"])
        let start = didNavigate.count
        #expect(peers.presenter.act(DemoAction.proceed, on: "onboarding.login", payload: RemoteDemoTests.demoUser)?
            .delivered == 1)
        #expect(peers.presenter.act(DemoAction.setApiKey, on: "onboarding.apikey", payload: ["key": "k"])?
            .delivered == 1)
        #expect(
            Array(didNavigate.dropFirst(start)) == [
                "did navigate flow=OnboardingFlow step=userIsLoggedIn",
                "did navigate flow=AppFlow step=onboardingIsComplete",
            ]
        )
        #expect(peers.presenter.presentation.visiblePresentables == RemoteDemoTests.wishlistShown)
        #expect(peers.login.errors.isEmpty && peers.movies.errors.isEmpty)
    }

    /// The movie service's `adapt` refuses the wishlist's About every other time, as over the wire.
    @Test func theMovieServiceAnswersADAPTAndRefusesAboutEveryOtherTime() throws {
        let peers = connect()
        peers.presenter.act(DemoAction.proceed, on: "onboarding.login", payload: RemoteDemoTests.demoUser)
        peers.presenter.act(DemoAction.setApiKey, on: "onboarding.apikey", payload: ["key": "k"])
        let start = didNavigate.count
        peers.presenter.act(DemoAction.about, on: "wishlist.list")
        try peers.presenter.dismiss("wishlist.alert")
        peers.presenter.act(DemoAction.about, on: "wishlist.list")
        #expect(peers.presenter.presentation.isVisible("wishlist.about"))
        #expect(
            Array(didNavigate.dropFirst(start)) == [
                "did navigate flow=WishlistFlow step=unauthorized",
                "did navigate flow=WishlistFlow step=aboutIsRequired",
            ]
        )
    }

    /// The login service's tick (every second, as `StepperService` ticks it) finds the token expired and asks for the
    /// onboarding again; the peers' heartbeats keep them connected meanwhile.
    @Test func anExpiredTokenFoundByTheServicesTickBringsTheOnboardingBack() {
        let peers = connect(tokenLifetime: .seconds(60))
        peers.presenter.act(DemoAction.proceed, on: "onboarding.login", payload: RemoteDemoTests.demoUser)
        peers.presenter.act(DemoAction.setApiKey, on: "onboarding.apikey", payload: ["key": "k"])
        let start = didNavigate.count
        daemon.passTime(.seconds(59))
        #expect(didNavigate.count == start)
        #expect(peers.presenter.presentation.visiblePresentables == RemoteDemoTests.wishlistShown)
        daemon.passTime(.seconds(1))
        #expect(
            Array(didNavigate.dropFirst(start)) == [
                "did navigate flow=AppFlow step=onboardingIsRequired",
                "did navigate flow=OnboardingFlow step=loginIsRequired",
            ]
        )
        #expect(peers.presenter.presentation.visiblePresentables.suffix(2) == ["onboarding.stack", "onboarding.login"])
    }
}
