import FlowCore
import FlowWire
import Foundation
import Testing

/// The exact bodies the codec writes where `docs/PROTOCOL.md` says a field is `null` rather than absent, and the
/// defaults it reads for optional fields.
struct BodyShapeTests {
    private func body(_ message: WireMessage) -> String {
        String(decoding: WireCodec().encodeBody(message), as: UTF8.self)
    }

    @Test func anErrorWithNoReadableReqCarriesReqNull() {
        // §3: "When the failing message had no readable `req`, `req` is `null`."
        let error = ErrorReply(WireError(.malformedFrame, "expected 3 frames, got 2"))
        #expect(
            body(.daemon(.error(error)))
                == #"{"code":"malformedFrame","message":"expected 3 frames, got 2","req":null,"type":null}"#
        )
    }

    @Test func anErrorCarriesTheFailingRequestsReqAndType() {
        let error = ErrorReply(WireError(.unknownSession, "no session 'kiosk-3'", req: 7, type: .step))
        #expect(
            body(.daemon(.error(error))) == #"{"code":"unknownSession","message":"no session 'kiosk-3'","req":7,"type":"STEP"}"#)
    }

    @Test func aDropEventWithAnUnknownFlowCarriesFlowAndCoordinatorNull() {
        // §9: `drop` has a `reason` field and `flow`/`coordinator` `null` when unknown.
        let event = EventMessage(
            event: "drop", session: "default", flow: nil, coordinator: nil, step: Step("x"), reason: "noRootFlow",
            text: "dropped step=x reason=noRootFlow"
        )
        #expect(
            body(.daemon(.event(event)))
                == #"{"coordinator":null,"event":"drop","flow":null,"reason":"noRootFlow","session":"default","#
                + #""step":{"name":"x","payload":null},"text":"dropped step=x reason=noRootFlow"}"#
        )
    }

    @Test func aNavigationEventHasNoReason() {
        let event = EventMessage(
            event: "will", session: "default", flow: "AppFlow", coordinator: 1, step: Step("home"),
            text: "will navigate flow=AppFlow step=home"
        )
        #expect(
            body(.daemon(.event(event)))
                == #"{"coordinator":1,"event":"will","flow":"AppFlow","session":"default","#
                + #""step":{"name":"home","payload":null},"text":"will navigate flow=AppFlow step=home"}"#
        )
    }

    @Test func aSnapshotEntryWritesEveryContainerFieldEvenWhenNull() {
        let ui = UISnapshot(
            root: "app", screens: [UISnapshot.Entry(screen: .view("app", type: "Home"), placement: .window)])
        #expect(
            body(.daemon(.snapshot(SnapshotMessage(session: "default", seq: 1, ui: ui))))
                == #"{"seq":1,"session":"default","ui":{"root":"app","screens":[{"children":[],"detail":null,"#
                + #""master":null,"placement":"window","presented":null,"screen":{"data":null,"id":"app","kind":"view","#
                + #""type":"Home"},"selected":0}]}}"#
        )
    }

    @Test func anEmptyWindowSnapshotHasRootNull() {
        let ui = UISnapshot(root: nil, screens: [])
        #expect(
            body(.daemon(.snapshot(SnapshotMessage(session: "s", seq: 0, ui: ui))))
                == #"{"seq":0,"session":"s","ui":{"root":null,"screens":[]}}"#)
    }

    @Test func placementsAreWindowChildOfOrPresentedOver() throws {
        let placements: [(UISnapshot.Placement, String)] = [
            (.window, #""window""#), (.childOf("app"), #"{"child_of":"app"}"#),
            (.presentedOver("app"), #"{"presented_over":"app"}"#),
        ]
        let encoder = JSONEncoder()
        for (placement, json) in placements {
            #expect(String(decoding: try encoder.encode(placement), as: UTF8.self) == json)
            #expect(try JSONDecoder().decode(UISnapshot.Placement.self, from: Data(json.utf8)) == placement)
        }
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(UISnapshot.Placement.self, from: Data(#""door""#.utf8))
        }
    }

    @Test func aByeBodyIsAnEmptyObject() {
        #expect(body(.client(.bye)) == "{}")
    }

    @Test func aStepWithoutPayloadWritesPayloadNull() {
        let message = WireMessage.client(.step(StepMessage(req: 1, session: "default", attachment: 2, step: Step("go"))))
        #expect(body(message) == #"{"attachment":2,"req":1,"session":"default","step":{"name":"go","payload":null}}"#)
    }

    @Test func optionalFieldsTakeTheirDocumentedDefaults() throws {
        let codec = WireCodec()
        // HELLO: `serves` only for steppers (`instance` is required: BadInputTests).
        #expect(
            try codec.decode(
                frames("HELLO", #"{"req": 1, "role": "operator", "name": "flowctl", "instance": "i", "heartbeat_ms": 500}"#), from: .client)
                == .client(.hello(Hello(req: 1, role: .operator, name: "flowctl", instance: "i", heartbeatMs: 500)))
        )
        // ATTACH: `resumed` false.
        #expect(
            try codec.decode(
                frames(
                    "ATTACH",
                    #"{"session": "s", "attachment": 1, "kind": "k", "presentable": "p", "role": "flow", "context": null}"#
                ),
                from: .daemon
            )
                == .daemon(.attach(Attach(session: "s", attachment: 1, kind: "k", presentable: "p", role: "flow", context: .null)))
        )
        // HEARTBEAT from a client MAY be `{}`.
        #expect(try codec.decode(frames("HEARTBEAT", "{}"), from: .client) == .client(.heartbeat(Heartbeat())))
        // SYNC: `last_seq` 0 and `create` false.
        #expect(
            try codec.decode(frames("SYNC", #"{"req": 2, "session": "default"}"#), from: .client)
                == .client(.sync(Sync(req: 2, session: "default", lastSeq: 0, create: false)))
        )
        // OK without a result.
        #expect(try codec.decode(frames("OK", #"{"req": 3}"#), from: .daemon) == .daemon(.ok(OKReply(req: 3, result: [:]))))
        // A screen of an unknown kind is kept as it is (a presenter treats it as a view).
        #expect(
            try codec.decode(
                frames(
                    "COMMAND",
                    #"{"session": "s", "seq": 1, "command": {"op": "setRoot", "screen": {"id": "c", "kind": "carousel"}}}"#
                ),
                from: .daemon
            )
                == .daemon(.command(
                    CommandMessage(
                        session: "s", seq: 1, command: .setRoot(Screen(id: "c", kind: Screen.Kind("carousel"))))))
        )
    }
}
