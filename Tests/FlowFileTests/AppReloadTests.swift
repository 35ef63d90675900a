import FlowCore
import FlowDaemon
import FlowFile
import FlowWire
import FlowdTesting
import Foundation
import Testing

/// The application's file read again (SIGHUP, here ``EmbeddedDaemon/reloadApplication(from:)``): new sessions get the
/// new version, running ones keep theirs, through journal replay and state snapshots alike; a file that does not
/// check is refused and counted; a session whose version is not kept does not start.
final class AppReloadTests {
    /// Version `n` of an application: `start` shows `home.<n>`, `go` and `more` (deep-linkable) push `page.<n>` and
    /// `more.<n>`.
    static func app(_ n: Int) -> String {
        """
        flowfile: 1
        app: versions
        root: {flow: main, stepper: {one: start}}
        steps:
          start: {}
          go: {deepLink: true, summary: version \(n)}
          more: {deepLink: true}
        flows:
          main:
            root: {id: main, kind: stack}
            screens:
              home: {id: home.\(n)}
              page: {id: page.\(n)}
              more: {id: more.\(n)}
            navigate:
              start:
                commands:
                  - setStack: [home]
              go:
                commands:
                  - push: page
              more:
                commands:
                  - push: more
        """
    }

    let folder: URL
    let path: String
    let source: AppVersionSource
    var daemon: EmbeddedDaemon!
    var operatorPeer: PeerAddress!
    var lastReq: UInt64 = 0

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("app-reload-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        path = folder.appendingPathComponent("app.flows.yaml").path
        source = flowFileSource(path: path)
        try write(Self.app(1))
        daemon = EmbeddedDaemon(
            application: DefaultApplication(), appVersion: try source.read(), journaling: true)
        connectOperator()
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    func write(_ text: String) throws { try Data(text.utf8).write(to: URL(fileURLWithPath: path)) }

    func connectOperator() {
        operatorPeer = daemon.newPeerAddress()
        lastReq += 1
        daemon.receive(
            .hello(Hello(req: lastReq, role: .operator, name: "flowctl", instance: "op-\(lastReq)", heartbeatMs: 1000)),
            from: operatorPeer)
    }

    enum Reply<T> {
        case ok(T)
        case error(ErrorReply)

        var ok: T? {
            if case .ok(let value) = self { value } else { nil }
        }
    }

    /// Sends an operator request; returns the reply's result as `T`, or the error.
    func request<T: WireResult>(_ type: T.Type, _ message: (UInt64) -> ClientMessage) -> Reply<T>? {
        lastReq += 1
        let req = lastReq
        for reply in daemon.receive(message(req), from: operatorPeer).to(operatorPeer) {
            switch reply {
            case .ok(let ok) where ok.req == req:
                return (try? ok.result(as: T.self)).map { .ok($0) }
            case .error(let error) where error.req == req:
                return .error(error)
            default:
                continue
            }
        }
        return nil
    }

    var health: HealthReport? { request(HealthReport.self) { ClientMessage.health(PlainRequest(req: $0)) }?.ok }

    func counter(_ name: String) -> Int? {
        guard case .object(let counters)? = health?.counters else { return nil }
        return counters[name]?.intValue
    }

    func describe(_ session: String?) -> Reply<ApplicationVocabulary>? {
        request(ApplicationVocabulary.self) { ClientMessage.describe(DescribeRequest(req: $0, session: session)) }
    }

    func createSession(_ id: String) {
        _ = request(CreateSessionResult.self) { ClientMessage.createSession(SessionRequest(req: $0, session: id)) }
    }

    func go(_ session: String, _ step: String = "go") {
        _ = request(DeepLinkResult.self) {
            ClientMessage.deepLink(DeepLinkRequest(req: $0, session: session, step: Step(step)))
        }
    }

    func screens(_ session: String) -> [PresentableID] { daemon.ui(of: session)?.presentables ?? [] }

    var v1: String { AppVersion.id(of: Array(Self.app(1).utf8)) }
    var v2: String { AppVersion.id(of: Array(Self.app(2).utf8)) }

    /// Reloads version 2 and creates session `new` with it; `default` runs version 1.
    func reloadAndCreate() throws {
        try write(Self.app(2))
        daemon.reloadApplication(from: source)
        createSession("new")
    }

    @Test func newSessionsGetTheNewVersionAndRunningOnesKeepTheirs() throws {
        #expect(health?.appVersion == v1)
        #expect(counter("app_reloads") == 0)
        try reloadAndCreate()
        #expect(health?.appVersion == v2)
        #expect(counter("app_reloads") == 1)
        #expect(counter("app_reloads_refused") == 0)
        go("default")
        go("new")
        #expect(screens("default") == ["main", "home.1", "page.1"])
        #expect(screens("new") == ["main", "home.2", "page.2"])
        #expect(describe("default")?.ok?.appVersion == v1)
        #expect(describe("new")?.ok?.appVersion == v2)
        #expect(describe(nil)?.ok?.appVersion == v2)
        #expect(describe(nil)?.ok?.steps.map(\.summary) == ["", "version 2", ""])
        #expect(describe("default")?.ok?.steps.map(\.summary) == ["", "version 1", ""])
        guard case .error(let error)? = describe("nobody") else {
            Issue.record("DESCRIBE of an unknown session was not refused")
            return
        }
        #expect(error.code == .unknownSession)
    }

    @Test func theSameFileReadAgainChangesNothing() throws {
        daemon.reloadApplication(from: source)
        #expect(health?.appVersion == v1)
        #expect(counter("app_reloads") == 0)
        #expect(counter("app_reloads_refused") == 0)
    }

    @Test func aFileThatDoesNotCheckIsRefusedCountedAndTheOldVersionKept() throws {
        try write(Self.app(2).replacingOccurrences(of: "push: page", with: "push: nowhere"))
        daemon.reloadApplication(from: source)
        try FileManager.default.removeItem(atPath: path)
        daemon.reloadApplication(from: source)
        #expect(health?.appVersion == v1)
        #expect(counter("app_reloads") == 0)
        #expect(counter("app_reloads_refused") == 2)
        createSession("new")
        go("new")
        #expect(screens("new") == ["main", "home.1", "page.1"])
    }

    @Test func aRestartReplayingTheJournalKeepsEachSessionsVersion() throws {
        try reloadAndCreate()
        try daemon.restart()
        connectOperator()
        go("default")
        go("new")
        #expect(screens("default") == ["main", "home.1", "page.1"])
        #expect(screens("new") == ["main", "home.2", "page.2"])
        #expect(health?.appVersion == v2)
    }

    @Test func aRestartFromAStateSnapshotKeepsEachSessionsVersion() throws {
        try reloadAndCreate()
        go("default")
        go("new")
        #expect(daemon.compactJournal().saved == 2)
        #expect(daemon.journalHistory.contains { String(decoding: $0, as: UTF8.self).contains(#""app":"\#(v1)""#) })
        try daemon.restart()
        connectOperator()
        go("default", "more")
        go("new", "more")
        #expect(screens("default") == ["main", "home.1", "page.1", "more.1"])
        #expect(screens("new") == ["main", "home.2", "page.2", "more.2"])
        #expect(describe("default")?.ok?.appVersion == v1)
    }

    @Test func aRestartWithAnotherFileStillRunsEachSessionWithItsVersion() throws {
        try reloadAndCreate()
        try write(Self.app(3))
        try daemon.restart(appVersion: try source.read())
        connectOperator()
        createSession("third")
        for session in ["default", "new", "third"] { go(session) }
        #expect(screens("default") == ["main", "home.1", "page.1"])
        #expect(screens("new") == ["main", "home.2", "page.2"])
        #expect(screens("third") == ["main", "home.3", "page.3"])
    }

    @Test func aSessionWhoseVersionIsNotKeptStopsTheStart() throws {
        try reloadAndCreate()
        daemon.keptAppVersions[v1] = nil
        #expect {
            try daemon.restart(appVersion: daemon.keptAppVersions[v2])
        } throws: { error in
            guard let error = error as? RecoveryError else { return false }
            return error.code == .missingAppVersion
                && error.message.contains("session 'default' runs the application version \(v1)")
                && error.message.contains("apps/\(v1).flows.yaml")
        }
    }

    @Test func aJournalWrittenBeforeVersionsRunsTheFileGivenAtStart() throws {
        // Records as a flowd before versions wrote them: no `app` in the session record.
        let old: [[UInt8]] = [
            Array(#"{"daemon":"old","kind":"daemon"}"#.utf8), Array(#"{"kind":"session","session":"default"}"#.utf8),
        ]
        try write(Self.app(2))
        try daemon.restart(journal: old, appVersion: try source.read())
        connectOperator()
        #expect(describe("default")?.ok?.appVersion == v2)
        // The next snapshot names the version, so a restart with another file keeps the session on it.
        #expect(daemon.compactJournal().saved == 1)
        try write(Self.app(3))
        try daemon.restart(appVersion: try source.read())
        connectOperator()
        go("default")
        #expect(screens("default") == ["main", "home.2", "page.2"])
        #expect(describe("default")?.ok?.appVersion == v2)
    }

    @Test func anApplicationGivenAsCodeCannotRecoverASessionThatNamesAVersion() throws {
        let journal = daemon.journalHistory
        let code = EmbeddedDaemon(application: DefaultApplication(), journaling: true)
        #expect {
            try code.restart(journal: journal)
        } throws: { error in
            (error as? RecoveryError)?.code == .missingAppVersion
        }
    }
}

/// An application given as code, with nothing in it.
struct DefaultApplication: FlowApplication {
    func makeRoot(session: String) -> FlowRoot { FlowRoot(flow: EmptyFlow(), stepper: DefaultStepper()) }
}

final class EmptyFlow: Flow {
    let root = Screen(id: "empty")
    func navigate(to step: Step, with navigator: Navigator) -> FlowContributors { .none }
}

/// The stock flowd's source of a flow file (Sources/flowd/main.swift).
func flowFileSource(path: String) -> AppVersionSource {
    AppVersionSource(path: path) { text, file, version throws(AppVersionError) in
        do throws(FlowFileErrors) {
            return FileApplication(try FlowFile.parse(text, file: file), appVersion: version)
        } catch {
            throw AppVersionError(error.diagnostics.map(\.description))
        }
    }
}
