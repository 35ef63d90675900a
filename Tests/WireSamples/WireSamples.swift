public import FlowWire
import FlowCore

/// Sample messages of every type of the protocol (several for the types with variants, every navigation command,
/// payloads of every JSON shape): the round trips of FlowWireTests and the seeds of FlowFuzzTests' fuzzer.
///
/// Their names are chosen so that no mutation of them can pass for the traffic the daemon tests keep valid: no HELLO
/// names a test's own client, no step is one the test application declares, no stepper kind is one it contributes.
///
/// `Sendable`: a namespace without cases or stored instance state.
public enum WireSamples: Sendable {
    public static let messages: [WireMessage] = {
        let movie = Screen.view("wishlist.movie.23452", type: "MovieDetail", data: ["movie": 23452, "title": "Ran"])
        var ui = PresentationModel()
        _ = ui.apply([
            .setRoot(.stack("app")), .push(.tabs("dashboard"), onto: "app"),
            .setTabs("dashboard", [.stack("wishlist"), .split("trending")], selected: 1),
            .push(.view("wishlist.list", type: "WishlistList"), onto: "wishlist"),
            .showMaster("trending", .view("trending.list", type: "TrendingList")), .showDetail("trending", movie),
            .present(.alert("alert", message: "Hi"), over: "app"),
        ])
        let everyPlacement = UISnapshot(
            root: "app",
            screens: [
                .init(screen: .stack("app"), placement: .window, children: ["dashboard"], presented: "alert.1"),
                .init(screen: .tabs("dashboard"), placement: .childOf("app"), children: ["wishlist", "watched"], selected: 1),
                .init(screen: .stack("wishlist"), placement: .childOf("dashboard"), children: ["wishlist.movie.23452"]),
                .init(screen: .stack("watched"), placement: .childOf("dashboard")),
                .init(screen: movie, placement: .childOf("wishlist")),
                .init(screen: .split("split"), placement: .childOf("dashboard"), master: "m", detail: "d"),
                .init(screen: .alert("alert.1", message: "Hi"), placement: .presentedOver("app")),
            ]
        )
        let payload: JSONValue = [
            "null": nil, "bool": true, "int": -42, "double": 2.5, "string": "é \"quoted\" / \n",
            "array": [1, "two", [3]], "object": ["nested": ["deeper": false]],
        ]
        let payloads: [JSONValue] = [
            .null, 23452, -7, 0.5, 1e300, "text", true, [1, "two", [3.25, nil]], ["nested": ["deep": [false]]],
            .string(String(repeating: "é", count: 40)), payload,
        ]
        let commands: [NavigationCommand] = [
            .setRoot(.stack("wishlist")), .push(movie, onto: "wishlist"), .pop(stack: "wishlist"),
            .popToRoot(stack: "wishlist"), .setStack("wishlist", [movie, .view("wishlist.list", type: "List")]),
            .present(movie, over: "app"), .dismiss(presentedOver: "app"),
            .setTabs("dashboard", [.stack("wishlist"), .stack("watched")], selected: 1), .setTabs("tabs", [movie], selected: 0),
            .selectTab("dashboard", index: 2), .showMaster("split", movie), .showDetail("split", movie),
        ]
        var messages: [WireMessage] = [
            .client(.hello(Hello(req: 1, role: .presenter, name: "tui", instance: "6f1c", heartbeatMs: 1000))),
            .client(.hello(Hello(req: 2, role: .stepper, name: "movies", instance: "i-1", heartbeatMs: 100, serves: ["a.b", "c:d"]))),
            .client(.hello(Hello(req: 3, role: .operator, name: "flowctl", instance: "x", heartbeatMs: 60_000))),
            .client(.hello(Hello(req: 4, role: .stepper, name: "movies", instance: "i-2", heartbeatMs: 100, serves: ["a"], adapts: true))),
        ]
        for role in PeerRole.allCases {
            messages.append(
                .client(.hello(
                    Hello(
                        req: 1, role: role, name: "mutant-\(role.rawValue)", instance: "6f1c7a0e-93f4",
                        heartbeatMs: 60_000, serves: role == .stepper ? ["fuzz.kind", "fuzz.other:kind"] : []
                    )
                ))
            )
        }
        messages += [
            .daemon(.welcome(Welcome(req: 1, peer: "p7", daemon: "3d1f", heartbeatMs: 1000))),
            .client(.heartbeat(Heartbeat())),
            .daemon(.heartbeat(Heartbeat(sessions: ["default": 42, "kiosk-3": 0]))),
            .client(.bye),
            .daemon(.ok(OKReply(req: 7))),
            .daemon(.ok(OKReply(req: 8, result: payload))),
            .daemon(.ok(OKReply(req: 9, result: ["seq": 3, "mode": "snapshot"]))),
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
            .client(.step(StepMessage(req: 30, session: "default", attachment: 12, step: Step("ns:name.with-all_chars")))),
            .daemon(.action(
                ActionMessage(
                    session: "default", attachment: 12, presentable: "wishlist.movie.23452",
                    action: Step("pickCast", payload: 4)
                )
            )),
            .daemon(.adapt(
                AdaptMessage(
                    session: "default", request: 3, kind: "movies.wishlist", flow: "WishlistFlow", coordinator: 4,
                    step: Step("aboutIsRequired", payload: payload)
                )
            )),
            .client(.adapted(AdaptedMessage(session: "default", request: 3, answer: .allow))),
            .client(.adapted(AdaptedMessage(session: "default", request: 4, answer: .refuse))),
            .client(.adapted(
                AdaptedMessage(session: "kiosk-3", request: 5, answer: .replace(Step("unauthorized", payload: payload))))),
            .client(.sync(Sync(req: 2, session: "default", lastSeq: 0))),
            .client(.sync(Sync(req: 3, session: "kiosk-3", lastSeq: 9_007_199_254_740_992, create: true))),
            .client(.sync(Sync(req: 3, session: "fuzz-sync", lastSeq: 5, create: true))),
            .daemon(.snapshot(SnapshotMessage(session: "default", seq: 57, ui: UISnapshot(ui)))),
            .daemon(.snapshot(SnapshotMessage(session: "default", seq: 57, ui: everyPlacement))),
            .daemon(.snapshot(SnapshotMessage(session: "empty", seq: 0, ui: UISnapshot(root: nil, screens: [])))),
            .client(.ack(Ack(session: "default", seq: 58))),
            .client(.report(
                Report(
                    req: 9, session: "default",
                    reports: [
                        PresentableReport(presentable: "wishlist.list", state: .hidden),
                        PresentableReport(presentable: "wishlist.movie.23452", state: .visible),
                        PresentableReport(presentable: "alert.1", state: .dismissed),
                    ]
                )
            )),
            .client(.report(Report(req: 10, session: "default", reports: []))),
            .client(.userAction(
                UserAction(req: 10, session: "default", presentable: "home", action: Step("pickCast", payload: payload)))),
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
                    event: "drop", session: "default", flow: nil, coordinator: nil, step: Step("x"), reason: "notVisible",
                    text: "dropped step=x reason=notVisible"
                )
            )),
        ]
        for (index, command) in commands.enumerated() {
            messages.append(.daemon(.command(CommandMessage(session: "default", seq: UInt64(58 + index), command: command))))
        }
        for (index, payload) in payloads.enumerated() {
            messages.append(
                .client(.step(
                    StepMessage(
                        req: UInt64(31 + index), session: index % 3 == 0 ? "kiosk-3" : "default", attachment: 12,
                        step: Step(index % 2 == 0 ? "castIsPicked" : "movie.is:picked-2", payload: payload)
                    )
                ))
            )
        }
        return messages
    }()
}
