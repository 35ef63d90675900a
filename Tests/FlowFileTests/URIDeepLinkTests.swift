import FlowCore
import FlowDaemon
import FlowFile
import FlowWire
import FlowdTesting
import Testing

/// `DEEPLINK` with a URI on a daemon running a flow file: the chain's steps wait for the flows that handle them to be
/// ready (on the daemon's clock, bounded by `daemon.deep_link_wait_ms`), the leading steps already shown are skipped,
/// and the file's `deepLink: true` is enforced for a step.
struct URIDeepLinkTests {
    /// `main` starts `detail`, whose stepper is a service that has not said anything yet: `detail` is not ready until
    /// its first step (`loaded`, here injected by the operator) is navigated.
    static let app = """
        flowfile: 1
        app: links
        root: {flow: main, stepper: {one: start}}
        steps:
          start: {}
          loaded: {deepLink: true}
          pick: {payload: int, deepLink: true}
          part: {payload: int, deepLink: true}
        stepperKinds:
          svc.detail: {steps: [loaded]}
        flows:
          main:
            root: {id: main, kind: stack}
            navigate:
              start:
                contribute:
                  - flow: detail
                    stepper: {remote: svc.detail}
                use:
                  - when: created
                    commands:
                      - push: detail
          detail:
            root: {id: detail, kind: stack}
            screens:
              list: {id: detail.list}
              item: {id: "detail.item.{payload}"}
              part: {id: "detail.part.{payload}"}
            navigate:
              loaded:
                commands:
                  - push: list
              pick:
                commands:
                  - push: item
              part:
                commands:
                  - push: part
        deepLinks:
          - uri: "links://item/{id:int}"
            steps: [{step: pick, payload: "{id}"}]
          - uri: "links://item/{id:int}/part/{p:int}"
            steps: [{step: pick, payload: "{id}"}, {step: part, payload: "{p}"}]
        """

    let daemon: EmbeddedDaemon
    let flowctl: PeerAddress
    private var lastReq: UInt64 = 1

    init() throws {
        daemon = EmbeddedDaemon(application: FileApplication(try FlowFile.parse(Self.app, file: "links.flows.yaml")))
        flowctl = daemon.newPeerAddress()
        _ = daemon.receive(
            .hello(Hello(req: 1, role: .operator, name: "flowctl", instance: "flowctl", heartbeatMs: 1000)), from: flowctl)
    }

    /// Sends `DEEPLINK`; returns its `req` and what the operator got back at once.
    private mutating func send(_ request: (UInt64) -> DeepLinkRequest) -> (req: UInt64, replies: [DaemonMessage]) {
        lastReq += 1
        let outcome = daemon.receive(.deepLink(request(lastReq)), from: flowctl)
        return (lastReq, outcome.to(flowctl))
    }

    private mutating func open(_ uri: String) -> (req: UInt64, replies: [DaemonMessage]) {
        send { DeepLinkRequest(req: $0, session: "default", uri: uri) }
    }

    private static func result(_ replies: [DaemonMessage], req: UInt64) -> DeepLinkResult? {
        for case .ok(let reply) in replies where reply.req == req {
            return try? reply.result(as: DeepLinkResult.self)
        }
        return nil
    }

    private static func error(_ replies: [DaemonMessage], req: UInt64) -> ErrorReply? {
        for case .error(let reply) in replies where reply.req == req { return reply }
        return nil
    }

    private var screens: [PresentableID] { daemon.ui()?.presentables ?? [] }

    @Test mutating func aLinkBeforeItsFlowIsReadyWaitsAndIsAppliedOnceItIs() throws {
        let early = open("links://item/7")
        #expect(early.replies.isEmpty)  // not dropped, not answered: waiting for `detail`
        #expect(!screens.contains("detail.item.7"))
        _ = daemon.advance(by: .milliseconds(1000))
        let loaded = send { DeepLinkRequest(req: $0, session: "default", step: Step("loaded")) }
        let result = try #require(Self.result(loaded.replies, req: early.req))
        #expect(result.applied == ["pick"])
        #expect(result.skipped == [])
        #expect(result.navigations == 2)  // a DEEPLINK is offered to every flow: `main` navigates too (to nothing)
        #expect(daemon.ui()?.children(of: "detail") == ["detail.list", "detail.item.7"])
    }

    @Test mutating func aLinkWhoseFlowIsNeverReadyIsRefusedAtTheDeadlineNamingTheStepAndWhy() throws {
        let link = open("links://item/7/part/2")
        let before = daemon.advance(by: .milliseconds(2999)).to(flowctl)
        #expect(Self.result(before, req: link.req) == nil && Self.error(before, req: link.req) == nil)
        let replies = daemon.advance(by: .milliseconds(1)).to(flowctl)
        let error = try #require(Self.error(replies, req: link.req))
        #expect(error.code == .deepLinkIncomplete)
        #expect(
            error.message
                == "the deep link 'links://item/7/part/2' (links://item/{id:int}/part/{p:int}) stopped at step 1 of 2, "
                + "'pick': the flow 'detail' that handles it is not ready yet, after 3000 ms (daemon.deep_link_wait_ms)")
        #expect(!screens.contains("detail.item.7"))
    }

    @Test mutating func aLinkRebuildsOnlyWhatIsMissing() throws {
        _ = send { DeepLinkRequest(req: $0, session: "default", step: Step("loaded")) }
        let first = open("links://item/7")
        #expect(Self.result(first.replies, req: first.req)?.applied == ["pick"])
        let again = open("links://item/7/part/2")
        let result = try #require(Self.result(again.replies, req: again.req))
        #expect(result.skipped == ["pick"])
        #expect(result.applied == ["part"])
        #expect(daemon.ui()?.children(of: "detail") == ["detail.list", "detail.item.7", "detail.part.2"])
        let other = open("links://item/8/part/2")
        #expect(Self.result(other.replies, req: other.req)?.applied == ["pick", "part"])
    }

    @Test mutating func anUnknownURIIsRefusedWithThePatterns() throws {
        let link = open("links://nothing/here")
        let error = try #require(Self.error(link.replies, req: link.req))
        #expect(error.code == .unknownDeepLink)
        #expect(
            error.message
                == "no deep link matches 'links://nothing/here'; the file's patterns: 'links://item/{id:int}', "
                + "'links://item/{id:int}/part/{p:int}'")
    }

    @Test mutating func aStepWithAPayloadNotOfItsDeclaredTypeIsRefusedInvalidPayload() throws {
        let wrong = send { DeepLinkRequest(req: $0, session: "default", step: Step("pick", payload: "seven")) }
        let error = try #require(Self.error(wrong.replies, req: wrong.req))
        #expect(error.code == .invalidPayload)
        #expect(error.message == "the step 'pick' takes a payload of type int, not \"seven\"")
        let none = send { DeepLinkRequest(req: $0, session: "default", step: Step("pick")) }
        #expect(try #require(Self.error(none.replies, req: none.req)).code == .invalidPayload)
    }

    @Test mutating func aStepNotMarkedDeepLinkIsRefused() throws {
        let step = send { DeepLinkRequest(req: $0, session: "default", step: Step("start")) }
        let error = try #require(Self.error(step.replies, req: step.req))
        #expect(error.code == .notDeepLinkable)
        #expect(
            error.message
                == "the step 'start' is not one an operator may deep-link; the ones that are: loaded, part, pick "
                + "(a flow file marks them 'deepLink: true')")
    }

    @Test mutating func aLinkWaitingInASessionThatEndsIsRefused() throws {
        let link = open("links://item/7")
        lastReq += 1
        let replies = daemon.receive(.endSession(SessionRequest(req: lastReq, session: "default")), from: flowctl)
            .to(flowctl)
        let error = try #require(Self.error(replies, req: link.req))
        #expect(error.code == .unknownSession)
    }
}
