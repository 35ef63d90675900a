import FlowCore
@testable import FlowDaemon
import FlowWire
import FlowdTesting
import TestFlows
import Testing

/// A restored session keeps its UI as the saved bytes until it is first used (``SessionUI``): the daemon behaves as if
/// it had read them at once.
struct UnreadUITests {
    let tui = Peers.tui
    let movies = Peers.movies

    /// ``StateRecordTests/goldenSession()`` (tabs, a modal, screens with data) with one more screen in the modal and
    /// its in-daemon stepper; attachment 4 is the settings flow's stepper, which may step while nothing is visible.
    func savedSession() throws -> DaemonHarness {
        let harness = StateRecordTests().goldenSession()
        harness.step(movies, Step("settingsButtons"), attachment: 4, req: 11)
        harness.core.compactJournal()
        return harness
    }

    /// A restart of `harness`, and whether its default session's UI is still unread.
    func restarted(_ harness: DaemonHarness, reading: Bool) throws -> (DaemonHarness, unread: Bool) {
        let restarted = try harness.restarted()
        if reading { _ = restarted.core.ui(of: "default") }
        return (restarted, restarted.core.sessions[made: "default"]?.uiIsUnread ?? false)
    }

    @Test("A restored session left unread and one read at once: the same UI, state record, SNAPSHOT and COMMAND")
    func unreadAndReadRestoresBehaveTheSame() throws {
        let original = try savedSession()
        let (unread, wasUnread) = try restarted(original, reading: false)
        let (read, wasRead) = try restarted(original, reading: true)
        #expect(wasUnread, "a restored session's UI is not read by the restart")
        #expect(!wasRead)

        // A compaction of the untouched session writes its saved bytes back: the same snapshot.
        unread.core.compactJournal()
        read.core.compactJournal()
        #expect(unread.core.sessions[made: "default"]?.uiIsUnread == true, "written back without being read")
        #expect(unread.core.journalSnapshotPayload == read.core.journalSnapshotPayload)
        #expect(unread.core.ui(of: "default") == original.core.ui(of: "default"))
        #expect(unread.state() == read.state())

        // A presenter's SNAPSHOT, then a step's COMMAND.
        let codec = WireCodec()
        var snapshots: [[UInt8]] = []
        for harness in [unread, read] {
            let synced = harness.presenter(Peers.tuiRestarted, name: "tui")
            let snapshot = synced.sent.compactMap { delivery -> [UInt8]? in
                guard case .snapshot(let message) = delivery.message else { return nil }
                return codec.encodeBody(.daemon(.snapshot(message)))
            }
            #expect(snapshot.count == 1)
            snapshots += snapshot
        }
        #expect(snapshots.count == 2 && snapshots[0] == snapshots[1], "the same SNAPSHOT bytes")
        for harness in [unread, read] {
            harness.hello(Peers.moviesRestarted, .stepper, name: "movies", serves: ["home", "detail", "settings", "tab"])
        }
        let steps = [unread, read].map {
            $0.step(Peers.moviesRestarted, Step("settingsOpenDetail", payload: 9), attachment: 4, req: 20).sent
        }
        #expect(steps[0] == steps[1], "the same COMMAND and replies")
        #expect(steps[0].contains { if case .command = $0.message { true } else { false } })
        unread.core.compactJournal()
        read.core.compactJournal()
        #expect(unread.core.journalSnapshotPayload == read.core.journalSnapshotPayload)
    }

    @Test("The state record reader keeps a UI with ASCII IDs as its bytes, and reads another one at once")
    func onlyUIsWithASCIIIDsAreKeptUnread() throws {
        let bytes = Array(StateRecordTests.golden.utf8)
        let direct = try #require(StateRecordReader.read(bytes))
        guard case .unread(let saved) = direct.state.savedUI else {
            Issue.record("the golden record's UI is not kept unread")
            return
        }
        #expect(String(decoding: saved, as: UTF8.self).hasPrefix(#"{"nodes":[{"children":["home","detail.7","tabs"]"#))
        #expect(String(decoding: saved, as: UTF8.self).hasSuffix(#""root":"app"}"#))
        #expect(JournalRecord(session: "default", kind: .state(direct.state, app: nil)).encoded == bytes)

        let accented = try StateRecordTests().golden(
            ui: #"{"nodes":[{"children":["café"],"id":"nav","kind":"stack"},{"id":"café","data":{"é":1}}],"root":"nav"}"#)
        let read = try #require(StateRecordReader.read(accented))
        guard case .model(let model) = read.state.savedUI else {
            Issue.record("a UI with an ID that is not ASCII is not read at once")
            return
        }
        var expected = PresentationModel()
        _ = try expected.apply(.setRoot(.stack("nav")))
        _ = try expected.apply(.push(Screen(id: "café", data: ["é": 1]), onto: "nav"))
        #expect(model == expected)
        #expect(try JournalRecord.decodeJSON(JournalRecord.StateBody.self, accented).state.ui == expected)
    }

    @Test(
        "A saved UI that contradicts itself, its screens in flowd's order, is refused by the reader and the general way",
        arguments: [
            #"{"nodes":[{"id":"a"},{"children":["a"],"id":"nav","kind":"stack"},{"id":"z"}],"root":"nav"}"#,
            #"{"nodes":[{"id":"a"},{"children":["a"],"id":"nav","kind":"stack","presented":"a"}],"root":"nav"}"#,
            #"{"nodes":[{"id":"a","presented":"nav"},{"children":["a"],"id":"nav","kind":"stack"}],"root":"nav"}"#,
            #"{"nodes":[{"children":["a","b"],"id":"nav","kind":"stack"},{"id":"a"}],"root":"nav"}"#,
            #"{"nodes":[],"root":"nav"}"#,
        ])
    func aContradictoryUIInFlowdsOrderIsRefused(ui: String) throws {
        let bytes = try StateRecordTests().golden(ui: ui)
        #expect(StateRecordReader.read(bytes) == nil)
        #expect(throws: JournalRecord.DecodingFailure.self) { try JournalRecord(decoding: bytes) }
    }

    @Test(
        "A UI the reader does not cover (a repeated ID, a double, an escape, deep data) is read the general way",
        arguments: [
            #"{"nodes":[{"id":"a"},{"id":"a"},{"children":["a"],"id":"nav","kind":"stack"}],"root":"nav"}"#,
            #"{"nodes":[{"data":{"k":1.5},"id":"a"},{"children":["a"],"id":"nav","kind":"stack"}],"root":"nav"}"#,
            #"{"nodes":[{"data":"a\"b","id":"a"},{"children":["a"],"id":"nav","kind":"stack"}],"root":"nav"}"#,
            #"{"nodes":[{"data":"# + String(repeating: "[", count: 70) + String(repeating: "]", count: 70)
                + #","id":"a"},{"children":["a"],"id":"nav","kind":"stack"}],"root":"nav"}"#,
        ])
    func whatTheReaderDoesNotCoverIsReadTheGeneralWay(ui: String) throws {
        let bytes = try StateRecordTests().golden(ui: ui)
        #expect(StateRecordReader.read(bytes) == nil)
        let general = try? JournalRecord.decodeJSON(JournalRecord.StateBody.self, bytes).state
        let read = try? JournalRecord(decoding: bytes)
        #expect(read == general.map { JournalRecord(session: "default", kind: .state($0, app: nil)) })
    }

    @Test(
        "IDs of 1-19 bytes, with an escape or a non-ASCII byte at any place: checked as the reader reads them",
        arguments: [nil, "\\\"", "é"] as [String?])
    func idsOfEveryLengthAreCheckedAsTheReaderReadsThem(odd: String?) throws {
        for length in 1...19 {
            for place in 0..<length where odd != nil || place == 0 {
                var id = String(repeating: "x", count: length)
                if let odd { id.insert(contentsOf: odd, at: id.index(id.startIndex, offsetBy: place)) }
                let ui = #"{"nodes":[{"children":["\#(id)"],"id":"navigation.stack.\#(length)","kind":"stack"},"#
                    + #"{"id":"\#(id)"}],"root":"navigation.stack.\#(length)"}"#
                let bytes = try StateRecordTests().golden(ui: ui)
                let general = try JournalRecord.decodeJSON(JournalRecord.StateBody.self, bytes).state.ui
                let read = StateRecordReader.read(bytes)
                switch read?.state.savedUI {
                case .unread(let saved)?:
                    #expect(odd == nil, "\(id): kept unread")
                    #expect(StateRecordReader.readUI(saved) == general, "\(id)")
                case .model(let model)?:
                    #expect(odd == "é", "\(id): read at once")
                    #expect(model == general, "\(id)")
                case nil:
                    #expect(odd == "\\\"", "\(id): left to the general way")
                }
            }
        }
    }
}
