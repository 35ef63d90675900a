import FlowCore
@testable import FlowDaemon
import FlowWire
import Testing

/// The journal's records: every kind survives encoding, the fast path writes exactly what `Codable` writes, and the
/// STEP de-duplication windows stay bounded.
struct JournalRecordTests {
    static let records: [JournalRecord] = [
        .daemon("d-1"),
        JournalRecord(session: "default", kind: .sessionCreated),
        JournalRecord(
            session: "default",
            kind: .input(
                .stepperEmitted(AttachmentID(7), Step("pick", payload: ["movie": 23452, "b": [1, "x/y", nil], "a": true])),
                origin: StepOrigin(instance: "e3b0c442-98fc", req: 1 << 40)
            )
        ),
        JournalRecord(session: "kiosk 2", kind: .input(.stepperEmitted(AttachmentID(1), Step("home")), origin: nil)),
        JournalRecord(
            session: "default",
            kind: .input(.stepperEmitted(AttachmentID(3), Step("say", payload: "é \"quoted\" \\ tab\t")), origin: nil)
        ),
        JournalRecord(session: "default", kind: .input(.stepperEmitted(AttachmentID(3), Step("pi", payload: 3.25)), origin: nil)),
        JournalRecord(session: "default", kind: .input(.visibilityChanged("home", visible: true), origin: nil)),
        JournalRecord(session: "default", kind: .input(.visibilityChanged("home", visible: false), origin: nil)),
        JournalRecord(session: "default", kind: .input(.dismissed("detail.7"), origin: nil)),
        JournalRecord(session: "default", kind: .input(.presentablesLost(["a", "b"]), origin: nil)),
        JournalRecord(session: "default", kind: .input(.adaptCompleted(AdaptRequestID(4), Step("x")), origin: nil)),
        JournalRecord(session: "default", kind: .input(.adaptCompleted(AdaptRequestID(5), nil), origin: nil)),
        JournalRecord(session: "default", kind: .input(.deepLink(Step("movieIsPicked", payload: 23452)), origin: nil)),
        JournalRecord(session: "default", kind: .report(PresentableReport(presentable: "home", state: .visible))),
        JournalRecord(session: "default", kind: .report(PresentableReport(presentable: "home", state: .hidden))),
        JournalRecord(session: "default", kind: .report(PresentableReport(presentable: "a/b", state: .dismissed))),
        JournalRecord(session: "default", kind: .snapshotAdopted),
    ]

    @Test("Every record kind decodes to what was encoded", arguments: records)
    func roundTrip(_ record: JournalRecord) throws {
        let codec = JournalRecordCodec()
        #expect(try codec.decode(codec.encode(record)) == record)
    }

    @Test("The fast path writes exactly the Codable bytes where it applies", arguments: records)
    func fastPathMatchesCodable(_ record: JournalRecord) throws {
        let codec = JournalRecordCodec()
        guard let fast = try? JournalRecordCodec.fastEncode(record) else { return }
        #expect(fast == (try codec.codableEncode(record)), "\(String(decoding: fast, as: UTF8.self))")
    }

    @Test("The fast reader reads what the Codable way reads, for every kind", arguments: records)
    func fastReadMatchesCodable(_ record: JournalRecord) throws {
        let codec = JournalRecordCodec()
        let bytes = codec.encode(record)
        let fast = FastJSONReader.value(bytes).flatMap { JournalRecord($0) }
        if let fast { #expect(fast == (try codec.codableDecode(bytes))) }
        // Everything but escaped strings and doubles takes the fast way.
        let covered = ![4, 5].contains(Self.records.firstIndex(of: record) ?? -1)
        #expect((fast != nil) == covered, "\(String(decoding: bytes, as: UTF8.self))")
    }

    @Test("A record the fast reader does not understand goes the Codable way, which names the problem")
    func oddRecordsFallBack() throws {
        let codec = JournalRecordCodec()
        let odd = Array(#"{"kind":"input","input":"step","attachment":1,"session":"default","step":{"name":"x"},"extra":1}"#.utf8)
        #expect(try codec.decode(odd) == JournalRecord(session: "default", kind: .input(.stepperEmitted(AttachmentID(1), Step("x")), origin: nil)))
        #expect(throws: (any Error).self) { try codec.decode(Array(#"{"kind":"input","session":"default"}"#.utf8)) }
    }

    @Test("The fast path covers a stepper's step and every report")
    func fastPathCoversTheHotRecords() {
        #expect((try? JournalRecordCodec.fastEncode(Self.records[2])) != nil)
        #expect((try? JournalRecordCodec.fastEncode(Self.records[13])) != nil)
        #expect((try? JournalRecordCodec.fastEncode(Self.records[5])) == nil, "doubles go the Codable way")
    }

    @Test("A snapshot payload gives back its records; a cut one is refused")
    func snapshotPayload() throws {
        let codec = JournalRecordCodec()
        let records = Self.records.map { codec.encode($0) } + [[]]
        let payload = JournalSnapshot.payload(records)
        #expect(try JournalSnapshot.records(in: payload) == records)
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
