import FlowCore
import FlowDaemon
import FlowWire
import FlowdTesting
import MovieDemo
import MovieVocabulary
import Testing

/// Movie demo sessions hibernate (docs/RELIABILITY.md, "Hibernation") while their stepper processes stay connected:
/// made again, they answer as sessions never hibernated, with no `ATTACH` sent again.
struct DemoHibernationTests {
    let login = PeerAddress([21])
    let movies = PeerAddress([22])
    let ops = PeerAddress([23])

    func daemon(hibernateAfterS: Int) -> EmbeddedDaemon {
        var configuration = DaemonConfiguration()
        configuration.hibernateAfterS = hibernateAfterS
        return EmbeddedDaemon(
            application: MovieDemoApplication(), configuration: configuration, daemonID: "demo",
            clock: ManualClock(milliseconds: 0), journaling: true)
    }

    @Test("A demo session hibernated and made again: the same replies, STEP verdicts, DETACHes and state")
    func demoSessionsHibernateUnseen() throws {
        let never = daemon(hibernateAfterS: 0)
        let sleeping = daemon(hibernateAfterS: 30)
        func both(_ name: String, _ input: (EmbeddedDaemon) -> DaemonOutcome) -> DaemonOutcome {
            let expected = input(never)
            let outcome = input(sleeping)
            #expect(outcome.sent == expected.sent, "\(name)")
            #expect(outcome.events == expected.events, "\(name)")
            // `local` differs: a hibernated session's in-daemon steppers are not listened to (detached, resumed when made).
            return outcome
        }
        func hello(_ peer: PeerAddress, _ role: PeerRole, _ name: String, serves: [String]) -> ClientMessage {
            .hello(Hello(req: 1, role: role, name: name, instance: name, heartbeatMs: 60_000, serves: serves))
        }
        func at(_ time: UInt64) {
            for daemon in [never, sleeping] { #expect(daemon.clock.advance(toMilliseconds: time)) }
        }
        let loginKinds = [DemoStepperKind.loginApp, DemoStepperKind.loginForm, DemoStepperKind.loginApiKey,
            DemoStepperKind.loginLogout]
        let movieKinds = [DemoStepperKind.moviesWishlist, DemoStepperKind.moviesWatched, DemoStepperKind.moviesTrending,
            DemoStepperKind.moviesCastList, DemoStepperKind.moviesDetail]
        let attaches = both("login HELLO") { $0.receive(hello(login, .stepper, "login", serves: loginKinds), from: login) }
        _ = both("movies HELLO") { $0.receive(hello(movies, .stepper, "movies", serves: movieKinds), from: movies) }
        _ = both("ops HELLO") { $0.receive(hello(ops, .operator, "ops", serves: []), from: ops) }
        let created = both("CREATE_SESSION") {
            $0.receive(.createSession(SessionRequest(req: 2, session: "kiosk")), from: ops)
        }
        let loginApp = try #require(
            (attaches.sent + created.sent).compactMap { delivery -> Attach? in
                guard case .attach(let attach) = delivery.message, attach.kind == DemoStepperKind.loginApp else { return nil }
                return attach
            }.last)

        at(40_000)
        for peer in [login, movies, ops] { _ = both("heartbeat") { $0.receive(.heartbeat(Heartbeat()), from: peer) } }
        _ = both("tick") { $0.tick() }
        #expect(sleeping.core.hibernatedSessionCount == 2, "the default session and kiosk")
        #expect(sleeping.core.holdingsMismatches.isEmpty)

        _ = both("a STEP from the stepper that holds the attachment") {
            $0.receive(
                .step(StepMessage(req: 3, session: loginApp.session, attachment: loginApp.attachment,
                    step: DemoStep.dashboardIsRequired.step)), from: login)
        }
        #expect(sleeping.core.hibernatedSessionCount == 1, "the STEP made its session")
        _ = both("a deep link") {
            $0.receive(.deepLink(DeepLinkRequest(req: 4, session: "kiosk", step: DemoStep.settingsAreRequired.step)), from: ops)
        }
        for id in ["default", "kiosk"] { #expect(sleeping.state(of: id) == never.state(of: id), "\(id)") }

        at(100_000)
        for peer in [login, movies, ops] { _ = both("heartbeat") { $0.receive(.heartbeat(Heartbeat()), from: peer) } }
        _ = both("tick") { $0.tick() }
        #expect(sleeping.core.hibernatedSessionCount == 2, "hibernated again")
        _ = both("END_SESSION") { $0.receive(.endSession(SessionRequest(req: 5, session: "kiosk")), from: ops) }
        _ = both("TREE") { $0.receive(.tree(SessionRequest(req: 6, session: "default")), from: ops) }
        #expect(sleeping.core.holdingsMismatches.isEmpty)
        #expect(sleeping.state(of: "default") == never.state(of: "default"))
        #expect(sleeping.core.counters.sessionsWoken >= 3)
    }
}
