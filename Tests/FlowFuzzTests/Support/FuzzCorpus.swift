import FlowCore
import FlowWire

/// Valid messages of every type of the protocol, the seeds the fuzzer mutates.
///
/// Their names are chosen so that no mutation of them can pass for the traffic the daemon tests keep valid: no HELLO
/// names a test's own client, no step is one the test application declares, no stepper kind is one it contributes.
enum FuzzCorpus {
    static let messages: [WireMessage] = {
        let screen = Screen.view("wishlist.movie.23452", type: "MovieDetail", data: ["movie": 23452, "title": "Ran"])
        let stack = Screen.stack("wishlist")
        let tabs = Screen.tabs("dashboard")
        let payloads: [JSONValue] = [
            .null, 23452, -7, 0.5, 1e300, "text", true, [1, "two", [3.25, nil]], ["nested": ["deep": [false]]],
            .string(String(repeating: "é", count: 40)),
        ]
        let commands: [NavigationCommand] = [
            .setRoot(stack), .push(screen, onto: "wishlist"), .pop(stack: "wishlist"), .popToRoot(stack: "wishlist"),
            .setStack("wishlist", [screen, .view("wishlist.list", type: "List")]), .present(screen, over: "app"),
            .dismiss(presentedOver: "app"), .setTabs("dashboard", [stack, .stack("watched")], selected: 1),
            .selectTab("dashboard", index: 2), .showMaster("split", screen), .showDetail("split", screen),
        ]
        let snapshot = UISnapshot(
            root: "app",
            screens: [
                .init(screen: .stack("app"), placement: .window, children: ["dashboard"], presented: "alert.1"),
                .init(screen: tabs, placement: .childOf("app"), children: ["wishlist", "watched"], selected: 1),
                .init(screen: stack, placement: .childOf("dashboard"), children: ["wishlist.movie.23452"]),
                .init(screen: .stack("watched"), placement: .childOf("dashboard")),
                .init(screen: screen, placement: .childOf("wishlist")),
                .init(screen: .split("split"), placement: .childOf("dashboard"), master: "m", detail: "d"),
                .init(screen: .alert("alert.1", message: "Hi"), placement: .presentedOver("app")),
            ]
        )
        var messages: [WireMessage] = []
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
            .daemon(.ok(OKReply(req: 7, result: ["seq": 3, "mode": "snapshot"]))),
            .daemon(.ok(OKReply(req: 8))),
            .daemon(.error(ErrorReply(req: 7, code: .unknownSession, message: "no session 'kiosk-3'", type: "STEP"))),
            .daemon(.error(ErrorReply(req: nil, code: .malformedFrame, message: "expected 3 frames", type: nil))),
            .daemon(.attach(
                Attach(
                    session: "default", attachment: 12, kind: "movies.detail", presentable: "wishlist.movie.23452",
                    role: "contributor", context: ["movie": 23452]
                )
            )),
            .daemon(.detach(Detach(session: "default", attachment: 12, reason: "presentableDismissed"))),
            .daemon(.action(
                ActionMessage(
                    session: "default", attachment: 12, presentable: "wishlist.movie.23452",
                    action: Step("pickCast", payload: 4)
                )
            )),
            .daemon(.adapt(
                AdaptMessage(
                    session: "default", request: 3, kind: "movies.wishlist", flow: "WishlistFlow", coordinator: 4,
                    step: Step("aboutIsRequired")
                )
            )),
            .client(.adapted(AdaptedMessage(session: "default", request: 3, answer: .allow))),
            .client(.adapted(AdaptedMessage(session: "default", request: 4, answer: .refuse))),
            .client(.adapted(
                AdaptedMessage(
                    session: "kiosk-3", request: 5, answer: .replace(Step("unauthorized", payload: ["why": "token"]))
                )
            )),
            .client(.sync(Sync(req: 2, session: "default", lastSeq: 0))),
            .client(.sync(Sync(req: 3, session: "fuzz-sync", lastSeq: 5, create: true))),
            .daemon(.snapshot(SnapshotMessage(session: "default", seq: 57, ui: snapshot))),
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
            .client(.userAction(
                UserAction(req: 10, session: "default", presentable: "home", action: Step("pickCast", payload: 4))
            )),
            .client(.sessions(SessionsRequest(req: 1))),
            .client(.tree(SessionRequest(req: 2, session: "default"))),
            .client(.deepLink(DeepLinkRequest(req: 3, session: "default", step: Step("movieIsPicked", payload: 23452)))),
            .client(.createSession(SessionRequest(req: 4, session: "kiosk-3"))),
            .client(.endSession(SessionRequest(req: 7, session: "kiosk-3"))),
            .client(.health(PlainRequest(req: 5))),
            .daemon(.event(
                EventMessage(
                    event: "did", session: "default", flow: "WishlistFlow", coordinator: 4,
                    step: Step("movieIsPicked", payload: 23452), text: "did navigate flow=WishlistFlow"
                )
            )),
            .daemon(.event(
                EventMessage(
                    event: "drop", session: "default", flow: nil, coordinator: nil, step: Step("x"),
                    reason: "notVisible", text: "dropped"
                )
            )),
        ]
        for command in commands {
            messages.append(.daemon(.command(CommandMessage(session: "default", seq: 58, command: command))))
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

    /// Each message of ``messages`` as its frames and its body's tree.
    static let seeds: [Seed] = {
        let codec = WireCodec()
        return messages.map { message in
            let frames = codec.encode(message)
            let value = (try? jsonValue(frames[2])) ?? .null
            return Seed(message: message, frames: frames, body: FuzzJSON(value))
        }
    }()

    struct Seed {
        let message: WireMessage
        let frames: [[UInt8]]
        let body: FuzzJSON
    }
}
