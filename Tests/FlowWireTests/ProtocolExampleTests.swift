import FlowCore
import FlowWire
import Foundation
import Testing

/// A message body as `docs/PROTOCOL.md` shows it, copied verbatim, and the message it stands for.
struct DocExample: Sendable, CustomTestStringConvertible {
    /// Where the example is (for the test's name).
    let place: String
    let type: MessageType
    /// The JSON, exactly as in the document.
    let json: String
    /// What it decodes to.
    let expected: WireMessage

    var testDescription: String { "\(place) \(type.rawValue)" }
}

/// Every JSON example of `docs/PROTOCOL.md` that is a whole message body, verbatim.
///
/// ``ProtocolExampleTests/everyJSONBlockOfTheDocumentIsTested()`` fails when the document gains or changes an
/// example that is not here, so the document and the codec cannot drift apart.
let documentExamples: [DocExample] = [
    // §3 Handshake, heartbeats and liveness
    DocExample(
        place: "§3", type: .hello,
        json: #"""
            {"role": "presenter", "name": "tui-presenter", "instance": "6f1c7a0e-93f4-4c6b-8a55-0c2f3b0d8e11",
             "heartbeat_ms": 1000, "serves": [], "req": 1}
            """#,
        expected: .client(.hello(
            Hello(
                req: 1, role: .presenter, name: "tui-presenter", instance: "6f1c7a0e-93f4-4c6b-8a55-0c2f3b0d8e11",
                heartbeatMs: 1000, serves: []
            )
        ))
    ),
    DocExample(
        place: "§3", type: .welcome,
        json: #"{"req": 1, "peer": "p7", "daemon": "3d1f…", "heartbeat_ms": 1000, "protocol": 1}"#,
        expected: .daemon(.welcome(Welcome(req: 1, peer: "p7", daemon: "3d1f…", heartbeatMs: 1000, protocol: 1)))
    ),
    DocExample(
        place: "§3", type: .heartbeat,
        json: #"{"sessions": {"default": 42}}"#,
        expected: .daemon(.heartbeat(Heartbeat(sessions: ["default": 42])))
    ),
    DocExample(
        place: "§3", type: .error,
        json: #"{"req": 7, "code": "unknownSession", "message": "no session 'kiosk-3'", "type": "STEP"}"#,
        expected: .daemon(.error(ErrorReply(req: 7, code: .unknownSession, message: "no session 'kiosk-3'", type: "STEP")))
    ),
    // §5 Steppers
    DocExample(
        place: "§5.1", type: .attach,
        json: #"""
            {"session": "default", "attachment": 12, "kind": "movies.detail", "presentable": "wishlist.movie.23452",
             "role": "contributor", "context": {"movie": 23452}, "resumed": false}
            """#,
        expected: .daemon(.attach(
            Attach(
                session: "default", attachment: 12, kind: "movies.detail", presentable: "wishlist.movie.23452",
                role: "contributor", context: ["movie": 23452]
            )
        ))
    ),
    DocExample(
        place: "§5.2", type: .detach,
        json: #"{"session": "default", "attachment": 12, "reason": "presentableDismissed"}"#,
        expected: .daemon(.detach(Detach(session: "default", attachment: 12, reason: "presentableDismissed")))
    ),
    DocExample(
        place: "§5.3", type: .step,
        json: #"{"req": 31, "session": "default", "attachment": 12, "step": {"name": "castIsPicked", "payload": 4}}"#,
        expected: .client(.step(
            StepMessage(req: 31, session: "default", attachment: 12, step: Step("castIsPicked", payload: 4))))
    ),
    DocExample(
        place: "§5.4", type: .action,
        json: #"""
            {"session": "default", "attachment": 12, "presentable": "wishlist.movie.23452",
             "action": {"name": "pickCast", "payload": 4}}
            """#,
        expected: .daemon(.action(
            ActionMessage(
                session: "default", attachment: 12, presentable: "wishlist.movie.23452",
                action: Step("pickCast", payload: 4)
            )
        ))
    ),
    DocExample(
        place: "§5.6", type: .adapt,
        json: #"""
            {"session": "default", "request": 3, "kind": "movies.wishlist", "flow": "wishlist", "coordinator": 4,
             "step": {"name": "aboutIsRequired", "payload": null}}
            """#,
        expected: .daemon(.adapt(
            AdaptMessage(
                session: "default", request: 3, kind: "movies.wishlist", flow: "wishlist", coordinator: 4,
                step: Step("aboutIsRequired")
            )
        ))
    ),
    DocExample(
        place: "§5.6", type: .adapted,
        json: #"{"session": "default", "request": 3, "answer": "replace", "step": {"name": "unauthorized", "payload": null}}"#,
        expected: .client(.adapted(AdaptedMessage(session: "default", request: 3, answer: .replace(Step("unauthorized")))))
    ),
    // §6 Presenters
    DocExample(
        place: "§6.1", type: .sync,
        json: #"{"req": 2, "session": "default", "last_seq": 0, "create": false}"#,
        expected: .client(.sync(Sync(req: 2, session: "default", lastSeq: 0, create: false)))
    ),
    DocExample(
        place: "§6.2", type: .snapshot,
        json: #"""
            {"session": "default", "seq": 57, "ui": {"root": "app", "screens": [
              {"screen": {"id": "app", "kind": "stack", "type": "stack", "data": null}, "placement": "window",
               "children": ["dashboard"], "selected": 0, "master": null, "detail": null, "presented": null},
              {"screen": {"id": "dashboard", "kind": "tabs", "type": "tabs", "data": null},
               "placement": {"child_of": "app"}, "children": ["wishlist", "watched", "trending"], "selected": 0,
               "master": null, "detail": null, "presented": null}
            ]}}
            """#,
        expected: .daemon(.snapshot(
            SnapshotMessage(
                session: "default", seq: 57,
                ui: UISnapshot(
                    root: "app",
                    screens: [
                        UISnapshot.Entry(
                            screen: Screen(id: "app", kind: .stack, type: "stack", data: .null), placement: .window,
                            children: ["dashboard"], selected: 0
                        ),
                        UISnapshot.Entry(
                            screen: Screen(id: "dashboard", kind: .tabs, type: "tabs", data: .null),
                            placement: .childOf("app"), children: ["wishlist", "watched", "trending"], selected: 0
                        ),
                    ]
                )
            )
        ))
    ),
    DocExample(
        place: "§6.3", type: .command,
        json: #"""
            {"session": "default", "seq": 58, "command": {"op": "push", "screen": {"id": "wishlist.movie.23452",
             "kind": "view", "type": "MovieDetail", "data": {"movie": 23452}}, "target": "wishlist"}}
            """#,
        expected: .daemon(.command(
            CommandMessage(
                session: "default", seq: 58,
                command: .push(
                    .view("wishlist.movie.23452", type: "MovieDetail", data: ["movie": 23452]), onto: "wishlist")
            )
        ))
    ),
    DocExample(
        place: "§6.3", type: .ack,
        json: #"{"session": "default", "seq": 58}"#,
        expected: .client(.ack(Ack(session: "default", seq: 58)))
    ),
    DocExample(
        place: "§6.5", type: .report,
        json: #"""
            {"req": 9, "session": "default", "reports": [
              {"presentable": "wishlist.list", "state": "hidden"},
              {"presentable": "wishlist.movie.23452", "state": "visible"}]}
            """#,
        expected: .client(.report(
            Report(
                req: 9, session: "default",
                reports: [
                    PresentableReport(presentable: "wishlist.list", state: .hidden),
                    PresentableReport(presentable: "wishlist.movie.23452", state: .visible),
                ]
            )
        ))
    ),
    DocExample(
        place: "§6.6", type: .userAction,
        json: #"""
            {"req": 10, "session": "default", "presentable": "wishlist.movie.23452",
             "action": {"name": "pickCast", "payload": 4}}
            """#,
        expected: .client(.userAction(
            UserAction(
                req: 10, session: "default", presentable: "wishlist.movie.23452", action: Step("pickCast", payload: 4))
        ))
    ),
    // §7 Operators (the request bodies of the table)
    DocExample(place: "§7", type: .sessions, json: #"{"req": 1}"#, expected: .client(.sessions(SessionsRequest(req: 1)))),
    DocExample(
        place: "§7", type: .tree, json: #"{"req": 2, "session": "default"}"#,
        expected: .client(.tree(SessionRequest(req: 2, session: "default")))
    ),
    DocExample(
        place: "§7", type: .deepLink,
        json: #"{"req": 3, "session": "default", "step": {"name": "movieIsPicked", "payload": 23452}}"#,
        expected: .client(.deepLink(DeepLinkRequest(req: 3, session: "default", step: Step("movieIsPicked", payload: 23452))))
    ),
    DocExample(
        place: "§7", type: .createSession, json: #"{"req": 4, "session": "kiosk-3"}"#,
        expected: .client(.createSession(SessionRequest(req: 4, session: "kiosk-3")))
    ),
    DocExample(
        place: "§7", type: .endSession, json: #"{"req": 7, "session": "kiosk-3"}"#,
        expected: .client(.endSession(SessionRequest(req: 7, session: "kiosk-3")))
    ),
    DocExample(place: "§7", type: .health, json: #"{"req": 5}"#, expected: .client(.health(PlainRequest(req: 5)))),
    DocExample(
        place: "§7.3", type: .sessions, json: #"{"req": 8, "after": "kiosk-0499", "limit": 2, "prefix": "kiosk-"}"#,
        expected: .client(.sessions(SessionsRequest(req: 8, after: "kiosk-0499", limit: 2, prefix: "kiosk-")))
    ),
    DocExample(place: "§7", type: .describe, json: #"{"req": 6}"#, expected: .client(.describe(DescribeRequest(req: 6)))),
    DocExample(
        place: "§7.2", type: .describe, json: #"{"req": 9, "session": "kiosk-3"}"#,
        expected: .client(.describe(DescribeRequest(req: 9, session: "kiosk-3")))
    ),
    // §9 Events
    DocExample(
        place: "§9", type: .event,
        json: #"""
            {"session": "default", "event": "did", "flow": "WishlistFlow", "coordinator": 4,
             "step": {"name": "movieIsPicked", "payload": 23452}, "text": "did navigate flow=WishlistFlow step=movieIsPicked(23452)"}
            """#,
        expected: .daemon(.event(
            EventMessage(
                event: "did", session: "default", flow: "WishlistFlow", coordinator: 4,
                step: Step("movieIsPicked", payload: 23452),
                text: "did navigate flow=WishlistFlow step=movieIsPicked(23452)"
            )
        ))
    ),
    // §10 A whole exchange (the lines whose bodies are complete)
    DocExample(
        place: "§10", type: .hello,
        json: #"{"role":"presenter","name":"tui","instance":"…","heartbeat_ms":1000,"req":1}"#,
        expected: .client(.hello(Hello(req: 1, role: .presenter, name: "tui", instance: "…", heartbeatMs: 1000)))
    ),
    DocExample(
        place: "§10", type: .welcome,
        json: #"{"req":1,"peer":"p1","daemon":"…","heartbeat_ms":1000,"protocol":1}"#,
        expected: .daemon(.welcome(Welcome(req: 1, peer: "p1", daemon: "…", heartbeatMs: 1000, protocol: 1)))
    ),
    DocExample(
        place: "§10", type: .sync,
        json: #"{"req":2,"session":"default","last_seq":0,"create":false}"#,
        expected: .client(.sync(Sync(req: 2, session: "default", lastSeq: 0, create: false)))
    ),
    DocExample(
        place: "§10", type: .ok,
        json: #"{"req":2,"result":{"seq":3,"mode":"snapshot"}}"#,
        expected: .daemon(.ok(OKReply(req: 2, result: ["seq": 3, "mode": "snapshot"])))
    ),
    DocExample(
        place: "§10", type: .ok, json: #"{"req":3,"result":{}}"#, expected: .daemon(.ok(OKReply(req: 3, result: [:])))
    ),
    DocExample(
        place: "§10", type: .ack, json: #"{"session":"default","seq":4}"#,
        expected: .client(.ack(Ack(session: "default", seq: 4)))
    ),
    DocExample(place: "§10", type: .heartbeat, json: "{}", expected: .client(.heartbeat(Heartbeat()))),
    DocExample(
        place: "§10", type: .heartbeat, json: #"{"sessions":{"default":4}}"#,
        expected: .daemon(.heartbeat(Heartbeat(sessions: ["default": 4])))
    ),
]

/// The `OK` bodies of §7.1, §7.2 and §7.3, verbatim: their results are checked against the types that write them
/// (``FlowWire/WireTree``, ``FlowCore/ApplicationVocabulary``, ``FlowWire/SessionList``).
let resultExamples: [(place: String, json: String)] = [
    (
        "§7.1",
        #"""
        {"req": 2, "result": {"tree": {"root": {"coordinator": 1, "flow": "WishlistFlow",
         "root": {"id": "wishlist.stack", "state": "visible"}, "ready": true, "allow_step_when_dismissed": false,
         "steppers": [{"attachment": 7, "stepper": "RemoteStepper(movies.wishlist)", "role": "contributor",
          "presentable": {"id": "wishlist.list", "state": "visible"}, "allow_step_when_not_presented": false,
          "allow_step_when_dismissed": false, "pending_initial_step": null}], "children": []}},
         "text": "WishlistFlow flow#1 root=wishlist.stack [visible] ready\n"}}
        """#
    ),
    (
        "§7.2",
        #"""
        {"req": 6, "result": {"steps": [{"name": "castIsPicked", "payload": "<int: a cast id>", "summary": "a cast's detail is pushed"}],
         "stepper_kinds": [{"kind": "movies.detail", "steps": ["castIsPicked"], "summary": "a movie's detail (movie service)"}],
         "screen_types": [{"type": "MovieDetail", "kind": "view", "data": "<int: the movie id>",
          "actions": [{"name": "pickCast", "payload": "<int: a cast id>", "summary": "a cast of the movie"}]}]}}
        """#
    ),
    (
        "§7.3",
        #"""
        {"req": 8, "result": {"sessions": [{"id": "kiosk-0500", "flows": 3, "presenter": null, "seq": 12, "steppers": 2,
          "screens": 5, "ui_bytes": 315, "attachments": 2, "outbox_commands": 12, "outbox_bytes": 1790},
         {"id": "kiosk-0501", "flows": 1, "presenter": "tui", "seq": 4, "steppers": 2,
          "screens": 2, "ui_bytes": 114, "attachments": 2, "outbox_commands": 4, "outbox_bytes": 560}], "next": "kiosk-0501"}}
        """#
    ),
]

/// Bodies the document shows with elisions (`{...}`, `…`): illustrations, not JSON. They are listed so that the
/// coverage test knows them; if one becomes real JSON, it should move to ``documentExamples``.
let illustrativeExamples: [(type: MessageType, json: String)] = [
    (.ok, #"{"req": 7, "result": {...}}"#),
    (.snapshot, #"{"session":"default","seq":3,"ui":{…}}"#),
    (.report, #"{"req":3,"session":"default","reports":[{"presentable":"app","state":"visible"},…]}"#),
    (.command, #"{"session":"default","seq":4,"command":{"op":"push",…}}"#),
]

struct ProtocolExampleTests {
    @Test(arguments: documentExamples)
    func documentExampleDecodesToItsMessage(_ example: DocExample) throws {
        let message = try WireCodec().decode(frames(example.type.rawValue, example.json), from: example.expected.sender)
        #expect(message == example.expected)
        #expect(message.type == example.type)
    }

    @Test(arguments: documentExamples)
    func documentExampleIsInTheDocumentVerbatim(_ example: DocExample) {
        #expect(ProtocolDocument.text.contains(example.json), "not in docs/PROTOCOL.md: \(example.json)")
    }

    @Test(arguments: documentExamples)
    func documentExampleReencodesToTheSameJSONValue(_ example: DocExample) throws {
        // Encoding what the example decodes to gives back the example (as a JSON value: key order and spacing
        // aside), so the daemon sends what the document shows. The § 10 bodies omit optional fields, and HELLO's
        // `serves` is omitted there: compare those on the fields the example has.
        let encoded = try jsonValue(WireCodec().encodeBody(example.expected))
        let documented = try jsonValue(Array(example.json.utf8))
        guard case .object(var members) = encoded, case .object(let documentedMembers) = documented else {
            Issue.record("not JSON objects: \(encoded) / \(documented)")
            return
        }
        members = members.filter { documentedMembers[$0.key] != nil }
        #expect(JSONValue.object(members) == documented)
    }

    @Test func everyJSONBlockOfTheDocumentIsTested() {
        let blocks = ProtocolDocument.fencedBlocks(language: "json")
        #expect(blocks.count >= 15, "docs/PROTOCOL.md not found or has lost its examples")
        let known = documentExamples.map(\.json) + illustrativeExamples.map(\.json) + resultExamples.map(\.json)
        for block in blocks {
            #expect(known.contains(block), "docs/PROTOCOL.md example with no test: \(block)")
        }
    }

    @Test func everyLineOfTheWholeExchangeIsTested() {
        let lines = ProtocolDocument.section("## 10").filter { $0.hasPrefix("→") || $0.hasPrefix("←") }
        #expect(lines.count == 11)
        let known = documentExamples.filter { $0.place == "§10" }.map { ($0.type, $0.json) } + illustrativeExamples
        for line in lines {
            let parts = line.dropFirst().split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
            guard parts.count == 2, let type = MessageType(rawValue: String(parts[0])) else {
                Issue.record("unreadable line in § 10: \(line)")
                continue
            }
            let body = parts[1].drop { $0 == " " }
            #expect(known.contains { $0.0 == type && $0.1 == body }, "§ 10 line with no test: \(line)")
        }
    }

    @Test func everyOperatorRequestOfTheTableIsTested() {
        let rows = ProtocolDocument.section("## 7").filter { $0.hasPrefix("| `") }
        #expect(rows.count == 7)
        for row in rows {
            let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 2, let type = MessageType(rawValue: String(cells[0].dropFirst().dropLast())) else {
                Issue.record("unreadable row in § 7: \(row)")
                continue
            }
            let body = String(cells[1].dropFirst().dropLast())
            #expect(
                documentExamples.contains { $0.type == type && $0.json == body },
                "§ 7 request with no test: \(row)"
            )
        }
    }

    @Test func theResultExamplesAreWhatTheirTypesWrite() throws {
        for (place, json) in resultExamples {
            #expect(ProtocolDocument.text.contains(json), "\(place) not in docs/PROTOCOL.md verbatim")
            guard case .daemon(.ok(let reply)) = try WireCodec().decode(frames("OK", json), from: .daemon),
                case .object(let result) = reply.result
            else {
                Issue.record("\(place): not an OK with an object result")
                continue
            }
            let written: JSONValue
            if result["sessions"] != nil {
                written = try JSONValue(encoding: try reply.result.decode(SessionList.self))
                #expect(written == reply.result, "\(place)")
            } else if let tree = result["tree"] {
                written = try JSONValue(encoding: try tree.decode(WireTree.self))
                #expect(written == tree, "\(place)")
                #expect(result["text"]?.stringValue?.isEmpty == false, "\(place)")
            } else {
                written = try JSONValue(encoding: try reply.result.decode(ApplicationVocabulary.self))
                #expect(written == reply.result, "\(place)")
            }
        }
    }

    @Test(arguments: illustrativeExamples.map(\.json))
    func illustrativeExamplesAreNotJSON(_ json: String) {
        // They stand for bodies shown elsewhere in full; should one become valid JSON, test it as an example.
        #expect((try? jsonValue(Array(json.utf8))) == nil)
    }

    @Test func theStepAndScreenOfSection2Decode() throws {
        let step = try JSONDecoder().decode(Step.self, from: Data(#"{"name": "movieIsPicked", "payload": 23452}"#.utf8))
        #expect(step == Step("movieIsPicked", payload: 23452))
        // The payload MAY be omitted (then null).
        #expect(try JSONDecoder().decode(Step.self, from: Data(#"{"name": "home"}"#.utf8)) == Step("home"))
        let screen = try JSONDecoder().decode(
            Screen.self,
            from: Data(
                #"{"id": "wishlist.movie.23452", "kind": "view", "type": "MovieDetail", "data": {"movie": 1}}"#.utf8)
        )
        #expect(screen == .view("wishlist.movie.23452", type: "MovieDetail", data: ["movie": 1]))
        // `data` is null when absent.
        let bare = try JSONDecoder().decode(
            Screen.self, from: Data(#"{"id": "a", "kind": "stack", "type": "stack"}"#.utf8))
        #expect(bare == .stack("a"))
    }

    @Test func aReceiverIgnoresFieldsItDoesNotKnow() throws {
        let message = try WireCodec().decode(
            frames(
                "STEP",
                #"{"req": 31, "session": "default", "attachment": 12, "step": {"name": "castIsPicked", "later": 1},"#
                    + #" "priority": "high", "trace": {"id": [1, 2]}}"#
            ),
            from: .client
        )
        #expect(message == .client(.step(StepMessage(req: 31, session: "default", attachment: 12, step: Step("castIsPicked")))))
    }
}
