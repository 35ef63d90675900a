import FlowCore
import FlowWire
import Foundation
import Testing

/// One message of every type (several for the types with variants), with payloads of every JSON shape.
let roundTripMessages: [WireMessage] = {
    let movie = Screen.view("wishlist.movie.23452", type: "MovieDetail", data: ["movie": 23452, "title": "Brazil"])
    var ui = PresentationModel()
    _ = ui.apply([
        .setRoot(.stack("app")), .push(.tabs("dashboard"), onto: "app"),
        .setTabs("dashboard", [.stack("wishlist"), .split("trending")], selected: 1),
        .push(.view("wishlist.list", type: "WishlistList"), onto: "wishlist"),
        .showMaster("trending", .view("trending.list", type: "TrendingList")), .showDetail("trending", movie),
        .present(.alert("alert", message: "Hi"), over: "app"),
    ])
    let payload: JSONValue = [
        "null": nil, "bool": true, "int": -42, "double": 2.5, "string": "é \"quoted\" / \n",
        "array": [1, "two", [3]], "object": ["nested": ["deeper": false]],
    ]
    return [
        .client(.hello(Hello(req: 1, role: .presenter, name: "tui", instance: "6f1c", heartbeatMs: 1000))),
        .client(.hello(Hello(req: 2, role: .stepper, name: "movies", instance: "i-1", heartbeatMs: 100, serves: ["a.b", "c:d"]))),
        .client(.hello(Hello(req: 3, role: .operator, name: "flowctl", instance: "x", heartbeatMs: 60_000))),
        .client(.hello(Hello(req: 4, role: .stepper, name: "movies", instance: "i-2", heartbeatMs: 100, serves: ["a"], adapts: true))),
        .daemon(.welcome(Welcome(req: 1, peer: "p7", daemon: "3d1f", heartbeatMs: 1000))),
        .client(.heartbeat(Heartbeat())),
        .daemon(.heartbeat(Heartbeat(sessions: ["default": 42, "kiosk-3": 0]))),
        .client(.bye),
        .daemon(.ok(OKReply(req: 7))),
        .daemon(.ok(OKReply(req: 8, result: payload))),
        .daemon(.error(ErrorReply(req: 7, code: .unknownSession, message: "no session 'kiosk-3'", type: "STEP"))),
        .daemon(.error(ErrorReply(req: nil, code: .malformedFrame, message: "expected 3 frames, got 2", type: nil))),
        .daemon(.attach(
            Attach(
                session: "default", attachment: 12, kind: "movies.detail", presentable: "wishlist.movie.23452",
                role: "contributor", context: payload
            )
        )),
        .daemon(.attach(Attach(session: "s", attachment: 1, kind: "k", presentable: "p", role: "flow", context: nil))),
        .daemon(.attach(
            Attach(session: "s", attachment: 2, kind: "k", presentable: "p", role: "flow", context: nil, resumed: true))),
        .daemon(.detach(Detach(session: "default", attachment: 12, reason: "flowEnded"))),
        .client(.step(StepMessage(req: 31, session: "default", attachment: 12, step: Step("castIsPicked", payload: payload)))),
        .client(.step(StepMessage(req: 32, session: "default", attachment: 12, step: Step("ns:name.with-all_chars")))),
        .daemon(.action(
            ActionMessage(session: "default", attachment: 12, presentable: "p", action: Step("pickCast", payload: 4)))),
        .daemon(.adapt(
            AdaptMessage(
                session: "default", request: 3, kind: "movies.wishlist", flow: "wishlist", coordinator: 4,
                step: Step("aboutIsRequired", payload: payload)
            )
        )),
        .client(.adapted(AdaptedMessage(session: "default", request: 3, answer: .allow))),
        .client(.adapted(AdaptedMessage(session: "default", request: 4, answer: .refuse))),
        .client(.adapted(AdaptedMessage(session: "default", request: 5, answer: .replace(Step("unauthorized", payload: payload))))),
        .client(.sync(Sync(req: 2, session: "default", lastSeq: 0))),
        .client(.sync(Sync(req: 3, session: "kiosk-3", lastSeq: 9_007_199_254_740_992, create: true))),
        .daemon(.snapshot(SnapshotMessage(session: "default", seq: 57, ui: UISnapshot(ui)))),
        .daemon(.snapshot(SnapshotMessage(session: "default", seq: 0, ui: UISnapshot(root: nil, screens: [])))),
        .daemon(.command(CommandMessage(session: "default", seq: 58, command: .push(movie, onto: "wishlist")))),
        .daemon(.command(CommandMessage(session: "default", seq: 59, command: .setTabs("tabs", [movie], selected: 0)))),
        .client(.ack(Ack(session: "default", seq: 58))),
        .client(.report(
            Report(
                req: 9, session: "default",
                reports: [
                    PresentableReport(presentable: "a", state: .visible),
                    PresentableReport(presentable: "b", state: .hidden),
                    PresentableReport(presentable: "c", state: .dismissed),
                ]
            )
        )),
        .client(.report(Report(req: 10, session: "default", reports: []))),
        .client(.userAction(
            UserAction(req: 10, session: "default", presentable: "p", action: Step("pickCast", payload: payload)))),
        .client(.sessions(SessionsRequest(req: 1))),
        .client(.tree(SessionRequest(req: 2, session: "default"))),
        .client(.deepLink(DeepLinkRequest(req: 3, session: "default", step: Step("movieIsPicked", payload: 23452)))),
        .client(.createSession(SessionRequest(req: 4, session: "kiosk-3"))),
        .client(.endSession(SessionRequest(req: 7, session: "kiosk-3"))),
        .client(.health(PlainRequest(req: 5))),
        .client(.describe(DescribeRequest(req: 6))),
        .client(.describe(DescribeRequest(req: 9, session: "kiosk-3"))),
        .daemon(.event(
            EventMessage(
                event: "did", session: "default", flow: "WishlistFlow", coordinator: 4,
                step: Step("movieIsPicked", payload: 23452),
                text: "did navigate flow=WishlistFlow step=movieIsPicked(23452)"
            )
        )),
        .daemon(.event(
            EventMessage(
                event: "drop", session: "default", flow: nil, coordinator: nil, step: Step("x"), reason: "noRootFlow",
                text: "dropped step=x reason=noRootFlow"
            )
        )),
    ]
}()

/// Every navigation command, one per op.
let everyCommand: [NavigationCommand] = [
    .setRoot(.stack("app")),
    .push(.view("movie", type: "MovieDetail", data: ["movie": 1]), onto: "stack"),
    .pop(stack: "stack"),
    .popToRoot(stack: "stack"),
    .setStack("stack", [.view("a", type: "A"), .view("b", type: "B")]),
    .present(.alert("alert", message: "Hi"), over: "app"),
    .dismiss(presentedOver: "app"),
    .setTabs("tabs", [.stack("one"), .stack("two")], selected: 1),
    .selectTab("tabs", index: 0),
    .showMaster("split", .view("master", type: "List")),
    .showDetail("split", .view("detail", type: "Detail", data: "text")),
]

struct RoundTripTests {
    @Test(arguments: roundTripMessages)
    func encodeThenDecodeGivesTheSameMessage(_ message: WireMessage) throws {
        let codec = WireCodec()
        let frames = codec.encode(message)
        #expect(frames.count == 3)
        #expect(frames[0] == Array("FLOWD1".utf8))
        #expect(frames[1] == Array(message.type.rawValue.utf8))
        #expect(try codec.decode(frames, from: message.sender) == message)
    }

    @Test(arguments: roundTripMessages)
    func theBodyIsOneJSONObject(_ message: WireMessage) throws {
        let body = WireCodec().encodeBody(message)
        guard case .object = try jsonValue(body) else {
            Issue.record("not a JSON object: \(String(decoding: body, as: UTF8.self))")
            return
        }
    }

    @Test(arguments: everyCommand)
    func everyCommandRoundTripsInACommandMessage(_ command: NavigationCommand) throws {
        let message = WireMessage.daemon(.command(CommandMessage(session: "default", seq: 1, command: command)))
        #expect(try WireCodec().decode(WireCodec().encode(message), from: .daemon) == message)
    }

    @Test func everyMessageTypeIsRoundTripped() {
        let tested = Set(roundTripMessages.map(\.type))
        #expect(tested == Set(MessageType.allCases))
    }

    @Test func theRequestNumberIsTheBodysReq() {
        for message in roundTripMessages {
            let body = try? jsonValue(WireCodec().encodeBody(message))
            let req: UInt64? = {
                guard case .object(let members)? = body, case .int(let value)? = members["req"] else { return nil }
                return UInt64(value)
            }()
            if message.type == .error {
                continue  // an ERROR's req is the failing request's, and may be null
            }
            #expect(message.req == req, "\(message.type)")
        }
    }

    @Test(
        arguments: roundTripMessages.compactMap { message -> EventMessage? in
            if case .daemon(.event(let event)) = message { return event }
            return nil
        })
    func anEventTravelsInFourFramesUnderItsSessionsTopic(_ event: EventMessage) throws {
        let codec = WireCodec()
        let frames = codec.encodeEvent(event)
        #expect(frames.count == 4)
        #expect(frames[0] == Array("nav/default".utf8))
        #expect(Array(frames.dropFirst()) == codec.encode(DaemonMessage.event(event)))
        #expect(try codec.decodeEvent(frames) == event)
    }

    @Test func anEventWithoutItsTopicIsAMalformedFrame() {
        let event = EventMessage(event: "will", session: "s", flow: "F", coordinator: 1, step: Step("a"), text: "t")
        let codec = WireCodec()
        #expect(throws: WireError(.malformedFrame, "")) { try codec.decodeEvent(codec.encode(DaemonMessage.event(event))) }
        #expect(throws: WireError(.unknownType, "")) {
            try codec.decodeEvent([Array("nav/s".utf8)] + codec.encode(.bye))
        }
    }
}
