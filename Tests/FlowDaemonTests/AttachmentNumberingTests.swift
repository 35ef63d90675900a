import FlowCore
@testable import FlowDaemon
import FlowWire
import FlowdTesting
import Testing

/// Journals an older flowd wrote, when a `CompositeStepper` was one attachment (before record format version 5):
/// a session whose replay attaches a composite is refused as unrestorable rather than have its `step` records reach
/// other attachments; one that meets no composite replays as it always did, and its next record says that the records
/// after it number composites this flowd's way (docs/RELIABILITY.md, "Replay").
struct AttachmentNumberingTests {
    private func bytes(_ json: String) -> [UInt8] { Array(json.utf8) }

    /// What a flowd before format version 5 wrote for the default session of ``CompositeApplication``: created, then a
    /// step of its attachment 2, the composite itself there (here: its first inner stepper, the RemoteStepper).
    private var olderJournal: [[UInt8]] {
        [
            bytes(#"{"daemon":"older","kind":"daemon"}"#),
            bytes(#"{"kind":"session","session":"default"}"#),
            bytes(#"{"attachment":2,"input":"step","kind":"input","session":"default","step":{"name":"close","payload":null}}"#),
        ]
    }

    @Test("An older journal's session that attaches a composite at replay is unrestorable, its records kept")
    func olderSessionMeetingACompositeIsUnrestorable() throws {
        let daemon = EmbeddedDaemon(application: CompositeApplication(notPresented: true), journaling: true)
        try daemon.restart(journal: olderJournal)

        let reason = try #require(daemon.core.unrestorableReason("default"))
        #expect(reason.contains("journal record 3 of 3 attaches a CompositeStepper"))
        #expect(daemon.core.unrestorableSessionCount == 1)
        #expect(daemon.tree() == nil, "nothing of it is served")
        let service = daemon.connectStepper(name: "counter", kinds: ["test.counter"])
        #expect(service.attachments.isEmpty, "no ATTACH for an attachment its records may not mean")
        // Kept as it was: every snapshot writes its records back, and the next start refuses it the same way.
        #expect(daemon.compactJournal().saved == 0)
        #expect(Array(daemon.core.journalHistory.dropFirst()) == Array(olderJournal.dropFirst()))
        try daemon.restart()
        #expect(daemon.core.unrestorableSessionCount == 1)
    }

    @Test("Such a session is refused with sessionUnrestorable until an operator ends it; then it is gone for good")
    func theRefusedSessionIsEndedByAnOperator() throws {
        let harness = try DaemonHarness(application: CompositeApplication(notPresented: true), journaling: true)
            .restarted(journal: olderJournal)
        let sync = harness.presenter(Peers.tui, name: "tui", create: true)
        #expect(sync.to(Peers.tui).last == .error(ErrorReply(req: 2, code: .sessionUnrestorable, message: "", type: "SYNC")))
        harness.hello(Peers.flowctl, .operator, name: "ops")
        // The text tells an operator what happened and what to do (docs/RELIABILITY.md, "Replay", quotes it).
        let tree = harness.daemon.receive(.tree(SessionRequest(req: 7, session: "default")), from: Peers.flowctl)
        guard case .error(let refusal)? = tree.to(Peers.flowctl).first else {
            Issue.record("TREE not refused: \(tree.sent)")
            return
        }
        #expect(refusal.code == .sessionUnrestorable)
        #expect(
            refusal.message
                == "session 'default' is kept but not served: journal record 3 of 3 attaches a CompositeStepper, "
                + "which the older flowd that journaled this session (before record format 5) numbered as one "
                + "attachment and this flowd numbers stepper by stepper: replayed here, its later steps could reach "
                + "other attachments; END_SESSION (flowctl end-session default) drops it, and its ID can then be "
                + "created anew")
        let ended = harness.receive(.endSession(SessionRequest(req: 8, session: "default")), from: Peers.flowctl)
        #expect(ended.to(Peers.flowctl) == [ok(8, ["seq": 0, "presenter": .null, "attachments": 0])])
        #expect(harness.core.unrestorableSessionCount == 0)
        let again = try harness.restarted()
        #expect(again.core.unrestorableSessionCount == 0 && again.core.unrestorableReason("default") == nil)
    }

    @Test("An older session first changed by this flowd is marked so: a composite it meets after replays")
    func olderSessionChangedNowReplaysWithItsComposite() throws {
        let daemon = EmbeddedDaemon(application: CompositeApplication(notPresented: true), journaling: true)
        try daemon.restart(journal: Array(olderJournal.prefix(2)))
        // Only created: made after the start (not replayed), so its composite is attached this flowd's way.
        #expect(daemon.core.unrestorableSessionCount == 0)
        let service = daemon.connectStepper(name: "counter", kinds: ["test.counter"])
        #expect(service.emit(Step("fromService"), attachment: 2)?.accepted == true)
        let history = daemon.core.journalHistory.map { String(decoding: $0, as: UTF8.self) }
        #expect(history[1] == #"{"kind":"session","session":"default"}"#)
        #expect(history[2] == #"{"kind":"leaves","session":"default","v":5}"#, "before the first record it wrote")
        #expect(history.filter { $0.contains(#""kind":"leaves""#) }.count == 1)

        let pages = daemon.ui()?.children(of: "stack").map(\.rawValue)
        try daemon.restart()
        #expect(daemon.core.unrestorableSessionCount == 0)
        #expect(daemon.ui()?.children(of: "stack").map(\.rawValue) == pages)
        #expect(pages == ["home", "remoteFirst", "one", "fromService"])
    }

    @Test("An older journal without a composite replays exactly as before; the session's next change is marked")
    func olderJournalWithoutCompositeReplaysAsBefore() throws {
        let harness = DaemonHarness(journaling: true)
        harness.hello(Peers.flowctl, .operator, name: "ops")
        harness.receive(.createSession(SessionRequest(req: 5, session: "kiosk")), from: Peers.flowctl)
        harness.deepLink(Peers.flowctl, Step("openDetail", payload: 3), session: "kiosk", req: 6)
        let today = harness.core.journalHistory
        #expect(today.contains(bytes(#"{"kind":"session","session":"kiosk","v":5}"#)))
        let older = today.map {
            $0 == bytes(#"{"kind":"session","session":"kiosk","v":5}"#) ? bytes(#"{"kind":"session","session":"kiosk"}"#) : $0
        }
        #expect(older != today)

        let restarted = try harness.restarted(journal: older)
        #expect(restarted.state(of: "kiosk") == harness.state(of: "kiosk"))
        #expect(restarted.core.unrestorableSessionCount == 0)
        restarted.hello(Peers.flowctl, .operator, name: "ops")
        let before = restarted.state(of: "kiosk")
        restarted.deepLink(Peers.flowctl, Step("openDetail", payload: 4), session: "kiosk", req: 7)
        #expect(restarted.state(of: "kiosk") != before)
        let marked = restarted.core.journalHistory.map { String(decoding: $0, as: UTF8.self) }
        #expect(marked.filter { $0 == #"{"kind":"leaves","session":"kiosk","v":5}"# }.count == 1)
        let again = try restarted.restarted()
        #expect(again.state(of: "kiosk") == restarted.state(of: "kiosk"))
    }

    @Test("A session or state record says its numbering by its format version")
    func recordsSayTheirNumbering() throws {
        #expect(
            try JournalRecord(decoding: bytes(#"{"kind":"session","session":"s"}"#))
                == JournalRecord(session: "s", kind: .sessionCreated(app: nil, numbering: .wholeComposites)))
        #expect(
            try JournalRecord(decoding: bytes(#"{"kind":"session","session":"s","v":5}"#))
                == JournalRecord(session: "s", kind: .sessionCreated(app: nil)))
        #expect(
            try JournalRecord(decoding: bytes(#"{"kind":"leaves","session":"s","v":5}"#))
                == JournalRecord(session: "s", kind: .compositeLeaves))
        #expect(throws: JournalRecord.DecodingFailure.self, "format version 5 introduced 'leaves'") {
            try JournalRecord(decoding: Array(#"{"kind":"leaves","session":"s","v":4}"#.utf8))
        }
        #expect(StateRecordHeader(bytes(#"{"kind":"state","session":"s","state":{},"v":3}"#))?.numbering == .wholeComposites)
        #expect(StateRecordHeader(bytes(#"{"app":"a","kind":"state","session":"s","state":{},"v":4}"#))?.numbering == .wholeComposites)
        #expect(StateRecordHeader(bytes(#"{"kind":"state","session":"s","state":{},"v":5}"#))?.numbering == .compositeLeaves)
    }
}
