import FlowCore
import FlowWire
import Foundation
import Testing

/// The typed `OK` results: the daemon encodes them and the clients decode them with the same type, to the JSON
/// `docs/PROTOCOL.md` documents.
struct WireResultTests {
    /// Decodes `text` (an `OK` body) as `Result` and encodes it back: the same JSON value, field for field.
    private func roundTrip<Result: WireResult & Equatable>(_: Result.Type, _ text: String) throws -> Result {
        let reply = try JSONDecoder().decode(OKReply.self, from: Data(text.utf8))
        let typed = try reply.result(as: Result.self)
        let encoded = OKReply(req: reply.req, result: typed)
        #expect(encoded == reply, "\(Result.self) does not write back \(text)")
        #expect(try Result(json: encoded.result) == typed)
        return typed
    }

    @Test func stepVerdictsReadAndWriteTheDocumentedResults() throws {
        #expect(try roundTrip(StepVerdict.self, #"{"req": 31, "result": {"accepted": true}}"#) == StepVerdict(accepted: true))
        #expect(
            try roundTrip(StepVerdict.self, #"{"req": 31, "result": {"accepted": false, "reason": "notVisible"}}"#)
                == StepVerdict(accepted: false, reason: "notVisible")
        )
        #expect(
            try roundTrip(StepVerdict.self, #"{"req": 31, "result": {"accepted": true, "duplicate": true}}"#)
                == StepVerdict(accepted: true, duplicate: true)
        )
        let duplicateDrop = #"{"accepted": false, "reason": "notVisible", "duplicate": true}"#
        #expect(ProtocolDocument.text.contains(duplicateDrop))
        #expect(
            try roundTrip(StepVerdict.self, #"{"req": 31, "result": \#(duplicateDrop)}"#)
                == StepVerdict(accepted: false, reason: "notVisible", duplicate: true)
        )
    }

    @Test func aStepVerdictsOKIsWrittenToItsGoldenBytes() {
        let ok = WireCodec().encodeBody(
            .daemon(.ok(OKReply(req: 31, result: StepVerdict(accepted: false, reason: "notVisible", duplicate: true))))
        )
        #expect(String(decoding: ok, as: UTF8.self) == #"{"req":31,"result":{"accepted":false,"duplicate":true,"reason":"notVisible"}}"#)
        let accepted = WireCodec().encodeBody(.daemon(.ok(OKReply(req: 7, result: StepVerdict(accepted: true)))))
        #expect(String(decoding: accepted, as: UTF8.self) == #"{"req":7,"result":{"accepted":true}}"#)
    }

    @Test(arguments: [
        StepVerdict(accepted: true), StepVerdict(accepted: false, reason: "attachmentEnded"),
        StepVerdict(accepted: true, duplicate: true), StepVerdict(accepted: false, reason: "noneStep", duplicate: true),
    ])
    func aStepVerdictsCodableFormIsItsHandWrittenForm(verdict: StepVerdict) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        #expect(try encoder.encode(verdict) == encoder.encode(verdict.json))
        #expect(try JSONDecoder().decode(StepVerdict.self, from: encoder.encode(verdict.json)) == verdict)
    }

    @Test(arguments: [true, false])
    func aCreateSessionResultsCodableFormIsItsHandWrittenForm(created: Bool) throws {
        let result = CreateSessionResult(created: created)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        #expect(try encoder.encode(result) == encoder.encode(result.json))
        #expect(try CreateSessionResult(json: result.json) == result)
    }

    @Test func aStepVerdictWithoutAcceptedDoesNotDecode() {
        #expect(throws: DecodingError.self) { try StepVerdict(json: ["reason": "notVisible"]) }
        #expect(throws: DecodingError.self) { try StepVerdict(json: ["accepted": true, "duplicate": "yes"]) }
    }

    @Test func operatorResultsReadAndWriteTheDocumentedResults() throws {
        let sessions =
            #"{"sessions": [{"id": "default", "flows": 9, "presenter": "tui", "seq": 57, "steppers": 4, "screens": 12, "#
            + #""ui_bytes": 804, "attachments": 4, "outbox_commands": 57, "outbox_bytes": 9120}]}"#
        let navigations = #"{"navigations": 3}"#
        let created = #"{"created": true}"#
        for result in [sessions, navigations, created] { #expect(ProtocolDocument.text.contains(result)) }
        #expect(
            try roundTrip(SessionList.self, #"{"req": 1, "result": \#(sessions)}"#).sessions
                == [
                    SessionSummary(
                        id: "default", flows: 9, presenter: "tui", seq: 57, steppers: 4,
                        usage: SessionUsage(
                            screens: 12, uiBytes: 804, attachments: 4, outboxCommands: 57, outboxBytes: 9120))
                ]
        )
        #expect(try roundTrip(DeepLinkResult.self, #"{"req": 3, "result": \#(navigations)}"#).navigations == 3)
        #expect(try roundTrip(CreateSessionResult.self, #"{"req": 4, "result": \#(created)}"#).created)
        let tree = try roundTrip(TreeReport.self, resultExamples[0].json)
        #expect(tree.tree.allNodes.map(\.flow) == ["WishlistFlow"])
        #expect(tree.text == "WishlistFlow flow#1 root=wishlist.stack [visible] ready\n")
        let vocabulary = try roundTrip(ApplicationVocabulary.self, resultExamples[1].json)
        #expect(vocabulary.stepperKinds.map(\.kind) == ["movies.detail"])
    }

    @Test func endSessionsResultReadsAndWritesTheDocumentedResult() throws {
        let ended = #"{"seq": 57, "presenter": "tui", "attachments": 4}"#
        #expect(ProtocolDocument.text.contains(ended))
        #expect(
            try roundTrip(EndSessionResult.self, #"{"req": 7, "result": \#(ended)}"#)
                == EndSessionResult(seq: 57, presenter: "tui", attachments: 4)
        )
        let unhosted = try roundTrip(
            EndSessionResult.self, #"{"req": 7, "result": {"seq": 2, "presenter": null, "attachments": 2}}"#
        )
        #expect(unhosted == EndSessionResult(seq: 2, presenter: nil, attachments: 2))
    }

    @Test func aSessionNobodyHostsHasANullPresenter() throws {
        let list = SessionList(sessions: [SessionSummary(id: "kiosk-3", flows: 0, presenter: nil, seq: 0, steppers: 0)])
        let body = WireCodec().encodeBody(.daemon(.ok(OKReply(req: 1, result: list))))
        #expect(
            String(decoding: body, as: UTF8.self)
                == #"{"req":1,"result":{"sessions":[{"flows":0,"id":"kiosk-3","presenter":null,"seq":0,"steppers":0}]}}"#
        )
        #expect(try OKReply(req: 1, result: list).result(as: SessionList.self) == list)
    }

    @Test func healthReadsAndWritesEveryField() throws {
        let health = HealthReport(
            daemon: "3d1f", uptimeSeconds: 12.5, sessions: 2, peers: ["stepper": 2, "presenter": 1, "operator": 1],
            counters: ["messages_in": 40, "errors": ["forbidden": 1]],
            journal: HealthReport.Journal(records: 120, recoveredRecords: 100)
        )
        let body = WireCodec().encodeBody(.daemon(.ok(OKReply(req: 5, result: health))))
        let expected = #"{"req":5,"result":{"counters":{"errors":{"forbidden":1},"messages_in":40},"daemon":"3d1f","#
            + #""journal":{"records":120,"recovered_records":100},"peers":{"operator":1,"presenter":1,"stepper":2},"#
            + #""sessions":2,"status":"ok","uptime_s":12.5}}"#
        #expect(String(decoding: body, as: UTF8.self) == expected)
        #expect(try OKReply(req: 5, result: health).result(as: HealthReport.self) == health)
        var withoutJournal = health
        withoutJournal.journal = nil
        #expect(!keys(of: OKReply(req: 5, result: withoutJournal).result).contains("journal"))
    }

    @Test func presenterResultsReadAndWriteTheDocumentedResults() throws {
        let sync = #"{"req":2,"result":{"seq":3,"mode":"snapshot"}}"#
        #expect(ProtocolDocument.text.contains(sync))
        #expect(try roundTrip(SyncResult.self, sync) == SyncResult(seq: 3, mode: .snapshot))
        #expect(try roundTrip(SyncResult.self, #"{"req":2,"result":{"seq":9,"mode":"replay"}}"#).mode == .replay)
        #expect(try roundTrip(UserActionResult.self, #"{"req":4,"result":{"delivered":1}}"#).delivered == 1)
        #expect(throws: DecodingError.self) { try SyncResult(json: ["seq": 3, "mode": "rewind"]) }
    }
}
