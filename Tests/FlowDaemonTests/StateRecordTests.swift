import FlowCore
@testable import FlowDaemon
import FlowWire
import FlowdTesting
import TestFlows
import Testing

/// How a `state` record is read: the state record reader and the fast reader give what `JSONDecoder` gives for
/// today's bytes, and what they do not cover is read the general way (docs/RELIABILITY.md, "State snapshots").
struct StateRecordTests {
    let tui = Peers.tui
    let movies = Peers.movies

    struct StateMissing: Error {}

    /// A `state` record as a flowd before the `usage` field wrote it (format version 5 too): a tree with a child flow,
    /// remote and action steppers, a held context, tabs and a modal in the UI, screens with data, an outbox.
    static let golden = #"""
        {"kind":"state","session":"default","state":{"awaitedReports":[],"outbox":[{"command":{"op":"setRoot","scree\#
        n":{"data":null,"id":"app","kind":"stack","type":"stack"}},"seq":1,"session":"default"},{"command":{"op":"pu\#
        sh","screen":{"data":{"greeting":"hi"},"id":"home","kind":"view","type":"Home"},"target":"app"},"seq":2,"ses\#
        sion":"default"},{"command":{"op":"push","screen":{"data":{"movie":7},"id":"detail.7","kind":"view","type":"\#
        Detail"},"target":"app"},"seq":3,"session":"default"},{"command":{"op":"present","screen":{"data":null,"id":\#
        "settings","kind":"stack","type":"stack"},"target":"app"},"seq":4,"session":"default"},{"command":{"op":"pus\#
        h","screen":{"data":null,"id":"settings.list","kind":"view","type":"SettingsList"},"target":"settings"},"seq\#
        ":5,"session":"default"},{"command":{"op":"push","screen":{"data":null,"id":"tabs","kind":"tabs","type":"tab\#
        s"},"target":"app"},"seq":6,"session":"default"},{"command":{"op":"setTabs","screens":[{"data":null,"id":"ta\#
        b.a","kind":"stack","type":"stack"},{"data":null,"id":"tab.b","kind":"stack","type":"stack"}],"selected":0,"\#
        target":"tabs"},"seq":7,"session":"default"},{"command":{"op":"push","screen":{"data":null,"id":"tab.a.view"\#
        ,"kind":"view","type":"Tab"},"target":"tab.a"},"seq":8,"session":"default"},{"command":{"op":"push","screen"\#
        :{"data":null,"id":"tab.b.view","kind":"view","type":"Tab"},"target":"tab.b"},"seq":9,"session":"default"}],\#
        "remoteAttachments":[{"attachment":2,"context":{"greeting":"hi"},"stepped":true},{"attachment":3,"context":{\#
        "movie":7},"stepped":false},{"attachment":4,"context":{"section":"general"},"stepped":false},{"attachment":5\#
        ,"context":null,"stepped":false},{"attachment":7,"context":null,"stepped":false}],"seq":9,"tree":{"attachmen\#
        ts":[{"allowStepWhenDismissed":false,"allowStepWhenNotPresented":true,"coordinator":1,"id":1,"presentable":"\#
        app","role":"flow","stepper":{"state":{"name":"start","payload":null},"type":"OneStepper"}},{"allowStepWhenD\#
        ismissed":false,"allowStepWhenNotPresented":false,"coordinator":1,"id":2,"presentable":"home","role":"contri\#
        butor","stepper":{"state":{"initialStep":{"name":"","payload":null},"kind":"home"},"type":"RemoteStepper"}},\#
        {"allowStepWhenDismissed":false,"allowStepWhenNotPresented":false,"coordinator":1,"id":3,"presentable":"deta\#
        il.7","role":"contributor","stepper":{"state":{"initialStep":{"name":"","payload":null},"kind":"detail"},"ty\#
        pe":"RemoteStepper"}},{"allowStepWhenDismissed":false,"allowStepWhenNotPresented":true,"coordinator":2,"id":\#
        4,"presentable":"settings","role":"flow","stepper":{"state":{"context":{"section":"general"},"initialStep":{\#
        "name":"settingsStart","payload":null},"kind":"settings"},"type":"RemoteStepper"}},{"allowStepWhenDismissed"\#
        :false,"allowStepWhenNotPresented":false,"coordinator":1,"id":5,"presentable":"tab.a.view","role":"contribut\#
        or","stepper":{"state":{"initialStep":{"name":"","payload":null},"kind":"tab"},"type":"RemoteStepper"}},{"al\#
        lowStepWhenDismissed":false,"allowStepWhenNotPresented":false,"coordinator":1,"id":6,"presentable":"tab.a.vi\#
        ew","role":"contributor","stepper":{"state":{"actions":{"later":{"name":"openDetailLater","payload":null},"o\#
        pen":{"name":"openDetail","payload":null},"settings":{"name":"openSettings","payload":null},"tabs":{"name":"\#
        openTabs","payload":null}},"initialStep":{"name":"","payload":null}},"type":"ActionStepper"}},{"allowStepWhe\#
        nDismissed":false,"allowStepWhenNotPresented":false,"coordinator":1,"id":7,"presentable":"tab.b.view","role"\#
        :"contributor","stepper":{"state":{"initialStep":{"name":"","payload":null},"kind":"tab"},"type":"RemoteStep\#
        per"}},{"allowStepWhenDismissed":false,"allowStepWhenNotPresented":false,"coordinator":1,"id":8,"presentable\#
        ":"tab.b.view","role":"contributor","stepper":{"state":{"actions":{"later":{"name":"openDetailLater","payloa\#
        d":null},"open":{"name":"openDetail","payload":null},"settings":{"name":"openSettings","payload":null},"tabs\#
        ":{"name":"openTabs","payload":null}},"initialStep":{"name":"","payload":null}},"type":"ActionStepper"}}],"f\#
        orgettingOrder":[],"lastAdaptNumber":0,"lastAttachmentNumber":8,"lastCoordinatorNumber":2,"nodes":[{"allowSt\#
        epWhenDismissed":false,"attachments":[1,2,3,5,6,7,8],"awaitedChildren":[],"children":[2],"flow":{"state":{},\#
        "type":"AppFlow"},"flowName":"AppFlow","hasNavigated":true,"id":1,"isReady":true,"root":"app"},{"allowStepWh\#
        enDismissed":false,"attachments":[4],"awaitedChildren":[],"children":[],"flow":{"state":{},"type":"SettingsF\#
        low"},"flowName":"SettingsFlow","hasNavigated":true,"id":2,"isReady":true,"parent":1,"root":"settings"}],"pr\#
        esentables":[{"attachments":[],"id":"app","isDismissed":false,"isVisible":true},{"attachments":[3],"id":"det\#
        ail.7","isDismissed":false,"isVisible":false},{"attachments":[2],"id":"home","isDismissed":false,"isVisible"\#
        :true},{"attachments":[5,6],"id":"tab.a.view","isDismissed":false,"isVisible":false},{"attachments":[7,8],"i\#
        d":"tab.b.view","isDismissed":false,"isVisible":false}],"root":1},"ui":{"nodes":[{"children":["home","detail\#
        .7","tabs"],"id":"app","kind":"stack","presented":"settings"},{"data":{"movie":7},"id":"detail.7","type":"De\#
        tail"},{"data":{"greeting":"hi"},"id":"home","type":"Home"},{"children":["settings.list"],"id":"settings","k\#
        ind":"stack"},{"id":"settings.list","type":"SettingsList"},{"children":["tab.a.view"],"id":"tab.a","kind":"s\#
        tack"},{"id":"tab.a.view","type":"Tab"},{"children":["tab.b.view"],"id":"tab.b","kind":"stack"},{"id":"tab.b\#
        .view","type":"Tab"},{"children":["tab.a","tab.b"],"id":"tabs","kind":"tabs"}],"root":"app"}},"v":5}
        """#

    /// What the session of ``golden`` holds against its bounds.
    static let goldenUsage = SessionUsage(screens: 10, uiBytes: 553, attachments: 8, outboxCommands: 9, outboxBytes: 1129)

    /// ``golden`` as today's flowd writes it: its usage last before `v`.
    static let todays = String(golden.dropLast(#","v":5}"#.count))
        + #","usage":{"attachments":8,"outbox_bytes":1129,"outbox_commands":9,"screens":10,"ui_bytes":553},"v":5}"#

    /// The session whose state ``golden`` holds.
    func goldenSession() -> DaemonHarness {
        let harness = DaemonHarness(journaling: true)
        harness.presenter(tui, name: "tui")
        harness.hello(movies, .stepper, name: "movies", serves: ["home", "detail", "settings", "tab"])
        harness.hello(Peers.flowctl, .operator, name: "ops")
        harness.report(tui, [("app", .visible), ("home", .visible)])
        harness.step(movies, Step("openDetail", payload: 7), attachment: 2, req: 10)
        harness.deepLink(Peers.flowctl, Step("openSettings"), req: 3)
        harness.deepLink(Peers.flowctl, Step("openTabs"), req: 4)
        return harness
    }

    @Test("Today's state record is read back the same by the fast reader and by JSONDecoder, and written again as is")
    func todaysStateRecordIsReadTheSameByBothReaders() throws {
        let harness = goldenSession()
        harness.core.compactJournal()
        let written = try #require(
            harness.core.journalHistory.first { (try? JournalRecord(decoding: $0))?.startsSession == true })
        #expect(String(decoding: written, as: UTF8.self) == Self.todays, "the format is unchanged")
        let usage = Self.goldenUsage
        #expect(harness.core.sessionUsageMax == usage)
        let today = try JournalRecord(decoding: written)
        #expect(today.encoded == written)
        guard case .state(let todaysState, let app, .compositeLeaves, let readUsage) = today.kind else {
            throw StateMissing()
        }
        #expect(app == nil && readUsage == usage)
        #expect(StateRecordReader.read(written)?.fields["usage"] != nil)
        #expect(StateRecordHeader(written)?.usage == usage, "read from the record's end")
        #expect(StateRecordHeader(Array(Self.golden.utf8))?.usage == nil, "a record before the field: none")
        #expect(StateRecordHeader(Array(Self.golden.utf8))?.session == "default")

        let bytes = Array(Self.golden.utf8)
        let fields = try #require(FastJSONReader.value(bytes), "the fast reader reads it")
        guard case .object(let members) = fields else { throw StateMissing() }
        let fast = try JSONValueDecoder.decode(SessionState.self, from: try #require(members["state"]))
        let slow = try JournalRecord.decodeJSON(JournalRecord.StateBody.self, bytes).state
        #expect(fast == slow)
        let direct = try #require(StateRecordReader.read(bytes), "the state record reader reads it")
        #expect(direct.state == slow)
        #expect(todaysState == slow)
        #expect(direct.fields == ["kind": "state", "session": "default", "v": 5])
        // A record before the `usage` field: read without it, written back as it was read.
        let record = try JournalRecord(decoding: bytes)
        #expect(record == JournalRecord(session: "default", kind: .state(slow, app: nil)))
        #expect(record.encoded == bytes)
        // The same record as a flowd before format version 5 wrote it: read as such, written back as it was read.
        let older = Array(bytes.dropLast(2)) + Array("3}".utf8)
        let olderRecord = try JournalRecord(decoding: older)
        #expect(
            olderRecord == JournalRecord(session: "default", kind: .state(slow, app: nil, numbering: .wholeComposites)))
        #expect(olderRecord.encoded == older)
        #expect(StateRecordReader.read(older)?.state == slow)
        #expect(fast.ui == harness.core.ui(of: "default"))

        // With an application version the record starts with `app`: still read directly.
        let versioned = JournalRecord(session: "default", kind: .state(slow, app: "movies-1"))
        let versionedBytes = versioned.encoded
        #expect(StateRecordReader.read(versionedBytes)?.fields["app"] == "movies-1")
        #expect(StateRecordReader.read(versionedBytes)?.state == slow)
        #expect(try JournalRecord(decoding: versionedBytes) == versioned)
    }

    @Test("A state record the fast reader does not cover (an escaped string, a double) is read by JSONDecoder")
    func aStateRecordWithEscapesOrDoublesIsStillRead() throws {
        guard case .state(var state, _, _, _) = try JournalRecord(decoding: Array(Self.golden.utf8)).kind else {
            throw StateMissing()
        }
        _ = try state.ui.apply(.push(.view("odd", type: "Odd", data: ["title": "a \"quoted\" one", "rating": 4.5]), onto: "app"))
        let written = JournalRecord(session: "default", kind: .state(state, app: nil)).encoded
        #expect(FastJSONReader.value(written) == nil, "left to JSONDecoder")
        #expect(StateRecordReader.read(written) == nil)
        #expect(try JournalRecord(decoding: written) == JournalRecord(session: "default", kind: .state(state, app: nil)))
    }

    @Test("A state record is written by hand with JSONEncoder's bytes, and left to JSONEncoder for a double")
    func theStateWriterWritesJSONEncodersBytes() throws {
        guard case .state(var state, _, _, _) = try JournalRecord(decoding: Array(Self.golden.utf8)).kind else {
            throw StateMissing()
        }
        func jsonEncoder(_ state: SessionState, app: String?) -> [UInt8] {
            JournalRecord.encodeJSON(JournalRecord.StateBody(session: "default", state: state, app: app))
        }
        #expect(StateRecordWriter.write(session: "default", state: state, app: nil) == Array(Self.golden.utf8))
        // Every optional part of a node and of the state, escapes and non-ASCII text, an application version.
        _ = try state.ui.apply(.present(Screen(id: "split/1", kind: .split, type: "Pair"), over: "home"))
        _ = try state.ui.apply(.showMaster("split/1", .view("m\"1\"", type: "M", data: ["é": ["a": 1, "b": [true, .null]]])))
        _ = try state.ui.apply(.showDetail("split/1", .view("d\n1", type: "Détail")))
        _ = try state.ui.apply(.setTabs("tabs", [.stack("tab.a"), .stack("tab.b")], selected: 1))
        state.awaitedReports = [.init(presentable: "gone\t", count: 2), .init(presentable: "x", count: 1)]
        state.remoteAttachments[0].context = ["path": "/a/b", "n": -3, "s": "\u{1}"]
        state.seq = 1 << 40
        let big = SessionUsage(
            screens: 20_000, uiBytes: 1 << 40, attachments: 0, outboxCommands: 1024, outboxBytes: Int(Int32.max))
        for app in [nil, "movies-1"] {
            for usage in [nil, Self.goldenUsage, big] {
                let written = try #require(
                    StateRecordWriter.write(session: "s/\"1\"", state: state, app: app, usage: usage))
                let expected = JournalRecord.encodeJSON(
                    JournalRecord.StateBody(session: "s/\"1\"", state: state, app: app, usage: usage))
                #expect(String(decoding: written, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
                #expect(
                    try JournalRecord(decoding: written)
                        == JournalRecord(session: "s/\"1\"", kind: .state(state, app: app, usage: usage)))
                let plain = try #require(StateRecordWriter.write(session: "s1", state: state, app: app, usage: usage))
                #expect(StateRecordHeader(plain)?.usage == usage, "\(String(describing: usage))")
            }
        }
        #expect(jsonEncoder(state, app: nil) == JournalRecord(session: "default", kind: .state(state, app: nil)).encoded)

        // A double is JSONEncoder's to format: the whole record is its.
        _ = try state.ui.apply(.push(.view("rated", type: "Rated", data: ["rating": 4.5]), onto: "app"))
        #expect(StateRecordWriter.write(session: "default", state: state, app: nil) == nil)
        #expect(JournalRecord(session: "default", kind: .state(state, app: nil)).encoded == jsonEncoder(state, app: nil))
    }

    /// The golden record with its `ui` replaced by `ui`.
    func golden(ui: String) throws -> [UInt8] {
        let text = Self.golden
        let start = try #require(text.range(of: #""ui":{"#))
        let end = try #require(text.range(of: #"}},"v":5}"#, options: .backwards))
        return Array((text[..<start.lowerBound] + #""ui":"# + ui + text[end.lowerBound...].dropFirst()).utf8)
    }

    @Test("A state whose UI model is in the first format, or with a repeated key, is read the general way")
    func theFirstUIFormatAndRepeatedKeysAreReadTheGeneralWay() throws {
        let first = #"{"nodes":[{"id":"app","node":{"children":[],"placement":{"window":{}},"#
            + #""screen":{"data":null,"id":"app","kind":"stack","type":"stack"},"selectedTab":0}}],"root":"app"}"#
        let bytes = try golden(ui: first)
        #expect(StateRecordReader.read(bytes) == nil)
        guard case .state(let state, _, _, _) = try JournalRecord(decoding: bytes).kind else { throw StateMissing() }
        var expected = PresentationModel()
        _ = try expected.apply(.setRoot(.stack("app")))
        #expect(state.ui == expected)

        let repeated = try golden(ui: #"{"nodes":[{"id":"app","kind":"stack","kind":"stack"}],"root":"app"}"#)
        #expect(StateRecordReader.read(repeated) == nil)
        guard case .state(let again, _, _, _) = try JournalRecord(decoding: repeated).kind else { throw StateMissing() }
        #expect(again.ui == expected)
    }

    @Test(
        "A saved UI that contradicts itself is refused by the state record reader and by JSONDecoder alike",
        arguments: [
            #"{"nodes":[{"id":"nav","kind":"stack"},{"id":"lost","type":"Movie"}],"root":"nav"}"#,
            #"{"nodes":[{"children":["a","a"],"id":"nav","kind":"stack"},{"id":"a"}],"root":"nav"}"#,
            #"{"nodes":[{"children":["gone"],"id":"nav","kind":"stack"}],"root":"nav"}"#,
            #"{"nodes":[{"children":["nav"],"id":"nav","kind":"stack"}],"root":"nav"}"#,
            #"{"nodes":[{"children":["a"],"id":"nav","kind":"stack"},{"id":"a","presented":"nav"}],"root":"nav"}"#,
            #"{"nodes":[{"id":"nav","kind":"stack"}],"root":"other"}"#,
            #"{"nodes":[{"id":"nav","kind":"stack"}]}"#,
        ])
    func aContradictorySavedUIIsRefused(ui: String) throws {
        let bytes = try golden(ui: ui)
        #expect(StateRecordReader.read(bytes) == nil)
        #expect(throws: JournalRecord.DecodingFailure.self) { try JournalRecord(decoding: bytes) }
    }

    @Test("Saved screens in any order, children before parents, make the same model by both readers")
    func savedScreensInAnyOrderMakeTheSameModel() throws {
        let ui = #"{"nodes":[{"id":"movie.7","type":"Movie"},{"id":"alert","kind":"alert"},"#
            + #"{"children":["home","movie.7"],"id":"nav","kind":"stack","presented":"alert"},{"id":"home"}],"root":"nav"}"#
        let bytes = try golden(ui: ui)
        let direct = try #require(StateRecordReader.read(bytes))
        let slow = try JournalRecord.decodeJSON(JournalRecord.StateBody.self, bytes).state
        #expect(direct.state.ui == slow.ui)
        var expected = PresentationModel()
        _ = try expected.apply(.setRoot(.stack("nav")))
        _ = try expected.apply(.push(Screen(id: "home"), onto: "nav"))
        _ = try expected.apply(.push(.view("movie.7", type: "Movie"), onto: "nav"))
        _ = try expected.apply(.present(Screen(id: "alert", kind: .alert), over: "nav"))
        #expect(direct.state.ui == expected)
    }
}
