import FlowCore
import FlowWire
import Foundation
import Testing
import ZeroMQ

extension FlowdIntegrationTests {
    /// A second flowd on the same state directory stops at start-up: its error is a `critical` log line (where its
    /// logs go), not a bare `Error:` line, and it exits with status 1; the first one keeps serving.
    @Test func aStartUpErrorIsLoggedAtCriticalAndEndsTheProcessWithStatusOne() async throws {
        try await withCluster { cluster in
            try await cluster.startFlowd()
            let second = try await cluster.runToEnd(
                Cluster.daemonExecutable,
                [
                    "--runtime-dir", cluster.runtimeDirectory, "--control", "ipc://\(cluster.runtimeDirectory)/c2.sock",
                    "--events", "ipc://\(cluster.runtimeDirectory)/e2.sock",
                ])
            #expect(second.exit == .exited(1), "\(second)")
            let refusal = second.stderr.filter { $0.contains(" critical ") && $0.contains("flowd stopped on an error") }
            #expect(refusal.count == 1, "\(second)")
            #expect(refusal.first?.contains("in use by another flowd") == true, "\(second)")
            #expect(!second.stderr.contains { $0.hasPrefix("Error:") }, "\(second)")
            #expect(try await cluster.health()["status"] as? String != nil)
        }
    }

    /// A state directory flowd cannot read (here a `journal-1` that is a directory; for a non-root flowd, files another
    /// user owns) stops the start with a `critical` line that says so and what to check, not one about damage.
    @Test func aStateDirectoryItCannotReadStopsTheStartSayingSo() async throws {
        try await withCluster { cluster in
            let state = cluster.runtimeDirectory + "/state"
            try FileManager.default.createDirectory(atPath: state + "/journal-1", withIntermediateDirectories: true)
            let run = try await cluster.runToEnd(
                Cluster.daemonExecutable,
                [
                    "--runtime-dir", cluster.runtimeDirectory, "--control", "ipc://\(cluster.runtimeDirectory)/c.sock",
                    "--events", "ipc://\(cluster.runtimeDirectory)/e.sock", "--state-dir", state,
                ])
            #expect(run.exit == .exited(1), "\(run)")
            let refusal = run.stderr.filter { $0.contains(" critical ") && $0.contains("state directory cannot be read") }
            #expect(refusal.count == 1, "\(run)")
            #expect(refusal.first?.contains("Is a directory") == true, "\(run)")
            #expect(refusal.first?.contains("check their owner, mode and type") == true, "\(run)")
            #expect(!run.stderr.contains { $0.contains("cannot be trusted") || $0.contains("offset=") }, "\(run)")
        }
    }

    // MARK: - Bad input

    /// Over TCP (ports chosen by the OS, read from flowd's ready line): a raw DEALER sends a malformed frame, a wrong
    /// protocol version, an unknown type, a request on an unknown session, an unknown step and a body over
    /// `--max-body-bytes`; each gets the `ERROR` with its code. A message over the socket's hard `ZMQ_MAXMSGSIZE`
    /// gets no answer: libzmq drops the connection (the DEALER sees it disconnected; the test dials again). Meanwhile and
    /// afterwards the daemon serves its presenter and services, and `flowctl health` shows every refusal counted.
    @Test func badInputGetsTheRightErrorsAndTheDaemonKeepsServingEveryoneElse() async throws {
        try await withCluster { cluster in
            let daemon = try await cluster.startFlowd([
                "--control", "tcp://127.0.0.1:*", "--events", "tcp://127.0.0.1:*", "--max-body-bytes", "65536",
                "--allow-plaintext-tcp",
            ])
            #expect(daemon.control.hasPrefix("tcp://127.0.0.1:") && !daemon.control.hasSuffix(":*"))
            #expect(daemon.events.hasPrefix("tcp://127.0.0.1:") && daemon.events != daemon.control)
            let connection = daemon.connectionArguments
            let watch = try await cluster.startWatch(session: "default", connection: connection)
            try cluster.startLoginService(["--control", daemon.control])
            try await watch.waitFor(DemoSystem.onboardingLog.last!)
            let presenter = try cluster.startPresenter(["--control", daemon.control])
            try await presenter.waitFor("report onboarding.login visible")

            let dealer = try RawDealer(endpoint: daemon.control)
            let hello = #"{"req":2,"role":"operator","name":"raw","instance":"x","heartbeat_ms":1000}"#

            try await dealer.send(strings: ["FLOWD1", "HELLO"])
            let malformed = try await dealer.receiveError()
            #expect((malformed.code, malformed.req, malformed.type) == (.malformedFrame, nil, nil))

            try await dealer.send(strings: ["FLOWD2", "HELLO", hello])
            let version = try await dealer.receiveError()
            #expect((version.code, version.req, version.type) == (.unsupportedVersion, 2, nil))

            try await dealer.send(strings: ["FLOWD1", "TELEPORT", #"{"req":3}"#])
            let unknownType = try await dealer.receiveError()
            #expect((unknownType.code, unknownType.req, unknownType.type) == (.unknownType, 3, nil))

            let welcome = try await dealer.hello()
            #expect(welcome.protocol == 1)

            try await dealer.send(.tree(SessionRequest(req: 4, session: "nowhere")))
            let unknownSession = try await dealer.receiveError()
            #expect((unknownSession.code, unknownSession.req, unknownSession.type) == (.unknownSession, 4, "TREE"))

            try await dealer.send(
                .deepLink(DeepLinkRequest(req: 5, session: "default", step: Step("teleportIsRequired"))))
            let unknownStep = try await dealer.receiveError()
            #expect((unknownStep.code, unknownStep.req, unknownStep.type) == (.unknownStep, 5, "DEEPLINK"))

            let padding = String(repeating: "x", count: 100_000)
            try await dealer.send(strings: ["FLOWD1", "HEALTH", #"{"req":6,"pad":""# + padding + #""}"#])
            let tooLarge = try await dealer.receiveError()
            #expect((tooLarge.code, tooLarge.req, tooLarge.type) == (.messageTooLarge, 6, "HEALTH"))
            for error in [malformed, version, unknownType, unknownSession, unknownStep, tooLarge] {
                #expect(!error.message.isEmpty)
            }

            // Over the hard limit (1 MiB): dropped by libzmq with the connection, before the daemon sees it.
            let huge = String(repeating: "y", count: 2 << 20)
            try await dealer.send(strings: ["FLOWD1", "HEALTH", #"{"req":7,"pad":""# + huge + #""}"#])
            let events = try await dealer.waitForConnectionEvent(.disconnected)
            #expect(events.last?.kind == .disconnected)
            // A client whose connection dropped opens a new socket (the old one may still hold the oversized
            // message, which libzmq would send again on its reconnection) and says HELLO again.
            let redialed = try RawDealer(endpoint: daemon.control)
            let again = try await redialed.hello()
            #expect(again.peer != welcome.peer)
            #expect(again.daemon == welcome.daemon)
            guard case .ok(let healthReply) = try await redialed.request(.health(PlainRequest(req: 8))) else {
                Issue.record("HEALTH after the dropped connection got no OK")
                return
            }
            #expect(healthReply.req == 8)

            // Everyone else is still served: the presenter's login goes through the login service.
            let proceed = #"action onboarding.login proceed {"user":"demo","password":"demo"}"#
            #expect(try await presenter.run(proceed) == "ok \(proceed) delivered=1")
            try await presenter.waitFor("report onboarding.apikey visible")
            try await watch.waitFor("did navigate flow=OnboardingFlow step=userIsLoggedIn")

            let health = try await cluster.health(connection)
            #expect(health["status"] as? String == "ok")
            #expect(
                counts(health, "errors") == [
                    "malformedFrame": 1, "unsupportedVersion": 1, "unknownType": 1, "unknownSession": 1,
                    "unknownStep": 1, "messageTooLarge": 1,
                ]
            )
            let peers = health["peers"] as? [String: Int]
            #expect(peers?["presenter"] == 1)
            #expect(peers?["stepper"] == 1)
            #expect(
                watch.lines == DemoSystem.onboardingLog + ["did navigate flow=OnboardingFlow step=userIsLoggedIn"]
            )
        }
    }

    // MARK: - A stopped presenter

    /// A presenter process stopped (SIGSTOP) while a flood of deep links sequences thousands of commands for its
    /// session: its queue in flowd fills (`send_high_water_mark` 100 here) and the rest is dropped and counted;
    /// meanwhile flowd answers `HEALTH` and serves the kiosk's presenter (another session: its login goes through).
    /// Continued (SIGCONT), the presenter applies what was queued, sees the gap, `SYNC`s, gets a `SNAPSHOT` (over the
    /// 256 KiB a client used to decode) and reaches the session's `seq` with the daemon's UI: a new presenter taking
    /// the session over gets the same screens. Its heartbeat is long (60 s) and ZMTP heartbeats are off, so flowd does
    /// not count it dead while the process is stopped: this is the full-queue path, not the silent-peer one.
    @Test func aStoppedPresenterMissesCommandsWhileOthersAreServedAndConvergesWhenItContinues() async throws {
        try await withCluster { cluster in
            let config = "\(cluster.runtimeDirectory)/flowd.json"
            // No ZMTP heartbeats: libzmq would drop the stopped process's connection after 3 s without a PONG, and on
            // a busy machine the flood can take longer than that. (The presenter's PINGs ask for a TTL of three of its
            // 60 s heartbeats, not 3 s, or libzmq would drop it all the same.)
            try #"{"sockets": {"send_high_water_mark": 100, "zmtp_heartbeat_ms": 0}}"#.write(
                toFile: config, atomically: true, encoding: .utf8)
            let daemon = try await cluster.startFlowd(["--config", config, "--heartbeat-ms", "3000"])
            let watch = try await cluster.startWatch(session: "default")
            try cluster.startLoginService()
            try await watch.waitFor(DemoSystem.onboardingLog.last!)
            let presenter = try cluster.startPresenter(["--heartbeat-ms", "60000"])
            try await presenter.waitFor("report onboarding.login visible")
            let kiosk = try cluster.startPresenter(["--session", "kiosk", "--create"], name: "kiosk-presenter")
            try await kiosk.waitFor("report onboarding.login visible")

            presenter.process.signal(SIGSTOP)
            let dealer = try RawDealer(endpoint: daemon.control)
            try await dealer.hello(name: "flood")
            // Until well over `max_replay_commands` (512) commands are lost, so the way back is a SNAPSHOT, of some
            // 1500 screens (over 256 KiB).
            var deepLinks = 0
            var droppedAt: Int?
            var droppedDuringFlood = 0
            while deepLinks < 3000, droppedDuringFlood < 1200 {
                deepLinks += 1
                let req = dealer.req()
                let step = Step("movieIsPicked", payload: .int(100_000 + deepLinks))
                let deepLink = DeepLinkRequest(req: req, session: "default", step: step)
                guard case .ok(let reply) = try await dealer.request(.deepLink(deepLink)), reply.req == req else {
                    throw HarnessError("deep link \(deepLinks) was not answered OK")
                }
                if deepLinks % 25 == 0 {
                    let healthReq = dealer.req()
                    let reply = try await dealer.request(.health(PlainRequest(req: healthReq)))
                    guard case .ok(let health) = reply, health.req == healthReq else {
                        throw HarnessError("HEALTH was not answered during the flood")
                    }
                    droppedDuringFlood =
                        value(in: health.result, at: "counters", "sends_dropped", "COMMAND")?.intValue ?? 0
                    if droppedAt == nil, droppedDuringFlood > 0 { droppedAt = deepLinks }
                }
            }
            let overflowed = try #require(droppedAt, "no COMMAND dropped after \(deepLinks) deep links")
            #expect(droppedDuringFlood >= 1200)

            // Meanwhile the kiosk's session is served as usual.
            let proceed = #"action onboarding.login proceed {"user":"alice","password":"wonderland"}"#
            let kioskFrom = kiosk.lines.count
            #expect(try await kiosk.run(proceed) == "ok \(proceed) delivered=1")
            try await kiosk.waitFor("report onboarding.apikey visible", from: kioskFrom)
            let stalled = try await cluster.health()
            let dropped = try #require(counts(stalled, "sends_dropped")?["COMMAND"])
            #expect(dropped > 0)

            // Continued: it catches up to the session's seq.
            let seq = try #require(try await cluster.sessionSeqs()["default"])
            let resumedFrom = presenter.lines.count
            presenter.process.signal(SIGCONT)
            try await presenter.process.waitForOutput(from: resumedFrom, "the presenter at seq \(seq)") { line in
                line == "snapshot \(seq)" || line.hasPrefix("command \(seq) ")
            }
            let resumed = Array(presenter.lines.dropFirst(resumedFrom))
            let snapshots = resumed.filter { $0.hasPrefix("snapshot ") }
            #expect(!snapshots.isEmpty, "caught up by a SNAPSHOT (more commands lost than a replay carries)")
            #expect(isStrictlyIncreasing(presenter.commandSeqs), "no command applied twice")
            let screens = try await presenter.screens()
            #expect(screens.contains { $0.contains("wishlist.movie.\(100_000 + deepLinks)") })
            #expect(screens.contains { $0.contains("trending.movie.\(100_000 + deepLinks)") })
            print(
                "stopped presenter: \(deepLinks) deep links (first COMMAND dropped by \(overflowed)), "
                    + "\(dropped) COMMANDs dropped, caught up at seq \(seq) via \(snapshots)"
            )

            // The same UI as the daemon's: a presenter taking the session over gets it in its snapshot.
            await presenter.process.kill9()
            let successor = try cluster.startPresenter()
            try await successor.waitFor("snapshot \(seq)")
            #expect(try await successor.screens() == screens)
        }
    }

    // MARK: - Shutdown

    /// SIGTERM: flowd stops cleanly (exit code 0) with clients connected and removes its socket files; then
    /// `flowctl health` finds no daemon and fails with a clear message and exit code 2 once its timeout runs out.
    /// An operator who runs flowd at `notice` (config/README.md's `log_level`) still sees it start, recover and stop.
    @Test func atNoticeTheLogStillSaysWhenFlowdHasItsStateIsReadyAndStops() async throws {
        try await withCluster { cluster in
            let daemon = try await cluster.startFlowd(["--log-level", "notice"])  // waits for `flowd ready`
            daemon.process.signal(SIGTERM)
            let exit = await daemon.process.waitForExit(within: generousDeadline)
            #expect(exit == .exited(0), "\(daemon.process.diagnostics)")
            let lines = daemon.process.stderr.lines
            #expect(lines.contains { $0.contains(" notice ") && $0.contains("state is new") }, "\(lines)")
            #expect(lines.contains { $0.contains(" notice ") && $0.contains("flowd ready") }, "\(lines)")
            #expect(lines.contains { $0.contains(" notice ") && $0.contains("flowd stopping") }, "\(lines)")
            #expect(!lines.contains { $0.contains(" info ") }, "\(lines)")
        }
    }

    @Test func flowdStopsCleanlyOnSigtermAndFlowctlThenFailsClearly() async throws {
        try await withCluster { cluster in
            let daemon = try await cluster.startFlowd()
            let watch = try await cluster.startWatch(session: "default")
            try cluster.startLoginService()
            try await watch.waitFor(DemoSystem.onboardingLog.last!)
            let presenter = try cluster.startPresenter()
            try await presenter.waitFor("report onboarding.login visible")
            let control = "\(cluster.runtimeDirectory)/control.sock"
            let events = "\(cluster.runtimeDirectory)/events.sock"
            #expect(FileManager.default.fileExists(atPath: control))
            #expect(FileManager.default.fileExists(atPath: events))

            daemon.process.signal(SIGTERM)
            let exit = await daemon.process.waitForExit(within: generousDeadline)
            #expect(exit == .exited(0), "\(daemon.process.diagnostics)")
            #expect(!FileManager.default.fileExists(atPath: control))
            #expect(!FileManager.default.fileExists(atPath: events))
            #expect(daemon.process.stderr.lines.contains { $0.contains("flowd stopping") })

            let health = try await cluster.flowctl(["health", "--timeout", "1"])
            #expect(health.exit == .exited(2))
            #expect(health.stdout == [])
            #expect(
                health.stderr.first?.hasPrefix(
                    "flowctl: flowd did not answer within 1.0 s at ipc://\(control): is it running?"
                ) == true,
                "\(health.stderr)"
            )
            #expect(health.stderr.count == 1)
        }
    }
}

/// The value at `path` in nested JSON objects, if every step is an object holding the next key.
private func value(in json: JSONValue, at path: String...) -> JSONValue? {
    path.reduce(json as JSONValue?) { value, key in
        guard case .object(let object)? = value else { return nil }
        return object[key]
    }
}
