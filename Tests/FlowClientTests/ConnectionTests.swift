import FlowClient
import FlowClientTesting
import FlowCore
import FlowWire
import Testing

/// The connection core every client shares, seen through ``OperatorClient``: handshake, requests and replies,
/// heartbeats, liveness and reconnection, `notWelcome`, `ERROR` replies, timeouts and `BYE`.
@Suite(.timeLimit(.minutes(1)))
struct ConnectionTests {
    @Test func helloComesFirstAndARequestMadeBeforeWelcomeGoesOutAfterIt() async throws {
        try await FakeDaemon.with(logger: testLogger) { daemon in
            let client = OperatorClient(name: "ops-1", configuration: daemon.configuration())
            try await whileRunning(client.run) {
                async let sessions = client.sessions()
                let (peer, hello) = try await daemon.expect("HELLO") { $0.hello }
                #expect(hello.role == .operator)
                #expect(hello.name == "ops-1")
                #expect(hello.heartbeatMs == 100)
                #expect(hello.serves.isEmpty)
                #expect(!hello.instance.isEmpty)
                try await daemon.send(
                    .welcome(Welcome(req: hello.req, peer: "p1", daemon: "d1", heartbeatMs: 60_000)), to: peer
                )
                let (_, request) = try await daemon.expect("SESSIONS") { message -> SessionsRequest? in
                    if case .sessions(let body) = message { body } else { nil }
                }
                #expect(request.req != hello.req)
                let listed: JSONValue = [
                    "sessions": [["id": "default", "flows": 9, "presenter": "tui", "seq": 57, "steppers": 4]]
                ]
                try await daemon.send(.ok(OKReply(req: request.req, result: listed)), to: peer)
                #expect(
                    try await sessions == [
                        SessionSummary(id: "default", flows: 9, presenter: "tui", seq: 57, steppers: 4)
                    ]
                )
            }
        }
    }

    @Test func heartbeatsFollowTheWelcomeWithAnEmptyBody() async throws {
        try await FakeDaemon.with(logger: testLogger) { daemon in
            let client = OperatorClient(name: "ops-hb", configuration: daemon.configuration())
            try await whileRunning(client.run) {
                let (peer, _) = try await daemon.acceptHello()
                for _ in 0..<3 {
                    let received = try await daemon.receive()
                    #expect(received.peer == peer)
                    guard case .heartbeat(let heartbeat) = received.message else {
                        Issue.record("expected HEARTBEAT, got \(received.message)")
                        return
                    }
                    #expect(heartbeat.sessions.isEmpty)
                }
            }
        }
    }

    @Test func anErrorReplySurfacesAsADaemonErrorWithItsWireCode() async throws {
        try await FakeDaemon.with(logger: testLogger) { daemon in
            let client = OperatorClient(name: "ops-err", configuration: daemon.configuration())
            try await whileRunning(client.run) {
                let (peer, _) = try await daemon.acceptHello()
                async let tree = client.tree(session: "kiosk-3")
                let (_, request) = try await daemon.expect("TREE") { message -> SessionRequest? in
                    if case .tree(let body) = message { body } else { nil }
                }
                #expect(request.session == "kiosk-3")
                try await daemon.send(
                    .error(
                        ErrorReply(
                            req: request.req, code: .unknownSession, message: "no session 'kiosk-3'", type: "TREE")),
                    to: peer
                )
                do {
                    _ = try await tree
                    Issue.record("TREE should have failed")
                } catch let error as DaemonError {
                    #expect(error.code == .unknownSession)
                    #expect(error.message == "no session 'kiosk-3'")
                    #expect(error.type == "TREE")
                    #expect(error.description == "unknownSession: no session 'kiosk-3'")
                }
            }
        }
    }

    @Test func notWelcomeMakesTheClientSayHelloAgainAndSendTheRequestAgain() async throws {
        try await FakeDaemon.with(logger: testLogger) { daemon in
            let client = OperatorClient(name: "ops-nw", configuration: daemon.configuration())
            try await whileRunning(client.run) {
                let (firstPeer, firstHello) = try await daemon.acceptHello(daemon: "d1")
                async let created = client.createSession("kiosk-3")
                let (_, first) = try await daemon.expect("CREATE_SESSION") { message -> SessionRequest? in
                    if case .createSession(let body) = message { body } else { nil }
                }
                // The daemon restarted and forgot the connection.
                try await daemon.send(
                    .error(
                        ErrorReply(
                            req: first.req, code: .notWelcome, message: "say HELLO first", type: "CREATE_SESSION")),
                    to: firstPeer
                )
                let (secondPeer, secondHello) = try await daemon.acceptHello(daemon: "d2")
                #expect(secondHello.name == firstHello.name)
                #expect(secondHello.req != firstHello.req)
                let (_, again) = try await daemon.expect("CREATE_SESSION again", from: secondPeer) {
                    message -> SessionRequest? in
                    if case .createSession(let body) = message { body } else { nil }
                }
                #expect(again.session == "kiosk-3")
                try await daemon.send(.ok(OKReply(req: again.req, result: ["created": true])), to: secondPeer)
                #expect(try await created)
            }
        }
    }

    @Test func aSilentDaemonMakesTheClientReconnectWithANewSocketAndHello() async throws {
        try await FakeDaemon.with(logger: testLogger) { daemon in
            let client = OperatorClient(name: "ops-silent", configuration: daemon.configuration())
            try await whileRunning(client.run) {
                // 3 × 300 ms of silence is enough for the client to give up on this connection.
                let (firstPeer, _) = try await daemon.acceptHello(heartbeatMs: 300, keepingAlive: true)
                async let lostHealth = client.health()
                _ = try await daemon.expect("HEALTH") { message -> PlainRequest? in
                    if case .health(let body) = message { body } else { nil }
                }
                daemon.fallSilent(toward: firstPeer)
                // Say nothing: the next HELLO comes from a new socket (a new routing id).
                let (secondPeer, _) = try await daemon.acceptHello()
                #expect(secondPeer != firstPeer)
                do {
                    _ = try await lostHealth
                    Issue.record("a request sent on the lost connection should fail")
                } catch let error as FlowClientError {
                    #expect(error.code == .connectionLost)
                }
                async let health = client.health()
                let (_, request) = try await daemon.expect("HEALTH", from: secondPeer) { message -> PlainRequest? in
                    if case .health(let body) = message { body } else { nil }
                }
                let result: JSONValue = [
                    "status": "ok", "daemon": "d1", "uptime_s": 12.5, "sessions": 2,
                    "peers": ["stepper": 2, "presenter": 1, "operator": 1], "counters": ["messages_in": 40],
                ]
                try await daemon.send(.ok(OKReply(req: request.req, result: result)), to: secondPeer)
                let report = try await health
                #expect(report.status == "ok")
                #expect(report.uptimeSeconds == 12.5)
                #expect(report.sessions == 2)
                #expect(report.peers == ["stepper": 2, "presenter": 1, "operator": 1])
                #expect(report.counters == ["messages_in": 40])
            }
        }
    }

    @Test func aRequestTimesOutWhenTheDaemonDoesNotAnswer() async throws {
        try await FakeDaemon.with(logger: testLogger) { daemon in
            let client = OperatorClient(
                name: "ops-timeout", configuration: daemon.configuration(requestTimeout: .milliseconds(200)))
            try await whileRunning(client.run) {
                // The daemon never welcomes the client.
                await #expect(throws: FlowClientError(.timedOut, "")) { try await client.sessions() }
            }
        }
    }

    @Test func cancellingRunSaysBye() async throws {
        try await FakeDaemon.with(logger: testLogger) { daemon in
            let client = OperatorClient(name: "ops-bye", configuration: daemon.configuration())
            let peer = try await whileRunning(client.run) {
                let (peer, _) = try await daemon.acceptHello()
                return peer
            }
            _ = try await daemon.expect("BYE", from: peer) { $0.isBye ? true : nil }
            await #expect(throws: FlowClientError(.stopped, "")) { try await client.sessions() }
        }
    }

    @Test func aRefusedHelloEndsRunWithTheDaemonError() async throws {
        try await FakeDaemon.with(logger: testLogger) { daemon in
            let client = OperatorClient(name: "ops-refused", configuration: daemon.configuration())
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    await #expect(throws: DaemonError(code: .invalidName, message: "")) { try await client.run() }
                }
                let (peer, hello) = try await daemon.expect("HELLO") { $0.hello }
                try await daemon.send(
                    .error(ErrorReply(req: hello.req, code: .invalidName, message: "bad name", type: "HELLO")), to: peer
                )
                try await group.waitForAll()
            }
        }
    }

    @Test func anInvalidNameFailsBeforeConnecting() async throws {
        let client = OperatorClient(name: "not a name!")
        await #expect(throws: FlowClientError(.invalidConfiguration, "")) { try await client.run() }
    }
}
