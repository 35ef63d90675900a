import FlowCore
@testable import FlowDaemon
import FlowWire
import Testing

/// The journal's records: every kind is written as today's journals hold it (golden bytes) and read back, records
/// carry their format version, and the STEP de-duplication windows stay bounded.
struct JournalRecordTests {
    /// Every kind of record with the bytes flowd writes for it: the format of journals already on disk, which every
    /// later flowd must keep reading.
    static let golden: [(record: JournalRecord, bytes: String)] = [
        (.daemon("d-1"), #"{"daemon":"d-1","kind":"daemon"}"#),
        (.daemon("d-2", replacing: "d-1"), #"{"daemon":"d-2","kind":"daemon","replaces":"d-1"}"#),
        (
            JournalRecord(session: "default", kind: .sessionCreated(app: nil)),
            #"{"kind":"session","session":"default","v":5}"#
        ),
        (
            JournalRecord(session: "default", kind: .sessionCreated(app: "3f2a9c01b7de")),
            #"{"app":"3f2a9c01b7de","kind":"session","session":"default","v":5}"#
        ),
        // Written before format version 5 (``AttachmentNumbering``): read, and written again, as they are.
        (
            JournalRecord(session: "default", kind: .sessionCreated(app: nil, numbering: .wholeComposites)),
            #"{"kind":"session","session":"default"}"#
        ),
        (
            JournalRecord(session: "default", kind: .sessionCreated(app: "3f2a9c01b7de", numbering: .wholeComposites)),
            #"{"app":"3f2a9c01b7de","kind":"session","session":"default","v":4}"#
        ),
        (JournalRecord(session: "default", kind: .compositeLeaves), #"{"kind":"leaves","session":"default","v":5}"#),
        (
            JournalRecord(
                session: "default",
                kind: .input(
                    .stepperEmitted(
                        AttachmentID(7), Step("pick", payload: ["movie": 23452, "b": [1, "x/y", nil], "a": true])),
                    origin: StepOrigin(instance: "e3b0c442-98fc", req: 1 << 40)
                )
            ),
            #"{"attachment":7,"input":"step","instance":"e3b0c442-98fc","kind":"input","req":1099511627776,"#
                + #""session":"default","step":{"name":"pick","payload":{"a":true,"b":[1,"x/y",null],"movie":23452}}}"#
        ),
        (
            JournalRecord(session: "kiosk 2", kind: .input(.stepperEmitted(AttachmentID(1), Step("home")), origin: nil)),
            #"{"attachment":1,"input":"step","kind":"input","session":"kiosk 2","step":{"name":"home","payload":null}}"#
        ),
        (
            JournalRecord(
                session: "default",
                kind: .input(.stepperEmitted(AttachmentID(3), Step("say", payload: "é \"quoted\" \\ tab\t")), origin: nil)
            ),
            #"{"attachment":3,"input":"step","kind":"input","session":"default","step":{"name":"say","payload":"é \"quoted\" \\ tab\t"}}"#
        ),
        (
            JournalRecord(
                session: "default", kind: .input(.stepperEmitted(AttachmentID(3), Step("pi", payload: 3.25)), origin: nil)),
            #"{"attachment":3,"input":"step","kind":"input","session":"default","step":{"name":"pi","payload":3.25}}"#
        ),
        (
            JournalRecord(
                session: "default",
                kind: .input(.stepperEmitted(AttachmentID(4), Step("max")), origin: StepOrigin(instance: "i", req: .max))
            ),
            #"{"attachment":4,"input":"step","instance":"i","kind":"input","req":18446744073709551615,"session":"default","#
                + #""step":{"name":"max","payload":null}}"#
        ),
        (
            JournalRecord(session: "default", kind: .input(.visibilityChanged("home", visible: true), origin: nil)),
            #"{"input":"visible","kind":"input","presentable":"home","session":"default"}"#
        ),
        (
            JournalRecord(session: "default", kind: .input(.visibilityChanged("home", visible: false), origin: nil)),
            #"{"input":"hidden","kind":"input","presentable":"home","session":"default"}"#
        ),
        (
            JournalRecord(session: "default", kind: .input(.dismissed("detail.7"), origin: nil)),
            #"{"input":"dismissed","kind":"input","presentable":"detail.7","session":"default"}"#
        ),
        (
            JournalRecord(session: "default", kind: .input(.presentablesLost(["a", "b"]), origin: nil)),
            #"{"input":"lost","kind":"input","presentables":["a","b"],"session":"default"}"#
        ),
        (
            JournalRecord(session: "default", kind: .input(.adaptCompleted(AdaptRequestID(4), Step("x")), origin: nil)),
            #"{"input":"adapted","kind":"input","request":4,"session":"default","step":{"name":"x","payload":null}}"#
        ),
        (
            JournalRecord(session: "default", kind: .input(.adaptCompleted(AdaptRequestID(5), nil), origin: nil)),
            #"{"input":"adapted","kind":"input","request":5,"session":"default"}"#
        ),
        (
            JournalRecord(session: "default", kind: .input(.deepLink(Step("movieIsPicked", payload: 23452)), origin: nil)),
            #"{"input":"deep_link","kind":"input","session":"default","step":{"name":"movieIsPicked","payload":23452}}"#
        ),
        (
            JournalRecord(session: "default", kind: .report(PresentableReport(presentable: "home", state: .visible))),
            #"{"kind":"report","report":{"presentable":"home","state":"visible"},"session":"default"}"#
        ),
        (
            JournalRecord(session: "default", kind: .report(PresentableReport(presentable: "home", state: .hidden))),
            #"{"kind":"report","report":{"presentable":"home","state":"hidden"},"session":"default"}"#
        ),
        (
            JournalRecord(session: "default", kind: .report(PresentableReport(presentable: "a/b", state: .dismissed))),
            #"{"kind":"report","report":{"presentable":"a/b","state":"dismissed"},"session":"default"}"#
        ),
        (JournalRecord(session: "default", kind: .snapshotAdopted), #"{"kind":"adopted","session":"default"}"#),
        (JournalRecord(session: "kiosk-3", kind: .sessionEnded), #"{"kind":"ended","session":"kiosk-3","v":2}"#),
    ]

    static var records: [JournalRecord] { golden.map(\.record) }

    @Test("Every record kind is written byte for byte as today's journals hold it", arguments: 0..<golden.count)
    func writesTheGoldenBytes(_ index: Int) {
        let (record, bytes) = Self.golden[index]
        #expect(String(decoding: record.encoded, as: UTF8.self) == bytes)
    }

    @Test("Every record kind is read back from today's bytes", arguments: 0..<golden.count)
    func readsTheGoldenBytes(_ index: Int) throws {
        let (record, bytes) = Self.golden[index]
        #expect(try JournalRecord(decoding: Array(bytes.utf8)) == record)
    }

    @Test("Other spellings of the same JSON read the same; unknown fields are ignored; a missing one is refused")
    func otherSpellingsAndOddRecords() throws {
        let spaced = #" { "kind" : "input", "input":"step", "attachment":1, "session":"default", "step":{"name":"x"}, "extra":1 } "#
        #expect(
            try JournalRecord(decoding: Array(spaced.utf8))
                == JournalRecord(session: "default", kind: .input(.stepperEmitted(AttachmentID(1), Step("x")), origin: nil)))
        let escaped = #"{"kind":"session","session":"kiosk"}"#
        #expect(
            try JournalRecord(decoding: Array(escaped.utf8))
                == JournalRecord(session: "kiosk", kind: .sessionCreated(app: nil, numbering: .wholeComposites)))
        for bad in [#"{"kind":"input","session":"default"}"#, #"{"kind":"session"}"#, "[1]", "{", ""] {
            #expect(throws: JournalRecord.DecodingFailure.self, "\(bad)") { try JournalRecord(decoding: Array(bad.utf8)) }
        }
    }

    @Test("A record says its format version: a newer one is refused by name, an unknown kind of this one as malformed")
    func recordsCarryTheirVersion() throws {
        #expect(
            try JournalRecord(decoding: Array(#"{"kind":"session","session":"s","v":1}"#.utf8))
                == JournalRecord(session: "s", kind: .sessionCreated(app: nil, numbering: .wholeComposites)),
            "version 1 said aloud")
        #expect(JournalRecord.formatVersion == 5)
        #expect(
            try JournalRecord(decoding: Array(#"{"kind":"ended","session":"s","v":2}"#.utf8))
                == JournalRecord(session: "s", kind: .sessionEnded), "version 2 introduced 'ended'")
        #expect(
            try JournalRecord(decoding: Array(#"{"app":"a1","kind":"session","session":"s","v":4}"#.utf8))
                == JournalRecord(session: "s", kind: .sessionCreated(app: "a1", numbering: .wholeComposites)),
            "version 4 introduced 'app'")
        #expect(
            try JournalRecord(decoding: Array(#"{"kind":"session","session":"s","v":5}"#.utf8))
                == JournalRecord(session: "s", kind: .sessionCreated(app: nil)), "version 5: a composite's leaves")
        #expect(throws: JournalRecord.DecodingFailure.newerVersion(6, kind: "ended")) {
            try JournalRecord(decoding: Array(#"{"kind":"ended","session":"s","v":6}"#.utf8))
        }
        #expect(throws: JournalRecord.DecodingFailure.newerVersion(6, kind: "session"), "a known kind, newer fields") {
            try JournalRecord(decoding: Array(#"{"kind":"session","session":"s","v":6}"#.utf8))
        }
        let unknownState = #expect(throws: JournalRecord.DecodingFailure.self, "version 3 introduced 'state'") {
            try JournalRecord(decoding: Array(#"{"kind":"state","session":"s","v":2}"#.utf8))
        }
        #expect(unknownState.map { if case .malformed = $0 { true } else { false } } == true)
        let unknown = #expect(throws: JournalRecord.DecodingFailure.self) {
            try JournalRecord(decoding: Array(#"{"kind":"ended","session":"s"}"#.utf8))
        }
        #expect(unknown.map { if case .malformed = $0 { true } else { false } } == true)
    }

    @Test("A snapshot payload gives back its records; a cut one is refused")
    func snapshotPayload() throws {
        let records = Self.records.map(\.encoded) + [[]]
        let payload = JournalSnapshot.payload(records)
        #expect(try JournalSnapshot.records(in: payload) == records)
        #expect(JournalSnapshot.offset(ofRecord: 2, in: records) == 8 + records[0].count + records[1].count)
        #expect(throws: JournalError.self) { _ = try JournalSnapshot.records(in: Array(payload.dropLast(3))) }
    }

    @Test("The de-duplication window keeps the last 1024 verdicts of an instance and 256 instances")
    func windowsAreBounded() {
        var windows = StepResultWindows()
        let accepted = StepVerdict(accepted: true)
        for req in 1...UInt64(3000) { windows.remember(accepted, for: StepOrigin(instance: "a", req: req)) }
        #expect(windows.verdict(for: StepOrigin(instance: "a", req: 3000)) == accepted)
        #expect(windows.verdict(for: StepOrigin(instance: "a", req: 3000 - 1023)) == accepted)
        #expect(windows.verdict(for: StepOrigin(instance: "a", req: 3000 - 1024)) == nil)
        for instance in 0..<300 { windows.remember(accepted, for: StepOrigin(instance: "i\(instance)", req: 1)) }
        #expect(windows.verdict(for: StepOrigin(instance: "a", req: 3000)) == nil, "the stalest instance went")
        #expect(windows.verdict(for: StepOrigin(instance: "i299", req: 1)) == accepted)
        #expect(windows.verdict(for: StepOrigin(instance: "i43", req: 1)) == nil)
        #expect(windows.verdict(for: StepOrigin(instance: "i44", req: 1)) == accepted)
    }
}
