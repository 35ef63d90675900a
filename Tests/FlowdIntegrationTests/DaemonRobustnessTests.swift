import FlowCore
import FlowWire
import Foundation
import Testing
import ZeroMQ

extension FlowdIntegrationTests {
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

            try dealer.send(strings: ["FLOWD1", "HELLO"])
            let malformed = try dealer.receiveError()
            #expect((malformed.code, malformed.req, malformed.type) == (.malformedFrame, nil, nil))

            try dealer.send(strings: ["FLOWD2", "HELLO", hello])
            let version = try dealer.receiveError()
            #expect((version.code, version.req, version.type) == (.unsupportedVersion, 2, nil))

            try dealer.send(strings: ["FLOWD1", "TELEPORT", #"{"req":3}"#])
            let unknownType = try dealer.receiveError()
            #expect((unknownType.code, unknownType.req, unknownType.type) == (.unknownType, 3, nil))

            let welcome = try dealer.hello()
            #expect(welcome.protocol == 1)

            try dealer.send(.tree(SessionRequest(req: 4, session: "nowhere")))
            let unknownSession = try dealer.receiveError()
            #expect((unknownSession.code, unknownSession.req, unknownSession.type) == (.unknownSession, 4, "TREE"))

            try dealer.send(.deepLink(DeepLinkRequest(req: 5, session: "default", step: Step("teleportIsRequired"))))
            let unknownStep = try dealer.receiveError()
            #expect((unknownStep.code, unknownStep.req, unknownStep.type) == (.unknownStep, 5, "DEEPLINK"))

            let padding = String(repeating: "x", count: 100_000)
            try dealer.send(strings: ["FLOWD1", "HEALTH", #"{"req":6,"pad":""# + padding + #""}"#])
            let tooLarge = try dealer.receiveError()
            #expect((tooLarge.code, tooLarge.req, tooLarge.type) == (.messageTooLarge, 6, "HEALTH"))
            for error in [malformed, version, unknownType, unknownSession, unknownStep, tooLarge] {
                #expect(!error.message.isEmpty)
            }

            // Over the hard limit (1 MiB): dropped by libzmq with the connection, before the daemon sees it.
            let huge = String(repeating: "y", count: 2 << 20)
            try dealer.send(strings: ["FLOWD1", "HEALTH", #"{"req":7,"pad":""# + huge + #""}"#])
            let events = try dealer.waitForConnectionEvent(.disconnected)
            #expect(events.last?.kind == .disconnected)
            // A client whose connection dropped opens a new socket (the old one may still hold the oversized
            // message, which libzmq would send again on its reconnection) and says HELLO again.
            let redialed = try RawDealer(endpoint: daemon.control)
            let again = try redialed.hello()
            #expect(again.peer != welcome.peer)
            #expect(again.daemon == welcome.daemon)
            try redialed.send(.health(PlainRequest(req: 8)))
            guard case .ok(let healthReply) = try redialed.receive() else {
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

    // MARK: - Shutdown

    /// SIGTERM: flowd stops cleanly (exit code 0) with clients connected and removes its socket files; then
    /// `flowctl health` finds no daemon and fails with a clear message and exit code 2 once its timeout runs out.
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
