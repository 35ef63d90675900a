#if canImport(Glibc)
import Glibc
#endif
import FlowClient
import FlowClientTesting
import FlowCore
import FlowWire
import Synchronization
import Testing

/// The clients' handler APIs, which run on the client's I/O thread with no task in between: a presenter's
/// `run(onChange:)` and a stepper's `emit(_:for:onVerdict:)`, against a fake daemon.
@Suite(.timeLimit(.minutes(1)))
struct ClientHandlerTests {
    /// The name of the thread running the caller (a client's I/O thread is `flowd-client`), from
    /// `/proc/thread-self/comm`.
    static func currentThreadName() -> String {
        let file = open("/proc/thread-self/comm", O_RDONLY)
        guard file >= 0 else { return "?" }
        defer { close(file) }
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = buffer.withUnsafeMutableBytes { read(file, $0.baseAddress, $0.count) }
        guard count > 0 else { return "?" }
        return String(decoding: buffer[..<count], as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
    }

    /// What a handler saw: each change (or verdict) with the thread it was handed on, and a wake-up per call.
    final class Seen<Value: Sendable>: Sendable {
        let calls = Mutex<[(value: Value, thread: String)]>([])
        let wakeUps: AsyncStream<Void>
        private let wake: AsyncStream<Void>.Continuation

        init() { (wakeUps, wake) = AsyncStream.makeStream() }

        func record(_ value: Value) {
            calls.withLock { $0.append((value, ClientHandlerTests.currentThreadName())) }
            wake.yield()
        }

        /// Waits until `done` holds of the calls so far.
        func wait(for what: String, until done: @escaping @Sendable ([Value]) -> Bool) async throws -> [Value] {
            try await withDeadline(what) { [self] in
                var wakeUps = wakeUps.makeAsyncIterator()
                while true {
                    let values = calls.withLock { $0.map(\.value) }
                    if done(values) { return values }
                    guard await wakeUps.next() != nil else { return values }
                }
            }
        }

        var threads: [String] { calls.withLock { $0.map(\.thread) } }
    }

    @Test func onChangeGetsEveryChangeInTheStreamsOrderOnTheIOThread() async throws {
        try await FakeDaemon.with(logger: testLogger) { daemon in
            let presenter = PresenterClient(name: "tui", configuration: daemon.configuration())
            let changes = presenter.changes()
            let seen = Seen<PresenterChange>()
            try await whileRunning({ try await presenter.run { change in seen.record(change) } }) {
                let (peer, _, _) = try await PresenterClientTests.syncWithSnapshot(daemon)
                try await daemon.send(
                    PresenterClientTests.command(4, .push(.view("detail", type: "Detail"), onto: "app")), to: peer)
                try await daemon.send(
                    PresenterClientTests.command(5, .push(.view("more", type: "More"), onto: "app")), to: peer)
                _ = try await daemon.serve(until: "ACK 5", from: peer) { $0.ack?.seq == 5 ? true : nil }
                #expect(try await PresenterClientTests.appliedSeqs(in: changes, through: 5) == [4, 5])

                let handed = try await seen.wait(for: "changes through seq 5") { $0.last?.lastSeq == 5 }
                #expect(handed.first?.cause == .snapshot(seq: 3))
                let applied = handed.dropFirst().flatMap { change -> [UInt64] in
                    guard case .commands(let commands) = change.cause else { return [] }
                    return commands.map(\.seq)
                }
                #expect(applied == [4, 5])
                #expect(handed.last?.model == presenter.model)
                #expect(seen.threads.allSatisfy { $0 == "flowd-client" })
            }
        }
    }

    @Test func aPersonsOperationReachesOnChangeAfterTheCommandsBeforeIt() async throws {
        try await FakeDaemon.with(logger: testLogger) { daemon in
            let presenter = PresenterClient(name: "tui", configuration: daemon.configuration())
            let seen = Seen<PresenterChange>()
            try await whileRunning({ try await presenter.run { change in seen.record(change) } }) {
                let (peer, _, _) = try await PresenterClientTests.syncWithSnapshot(daemon)
                try await daemon.send(
                    PresenterClientTests.command(4, .push(.view("detail", type: "Detail"), onto: "app")), to: peer)
                _ = try await daemon.serve(until: "ACK 4", from: peer) { $0.ack?.seq == 4 ? true : nil }
                let (_, pushReport) = try await daemon.expect("REPORT after push", from: peer) { $0.report }
                try await daemon.send(.ok(OKReply(req: pushReport.req)), to: peer)

                async let back: Void = presenter.tapBack(in: "app")
                let (_, report) = try await daemon.expect("REPORT after back", from: peer) { $0.report }
                try await daemon.send(.ok(OKReply(req: report.req)), to: peer)
                try await back

                let handed = try await seen.wait(for: "the operation's change") { $0.count == 3 }
                #expect(handed.map(\.cause) == [
                    .snapshot(seq: 3),
                    .commands([CommandMessage(
                        session: "default", seq: 4, command: .push(.view("detail", type: "Detail"), onto: "app"))]),
                    .userOperation(.tapBack(stack: "app")),
                ])
                #expect(handed.last?.model.children(of: "app") == ["home"])
            }
        }
    }

    @Test func aRefusedSyncEndsRunWithOnChangeWithTheDaemonsError() async throws {
        try await FakeDaemon.with(logger: testLogger) { daemon in
            let presenter = PresenterClient(name: "tui", configuration: daemon.configuration())
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    let ended: Bool = try await withDeadline("run(onChange:) ends") {
                        await #expect(throws: DaemonError(code: .sessionHosted, message: "")) {
                            try await presenter.run { _ in }
                        }
                        return true
                    }
                    #expect(ended)
                }
                let (peer, _) = try await daemon.acceptHello()
                let (_, sync) = try await daemon.expect("SYNC", from: peer) { $0.sync }
                try await daemon.send(
                    .error(ErrorReply(req: sync.req, code: .sessionHosted, message: "tui-2 hosts it", type: "SYNC")),
                    to: peer)
                try await group.waitForAll()
            }
        }
    }

    @Test func onVerdictGetsEachOutcomeOnceOnTheIOThread() async throws {
        try await FakeDaemon.with(logger: testLogger) { daemon in
            let client = StepperClient(name: "movies", serves: ["movies.detail"], configuration: daemon.configuration())
            let seen = Seen<Result<StepOutcome, any Error>>()
            try await whileRunning(client.run) {
                let (peer, _) = try await daemon.acceptHello()
                try await daemon.send(StepperClientTests.attach(12), to: peer)
                var events = client.events.makeAsyncIterator()
                guard case .attached(let attachment)? = await events.next() else {
                    Issue.record("expected attached(12)")
                    return
                }

                client.emit(Step("castIsPicked", payload: 4), for: attachment) { seen.record($0) }
                let (_, first) = try await daemon.expect("STEP", from: peer) { $0.step }
                #expect(first.attachment == 12)
                #expect(first.step == Step("castIsPicked", payload: 4))
                try await daemon.send(.ok(OKReply(req: first.req, result: ["accepted": true])), to: peer)
                _ = try await seen.wait(for: "the first verdict") { $0.count == 1 }

                client.emit(Step("castIsPicked", payload: 5), for: attachment) { seen.record($0) }
                let (_, second) = try await daemon.expect("STEP", from: peer) { $0.step }
                try await daemon.send(
                    .ok(OKReply(req: second.req, result: ["accepted": false, "reason": "notVisible"])), to: peer)
                _ = try await seen.wait(for: "the second verdict") { $0.count == 2 }

                client.emit(Step("castIsPicked"), for: attachment) { seen.record($0) }
                let (_, third) = try await daemon.expect("STEP", from: peer) { $0.step }
                try await daemon.send(
                    .error(
                        ErrorReply(
                            req: third.req, code: .unknownAttachment, message: "attachment 12 is gone", type: "STEP")),
                    to: peer)
                let verdicts = try await seen.wait(for: "the third verdict") { $0.count == 3 }

                #expect(try verdicts[0].get() == .accepted)
                #expect(try verdicts[1].get() == .dropped(.notVisible))
                #expect(throws: DaemonError(code: .unknownAttachment, message: "")) { try verdicts[2].get() }
                #expect(seen.threads == ["flowd-client", "flowd-client", "flowd-client"])

                // NoneStep never leaves the process: its verdict comes at once, on the caller's thread.
                let none = Mutex<StepOutcome?>(nil)
                client.emit(.none, for: attachment) { result in none.withLock { $0 = try? result.get() } }
                #expect(none.withLock { $0 } == .dropped(.noneStep))
            }
        }
    }

    @Test func onVerdictGetsTimedOutWhenNoVerdictComes() async throws {
        try await FakeDaemon.with(logger: testLogger) { daemon in
            let client = StepperClient(
                name: "movies", serves: ["movies.detail"],
                configuration: daemon.configuration(requestTimeout: .milliseconds(200)))
            let seen = Seen<Result<StepOutcome, any Error>>()
            try await whileRunning(client.run) {
                let (peer, _) = try await daemon.acceptHello()
                try await daemon.send(StepperClientTests.attach(12), to: peer)
                var events = client.events.makeAsyncIterator()
                guard case .attached(let attachment)? = await events.next() else {
                    Issue.record("expected attached(12)")
                    return
                }
                client.emit(Step("castIsPicked"), for: attachment) { seen.record($0) }
                _ = try await daemon.expect("STEP", from: peer) { $0.step }
                let verdicts = try await seen.wait(for: "the expiry") { $0.count == 1 }
                #expect(throws: FlowClientError(.timedOut, "")) { try verdicts[0].get() }
            }
        }
    }
}
