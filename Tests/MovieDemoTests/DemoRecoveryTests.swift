import FlowCore
import FlowDaemon
import FlowWire
import MovieDemo
import MovieVocabulary
import MovieServices
import Testing

/// `flowd` restarted from its journal at any point of the whole movie demo journey (``InMemoryDemoSystem`` with
/// journaling) comes back exactly as it was, and the journey goes on as if nothing happened.
///
/// The journey is the one of ``WholeJourneyTests``, chapter by chapter, played by the in-memory services and
/// presenter through the daemon: launch, onboarding, logout and login again, movie details, cast details, settings,
/// About twice, and the deep link.
struct DemoRecoveryTests {
    /// One operation of the journey script.
    struct Operation: CustomStringConvertible, Sendable {
        let description: String
        let run: @Sendable (InMemoryDemoSystem) throws -> Void

        init(_ description: String, _ run: @escaping @Sendable (InMemoryDemoSystem) throws -> Void) {
            self.description = description
            self.run = run
        }
    }

    static let demoUser: JSONValue = ["user": "demo", "password": "demo"]

    /// The whole journey, one operation of a peer at a time.
    static let journey: [Operation] = [
        // launch
        Operation("login service connects") { $0.connectLoginService() },
        Operation("movie service connects") { $0.connectMovieService() },
        Operation("presenter connects") { $0.connectPresenter() },
        // onboarding
        Operation("proceed") { $0.act(DemoAction.proceed, on: "onboarding.login", payload: demoUser) },
        Operation("set API key") { $0.act(DemoAction.setApiKey, on: "onboarding.apikey", payload: ["key": "k"]) },
        // logout, then login again
        Operation("logout") { $0.act(DemoAction.logout, on: "wishlist.list") },
        Operation("proceed again") { $0.act(DemoAction.proceed, on: "onboarding.login", payload: demoUser) },
        Operation("set API key again") { $0.act(DemoAction.setApiKey, on: "onboarding.apikey", payload: ["key": "k"]) },
        // movie detail
        Operation("Watched tab") { try $0.selectTab(1, in: "dashboard.tabs") },
        Operation("pick 43424 on Watched") { $0.act(DemoAction.pick, on: "watched.list", payload: ["id": 43424]) },
        Operation("back on Watched") { try $0.tapBack(in: "watched.stack") },
        Operation("Trending tab") { try $0.selectTab(2, in: "dashboard.tabs") },
        Operation("pick 55423 on Trending") { $0.act(DemoAction.pick, on: "trending.movies", payload: 55423) },
        Operation("back on Trending") { try $0.tapBack(in: "trending.stack") },
        Operation("Wishlist tab") { try $0.selectTab(0, in: "dashboard.tabs") },
        Operation("pick 21212 on Wishlist") { $0.act(DemoAction.pick, on: "wishlist.list", payload: 21212) },
        // cast detail
        Operation("pick cast 4") { $0.act(DemoAction.pickCast, on: "wishlist.movie.21212", payload: 4) },
        Operation("back from the cast") { try $0.tapBack(in: "wishlist.stack") },
        Operation("back from the movie") { try $0.tapBack(in: "wishlist.stack") },
        Operation("Trending tab again") { try $0.selectTab(2, in: "dashboard.tabs") },
        Operation("Casts page") { try $0.selectTab(1, in: "trending.pages") },
        Operation("pick cast 5") { $0.act(DemoAction.pick, on: "trending.casts", payload: 5) },
        Operation("back from cast 5") { try $0.tapBack(in: "trending.stack") },
        Operation("Movies page") { try $0.selectTab(0, in: "trending.pages") },
        Operation("Wishlist tab again") { try $0.selectTab(0, in: "dashboard.tabs") },
        // settings
        Operation("settings") { $0.act(DemoAction.settings, on: "wishlist.list") },
        Operation("dismiss the settings alert") { try $0.dismiss("settings.alert") },
        Operation("API key row") { $0.act(DemoAction.apiKey, on: "settings.list") },
        Operation("About row") { $0.act(DemoAction.about, on: "settings.list") },
        Operation("Login row") { $0.act(DemoAction.login, on: "settings.list") },
        Operation("proceed in settings") { $0.act(DemoAction.proceed, on: "settings.login", payload: demoUser) },
        Operation("settings done") { $0.act(DemoAction.done, on: "settings.split") },
        // about, twice
        Operation("about (unauthorized)") { $0.act(DemoAction.about, on: "wishlist.list") },
        Operation("dismiss the unauthorized alert") { try $0.dismiss("wishlist.alert") },
        Operation("about") { $0.act(DemoAction.about, on: "wishlist.list") },
        Operation("about done") { $0.act(DemoAction.done, on: "wishlist.about") },
        // deep link
        Operation("deep link movieIsPicked(23452)") { $0.deepLink(DemoStep.movieIsPicked(withId: 23452).step) },
    ]

    /// What of a session a client can observe: its tree, the UI its commands built, and its `seq` (a pending session
    /// of a recovered core is made to be read).
    static func state(of core: inout DaemonCore, session: String = InMemoryDemoSystem.session) -> String {
        let tree = core.tree(of: session).map { "\($0)" } ?? "-"
        let ui = core.ui(of: session).map { "\(UISnapshot($0))" } ?? "-"
        return "seq \(core.seq(of: session) ?? 0)\n\(tree)\n\(ui)"
    }

    /// The journey played without a restart.
    static func uninterrupted() throws -> InMemoryDemoSystem {
        let system = InMemoryDemoSystem(journaling: true)
        for operation in journey { try operation.run(system) }
        return system
    }

    @Test("The journey with journaling is the demo's whole journey: every navigation, no drop, no error")
    func theJournaledJourneyIsTheWholeJourney() throws {
        let system = try Self.uninterrupted()
        #expect(Set(system.didNavigate) == Set(WholeJourneyTests.expectedLog))
        #expect(system.didNavigate.count == WholeJourneyTests.expectedLog.count)
        #expect(system.drops == [])
        #expect(system.errors == [])
        // The wishlist list has two remote steppers, the movie service's and the logout's: each refuses the other's.
        #expect(
            system.serviceErrors.allSatisfy {
                if case .unknownAction = $0 { return true }
                return false
            }
        )
        #expect(system.rejectedCommands == [])
        #expect(system.stepOutcomes.allSatisfy { $0 == "accepted" })
        #expect(system.presentation.visiblePresentables == ["app.stack", "dashboard.tabs", "wishlist.stack", "wishlist.movie.23452"])
        system.daemon.compactJournal()
        let sizes = system.core.journalHistory.map(\.count)
        print("demo state snapshot at the journey's end: records of \(sizes) bytes")
    }

    @Test("Restarted from the journal after any input of the journey, the daemon has the live state")
    func restartAfterAnyInputRebuildsTheLiveState() throws {
        let live = try Self.uninterrupted()
        let inputs = live.handledInputs
        let counts = live.historyCounts
        let history = live.core.journalHistory
        let presenter = try #require(live.presenterPeer)
        try #require(counts.count == inputs.count + 1)
        print("demo recovery: restarted after each of \(inputs.count) inputs (\(history.count) journal records)")
        for cut in 0...inputs.count {
            // The live core after `cut` inputs, fed the same inputs again (the core is deterministic).
            var reference = InMemoryDemoSystem.makeCore(daemonID: InMemoryDemoSystem.daemonID, journaling: true)
            _ = reference.start(now: 0)
            for input in inputs.prefix(cut) { _ = reference.handle(input, now: 0) }
            let journal = Array(history.prefix(counts[cut]))
            #expect(reference.journalHistory == journal, "the journal after \(cut) inputs is the live one's")

            var restarted = InMemoryDemoSystem.makeCore(daemonID: "restarted", journaling: true)
            let report = try restarted.recover(from: journal)
            #expect(report.skipped == 0)
            let started = restarted.start(now: 0)
            #expect(
                !started.contains {
                    if case .send = $0 { return true }
                    if case .publish = $0 { return true }
                    return false
                },
                "a restarted daemon sends nothing before a peer connects"
            )
            #expect(restarted.daemonID == InMemoryDemoSystem.daemonID)

            // The same state saved as data (a snapshot written at that point) and restored from it.
            var compacted = reference
            let compaction = compacted.compactJournal()
            #expect(compaction.keptAsHistory.isEmpty && compaction.saved + compaction.unchanged == 1)
            var restored = InMemoryDemoSystem.makeCore(daemonID: "restored", journaling: true)
            let restoredReport = try restored.recover(from: compacted.journalHistory)
            #expect(restoredReport.restoredSessions == compaction.saved, "after \(cut) inputs")
            _ = restored.start(now: 0)

            // A restarted daemon has no presenter yet: compare with the live one once its presenter is gone.
            _ = reference.handle(.peerUnreachable(presenter), now: 0)
            #expect(restarted.sessionIDs == reference.sessionIDs, "after \(cut) inputs")
            #expect(restored.sessionIDs == reference.sessionIDs, "after \(cut) inputs")
            for session in reference.sessionIDs {
                let expected = Self.state(of: &reference, session: session)
                let actual = Self.state(of: &restarted, session: session)
                #expect(actual == expected, "session \(session) after input \(cut) of \(inputs.count)")
                let fromState = Self.state(of: &restored, session: session)
                #expect(fromState == expected, "session \(session) from its state after input \(cut)")
            }
        }
    }

    @Test(
        "Restarted between any two operations, the journey goes on to the same end: no navigation lost or twice",
        arguments: [false, true]
    )
    func theJourneyGoesOnAfterARestartAnywhere(fromStateSnapshot: Bool) throws {
        let expected = try Self.uninterrupted()
        print(
            "demo recovery: restarted before each of \(Self.journey.count) operations and at the end"
                + (fromStateSnapshot ? ", from state snapshots" : ""))
        for cut in 0...Self.journey.count {
            let system = InMemoryDemoSystem(journaling: true)
            for operation in Self.journey.prefix(cut) { try operation.run(system) }
            let navigated = system.didNavigate.count
            let welcomes = system.welcomedBy.count
            let attaches = system.attachesReceived
            let before = Self.state(of: &system.core)
            let at = cut < Self.journey.count ? "before '\(Self.journey[cut])'" : "at the end"

            if fromStateSnapshot {
                // A snapshot written before the kill: the session saved as data (the demo waits for no adaptation
                // or `.ready` block between operations), unless it has nothing but its creation yet.
                #expect(system.daemon.compactJournal().keptAsHistory == 0, "\(at)")
                #expect(system.core.journalRecordCount == 2, "the daemon record and the session's state, \(at)")
            }
            try system.restartDaemon()
            // Every other time the presenter restarted as well: it syncs from nothing and adopts a snapshot.
            system.reconnectAfterRestart(presenterRestarted: cut % 2 == 1)
            if cut >= 1 { #expect(system.welcomedBy.count > welcomes, "the peers were welcomed again, \(at)") }
            #expect(system.welcomedBy.dropFirst(welcomes).allSatisfy { $0 == InMemoryDemoSystem.daemonID }, "\(at)")
            #expect(system.didNavigate.count == navigated, "reconnecting navigates nothing, \(at)")
            #expect(Self.state(of: &system.core) == before, "the peers find the state they left, \(at)")
            if cut >= 3 {
                #expect(system.attachesReceived > attaches, "the services get their attachments again, \(at)")
            }
            // A STEP whose reply was lost in the crash, sent again: its first verdict, not applied twice.
            for service in [system.loginService, system.movieService].compactMap({ $0 }) {
                guard let result = service.resendLastStep() else { continue }
                #expect(result == StepVerdict(accepted: true, duplicate: true), "\(service.name) \(at)")
            }
            #expect(Self.state(of: &system.core) == before, "a STEP sent again changes nothing, \(at)")

            for operation in Self.journey.dropFirst(cut) { try operation.run(system) }
            #expect(Self.state(of: &system.core) == Self.state(of: &expected.core), "restarted \(at)")
            #expect(UISnapshot(system.presentation) == UISnapshot(expected.presentation), "restarted \(at)")
            #expect(system.didNavigate == expected.didNavigate, "restarted \(at)")
            #expect(system.stepOutcomes == expected.stepOutcomes, "restarted \(at)")
            #expect(system.drops == expected.drops, "restarted \(at)")
            #expect(system.errors == expected.errors, "restarted \(at)")
            #expect(system.serviceErrors == expected.serviceErrors, "restarted \(at)")
            #expect(system.rejectedCommands == expected.rejectedCommands, "restarted \(at)")
        }
    }
}
