import FlowClient
import FlowClientTesting
import FlowCore
import FlowWire
import Testing

/// ``OperatorClient``: the requests `flowctl` makes and the event stream, against a fake daemon.
@Suite(.timeLimit(.minutes(1)))
struct OperatorClientTests {
    final class AppFlow: Flow {
        let root = Screen.stack("app")
        func navigate(to step: Step, with navigator: Navigator) -> FlowContributors { .none }
    }

    @Test func treeDecodesTheWireTree() async throws {
        var machine = FlowCoordinatorStateMachine()
        _ = try machine.coordinate(flow: AppFlow(), with: NoneStepper())
        let snapshot = machine.snapshot()
        try await FakeDaemon.with(logger: testLogger) { daemon in
            let report = try await OperatorClient.withConnection(configuration: daemon.configuration()) { client in
                async let tree = client.tree(session: "default")
                let (peer, _) = try await daemon.acceptHello()
                let (_, request) = try await daemon.expect("TREE", from: peer) { message -> SessionRequest? in
                    if case .tree(let body) = message { body } else { nil }
                }
                let json = try JSONValue(encoding: WireTree(snapshot))
                try await daemon.send(
                    .ok(OKReply(req: request.req, result: ["tree": json, "text": .string(snapshot.description)])),
                    to: peer
                )
                return try await tree
            }
            #expect(report.tree == WireTree(snapshot))
            #expect(report.tree.allNodes.map(\.flow) == ["AppFlow"])
            #expect(report.text == snapshot.description)
            #expect(report.text.hasPrefix("AppFlow flow#1 root=app"))
        }
    }

    @Test func describeDecodesTheApplicationsVocabulary() async throws {
        let declared = ApplicationVocabulary(
            steps: [.init("movieIsPicked", payload: "<int>", summary: "a movie")],
            stepperKinds: [.init("movies.detail", steps: ["castIsPicked"], summary: "a detail")],
            screenTypes: [.init("MovieDetail", actions: [.init("pickCast", payload: "<int>", summary: "a cast")])]
        )
        try await FakeDaemon.with(logger: testLogger) { daemon in
            let vocabulary = try await OperatorClient.withConnection(configuration: daemon.configuration()) { client in
                async let vocabulary = client.describe()
                let (peer, _) = try await daemon.acceptHello()
                let (_, request) = try await daemon.expect("DESCRIBE", from: peer) { message -> DescribeRequest? in
                    if case .describe(let body) = message { body } else { nil }
                }
                try await daemon.send(.ok(OKReply(req: request.req, result: try JSONValue(encoding: declared))), to: peer)
                return try await vocabulary
            }
            #expect(vocabulary == declared)
        }
    }

    @Test func deepLinkSendsTheStepAndReturnsTheNavigations() async throws {
        try await FakeDaemon.with(logger: testLogger) { daemon in
            let navigations = try await OperatorClient.withConnection(configuration: daemon.configuration()) { client in
                async let navigations = client.deepLink(session: "kiosk-3", step: Step("movieIsPicked", payload: 23452))
                let (peer, _) = try await daemon.acceptHello()
                let (_, request) = try await daemon.expect("DEEPLINK", from: peer) { message -> DeepLinkRequest? in
                    if case .deepLink(let body) = message { body } else { nil }
                }
                #expect(request.session == "kiosk-3")
                #expect(request.step == Step("movieIsPicked", payload: 23452))
                try await daemon.send(.ok(OKReply(req: request.req, result: ["navigations": 3])), to: peer)
                return try await navigations
            }
            #expect(navigations == 3)
        }
    }

    @Test func withConnectionSaysByeWhenTheBodyEnds() async throws {
        try await FakeDaemon.with(logger: testLogger) { daemon in
            let created = try await OperatorClient.withConnection(
                name: "flowctl-1", configuration: daemon.configuration()
            ) { client in
                async let created = client.createSession("kiosk-3")
                let (peer, hello) = try await daemon.acceptHello()
                #expect(hello.name == "flowctl-1")
                let (_, request) = try await daemon.expect("CREATE_SESSION", from: peer) { message -> SessionRequest? in
                    if case .createSession(let body) = message { body } else { nil }
                }
                try await daemon.send(.ok(OKReply(req: request.req, result: ["created": false])), to: peer)
                return try await created
            }
            #expect(!created)
            _ = try await daemon.expect("BYE") { $0.isBye ? true : nil }
        }
    }

    @Test func watchYieldsTheEventsOfItsSessionOnly() async throws {
        try await FakeDaemon.with(logger: testLogger) { daemon in
            let client = OperatorClient(configuration: daemon.configuration())
            let events = client.watch(session: "default")
            #expect(events.topic == "nav/default")
            func event(_ session: String, _ kind: String, _ step: String) -> EventMessage {
                EventMessage(
                    event: kind, session: session, flow: "AppFlow", coordinator: 1, step: Step(step),
                    text: "\(kind) navigate flow=AppFlow step=\(step)"
                )
            }
            let received = try await withThrowingTaskGroup(of: [EventMessage].self) { group in
                group.addTask {
                    try await withDeadline("two events") {
                        var received: [EventMessage] = []
                        for try await event in events {
                            received.append(event)
                            if received.count == 2 { break }
                        }
                        return received
                    }
                }
                try await daemon.awaitSubscription(to: "nav/default")
                try await daemon.publish(event("default-2", "did", "elsewhere"))
                try await daemon.publish(event("default", "will", "dashboardIsRequired"))
                try await daemon.publish(event("default", "did", "dashboardIsRequired"))
                return try await group.next() ?? []
            }
            #expect(received.map(\.session) == ["default", "default"])
            #expect(received.map(\.event) == ["will", "did"])
            #expect(received.last?.text == "did navigate flow=AppFlow step=dashboardIsRequired")
        }
    }
}
