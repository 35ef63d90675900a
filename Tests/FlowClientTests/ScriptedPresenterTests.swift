import FlowClient
import FlowClientTesting
import FlowCore
import FlowWire
import Synchronization
import Testing

/// ``ScriptedPresenter/run(_:logger:gracefulShutdownSignals:)`` against a fake daemon: the visible line and each step
/// done are printed in order, the run ends when the steps are done and leaves (`BYE`), and a step the daemon refuses
/// ends it with `stepFailed`, a `SYNC` the daemon refuses ends it with that refusal, and a session the daemon ends
/// ends it as `sessionEnded`. No timeout: every wait ends when the awaited message comes.
@Suite(.timeLimit(.minutes(1)))
struct ScriptedPresenterTests {
    /// The lines a scripted presenter printed.
    final class Printed: Sendable {
        private let lines = Mutex<[String]>([])
        var all: [String] { lines.withLock { $0 } }
        func print(_ line: String) { lines.withLock { $0.append(line) } }
    }

    static func userAction(_ daemon: FakeDaemon, from peer: [UInt8]) async throws -> UserAction {
        try await daemon.expect("USER_ACTION", from: peer) { message -> UserAction? in
            if case .userAction(let body) = message { body } else { nil }
        }.1
    }

    @Test func theStepsAreCarriedOutAsTheUIAllowsPrintedAndThePresenterLeaves() async throws {
        try await FakeDaemon.with(logger: testLogger) { daemon in
            let presenter = PresenterClient(name: "tui", configuration: daemon.configuration())
            let printed = Printed()
            let scripted = ScriptedPresenter(
                script: try PresenterScript(parsing: ["wait:home", "action:home:open:7", "gone:nowhere"]), timeout: nil,
                output: printed.print)
            async let outcome = scripted.run(presenter, logger: testLogger, gracefulShutdownSignals: [])
            let (peer, _, _) = try await PresenterClientTests.syncWithSnapshot(daemon)
            let action = try await Self.userAction(daemon, from: peer)
            #expect(action.presentable == "home")
            #expect(action.action == Step("open", payload: 7))
            try await daemon.send(.ok(OKReply(req: action.req, result: ["delivered": 1])), to: peer)

            #expect(try await outcome == .finished)
            #expect(
                printed.all == [
                    "visible: app, home", "done: wait:home", "done: action:home:open:7 (delivered 1)",
                    "done: gone:nowhere",
                ])
            _ = try await daemon.expect("BYE", from: peer) { $0.isBye ? true : nil }
        }
    }

    @Test func aStepTheDaemonRefusesEndsTheRunWithStepFailed() async throws {
        try await FakeDaemon.with(logger: testLogger) { daemon in
            let presenter = PresenterClient(name: "tui", configuration: daemon.configuration())
            let printed = Printed()
            let scripted = ScriptedPresenter(
                script: try PresenterScript(parsing: ["action:home:fly", "wait:home"]), timeout: nil,
                output: printed.print)
            async let outcome = scripted.run(presenter, logger: testLogger, gracefulShutdownSignals: [])
            let (peer, _, _) = try await PresenterClientTests.syncWithSnapshot(daemon)
            let action = try await Self.userAction(daemon, from: peer)
            try await daemon.send(
                .error(ErrorReply(req: action.req, code: .unknownAction, message: "no fly", type: "USER_ACTION")),
                to: peer)

            do {
                let ended = try await outcome
                Issue.record("the run ended \(ended) instead of failing")
            } catch let error as PresenterScriptError {
                #expect(error.code == .stepFailed)
                #expect(error.message.hasPrefix("action:home:fly failed: "), "\(error.message)")
            }
            #expect(printed.all == ["visible: app, home"])
        }
    }

    /// An operator's `END_SESSION` mid-script (the empty `SNAPSHOT`, then the notice `sessionEnded`, docs/PROTOCOL.md
    /// §4) ends the run at once as `sessionEnded`, with steps left or without steps: it used to wait out the timeout
    /// (here none: the run would never end) with nothing left to host.
    @Test(arguments: [[], ["wait:home", "wait:never"]])
    func aSessionTheDaemonEndsEndsTheRunAtOnce(steps: [String]) async throws {
        try await FakeDaemon.with(logger: testLogger) { daemon in
            let presenter = PresenterClient(name: "tui", configuration: daemon.configuration())
            let printed = Printed()
            let scripted = ScriptedPresenter(
                script: try PresenterScript(parsing: steps), timeout: nil, output: printed.print)
            async let outcome = scripted.run(presenter, logger: testLogger, gracefulShutdownSignals: [])
            let (peer, _, _) = try await PresenterClientTests.syncWithSnapshot(daemon)
            let empty = SnapshotMessage(session: "default", seq: 3, ui: UISnapshot(PresentationModel()))
            try await daemon.send(.snapshot(empty), to: peer)
            try await daemon.send(
                .error(ErrorReply(req: nil, code: .sessionEnded, message: "ended", type: "END_SESSION")), to: peer)

            #expect(try await outcome == .sessionEnded)
            let done = steps.isEmpty ? [] : ["done: wait:home"]
            #expect(printed.all == ["visible: app, home"] + done + ["visible: "])
            #expect(
                scripted.failure(of: .sessionEnded)
                    == "flowd ended the session (sessionEnded)" + (steps.isEmpty ? "" : " before the steps completed"))
            // After the empty SNAPSHOT's ACK.
            _ = try await daemon.serve(until: "BYE", from: peer) { $0.isBye ? true : nil }
        }
    }

    /// Out of time with the `SNAPSHOT` flowd announced not come, the failure names the client's largest message
    /// (one larger never comes), not a silent daemon.
    @Test func aSnapshotThatDidNotComeIsNamedWithTheLargestMessage() throws {
        let scripted = ScriptedPresenter(script: try PresenterScript(parsing: ["wait:home"]), timeout: .seconds(5))
        #expect(
            scripted.failure(of: .snapshotNotReceived(maxMessageSize: 128 << 20))
                == "the session's SNAPSHOT that flowd announced did not come within 5.0 s: one larger than this "
                + "client's largest message (128 MiB) never comes, as its connection drops it")
        #expect(scripted.failure(of: .snapshotNotReceived(maxMessageSize: 1000))?.contains("(1000 bytes)") == true)
    }

    /// A refused `SYNC` (here `unknownSession`) is thrown, with steps or without: without, it used to end the run as
    /// `stopped`, the normal end of a script without steps, so `flowctl present --session nosuch` exited 0.
    @Test(arguments: [[], ["wait:home"]])
    func aSyncTheDaemonRefusesEndsTheRunWithTheRefusal(steps: [String]) async throws {
        try await FakeDaemon.with(logger: testLogger) { daemon in
            let presenter = PresenterClient(name: "tui", session: "nosuch", configuration: daemon.configuration())
            let printed = Printed()
            let scripted = ScriptedPresenter(
                script: try PresenterScript(parsing: steps), timeout: nil, output: printed.print)
            async let outcome = scripted.run(presenter, logger: testLogger, gracefulShutdownSignals: [])
            let (peer, _) = try await daemon.acceptHello(heartbeatMs: 60_000, keepingAlive: true)
            let (_, sync) = try await daemon.expect("SYNC", from: peer) { $0.sync }
            try await daemon.send(
                .error(ErrorReply(req: sync.req, code: .unknownSession, message: "no session 'nosuch'", type: "SYNC")),
                to: peer)

            do {
                let ended = try await outcome
                Issue.record("the run ended \(ended) instead of failing")
            } catch let error as DaemonError {
                #expect(error.code == .unknownSession)
            }
            #expect(printed.all.isEmpty)
        }
    }
}
