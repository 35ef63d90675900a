#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FlowCore
@testable import FlowDaemon
import FlowWire
import Foundation
import Logging
import SystemPackage
import TestFlows
import Testing

/// A journal that cannot be written (a full disk, injected as `ENOSPC`): the daemon keeps serving what needs no write,
/// refuses state changes with `journalUnavailable`, holds what it has not written yet, retries with back-off in its
/// own clock, and once writes succeed again sends what it held; nothing acknowledged is lost.
struct JournalUnavailableTests {
    private static let quiet = Logger(label: "JournalUnavailableTests", factory: { _ in SwiftLogNoOpLogHandler() })
    private let ops = PeerAddress([3])
    private let codec = WireCodec()

    /// A daemon core with a journal store on a fresh directory, the committer between them, and a clock.
    private final class Rig {
        let root: String
        let store: JournalStore
        var core: DaemonCore
        var committer: JournalCommitter
        var now: UInt64 = 0

        init() throws {
            var template = Array("/tmp/flowd-unavailable-XXXXXX".utf8CString)
            guard let made = mkdtemp(&template) else { throw POSIXError(.EIO) }
            root = String(cString: made)
            store = try JournalStore(
                configuration: JournalConfiguration(directory: root + "/state", fsync: .never), logger: quiet)
            _ = try store.load()
            core = DaemonCore(
                application: TestApplication(), daemonID: "d", logger: quiet, now: 0, journaling: true)
            committer = JournalCommitter(store: store, logger: quiet)
            _ = try committer.commit(core.takeJournal(), outputs: core.start(now: 0), core: &core, now: 0)
            _ = try committer.commit(core.takeJournal(), outputs: [], core: &core, now: 0)
        }

        deinit {
            store.close()
            try? FileManager.default.removeItem(atPath: root)
        }

        /// What goes out now for `message` from `peer`.
        func send(_ message: ClientMessage, from peer: PeerAddress) throws -> [DaemonMessage] {
            let outputs = core.handle(.message(from: peer, frames: WireCodec().encode(message)), now: now)
            return Self.messages(try committer.commit(core.takeJournal(), outputs: outputs, core: &core, now: now))
        }

        func retry(at time: UInt64) throws -> [DaemonMessage] {
            now = time
            return Self.messages(try committer.retryIfDue(core: &core, now: time))
        }

        static func messages(_ outputs: [DaemonOutput]) -> [DaemonMessage] {
            outputs.compactMap { if case .send(_, let message) = $0 { message } else { nil } }
        }
    }

    private func health(_ replies: [DaemonMessage]) -> JSONValue? {
        guard case .ok(let reply)? = replies.first else { return nil }
        return reply.result
    }

    @Test("ENOSPC: reads served, changes refused, the held reply sent once the write succeeds, nothing lost")
    func diskFullIsRiddenOut() throws {
        let rig = try Rig()
        _ = try rig.send(.hello(Hello(req: 1, role: .operator, name: "ops", instance: "i", heartbeatMs: 1000)), from: ops)

        rig.store.simulatedWriteError = .noSpace
        rig.now = 10
        let created = try rig.send(.createSession(SessionRequest(req: 2, session: "kiosk")), from: ops)
        #expect(created.isEmpty, "the reply waits until the record is written")
        #expect(!rig.core.journalAvailable)
        #expect(rig.committer.nextRetry == 10 + JournalCommitter.firstRetryDelay)

        let refused = try rig.send(.createSession(SessionRequest(req: 3, session: "other")), from: ops)
        guard case .error(let error)? = refused.first else {
            Issue.record("expected an ERROR, got \(refused)")
            return
        }
        #expect(error.code == .journalUnavailable)
        #expect(error.req == 3)
        #expect(rig.core.sessionIDs == ["default", "kiosk"], "refused: no effect")

        let degraded = try #require(health(try rig.send(.health(PlainRequest(req: 4)), from: ops)))
        guard case .object(let fields) = degraded, case .object(let journal)? = fields["journal"] else {
            Issue.record("no journal in HEALTH: \(degraded)")
            return
        }
        #expect(fields["status"] == "degraded")
        #expect(journal["available"] == false)
        #expect(rig.core.counters.errors["journalUnavailable"] == 1)

        #expect(try rig.retry(at: 50).isEmpty, "not due yet")
        #expect(try rig.retry(at: 110).isEmpty, "still failing")
        #expect(rig.committer.nextRetry == 110 + 2 * JournalCommitter.firstRetryDelay, "backing off")
        #expect(rig.store.writeFailures == 2)

        rig.store.simulatedWriteError = nil
        let released = try rig.retry(at: 310)
        #expect(released == [.ok(OKReply(req: 2, result: ["created": true]))])
        #expect(rig.core.journalAvailable)
        #expect(rig.committer.nextRetry == nil)
        let healthy = try #require(health(try rig.send(.health(PlainRequest(req: 5)), from: ops)))
        if case .object(let fields) = healthy { #expect(fields["status"] == "ok") }

        // What was acknowledged is in the journal: a daemon restarted from the files has the session.
        rig.store.close()
        let reopened = try JournalStore(
            configuration: JournalConfiguration(directory: rig.root + "/state", fsync: .never), logger: Self.quiet)
        defer { reopened.close() }
        let records = try reopened.load().records
        var recovered = DaemonCore(
            application: TestApplication(), daemonID: "d2", logger: Self.quiet, now: 0, journaling: true)
        _ = try recovered.recover(from: records)
        #expect(recovered.sessionIDs == ["default", "kiosk"])
    }

    @Test("Back-off doubles up to its maximum, in the daemon's clock")
    func backOffIsBounded() throws {
        let rig = try Rig()
        _ = try rig.send(.hello(Hello(req: 1, role: .operator, name: "ops", instance: "i", heartbeatMs: 1000)), from: ops)
        rig.store.simulatedWriteError = .ioError
        _ = try rig.send(.createSession(SessionRequest(req: 2, session: "kiosk")), from: ops)
        var delays: [UInt64] = []
        for _ in 0..<9 {
            let due = try #require(rig.committer.nextRetry)
            _ = try rig.retry(at: due)
            delays.append(try #require(rig.committer.nextRetry) - due)
        }
        #expect(delays == [200, 400, 800, 1600, 3200, 5000, 5000, 5000, 5000])
    }

    @Test("Records made while the journal fails are held behind the first ones, and go out in order")
    func laterRecordsWaitBehindTheFirst() throws {
        let rig = try Rig()
        _ = try rig.send(.hello(Hello(req: 1, role: .operator, name: "ops", instance: "i", heartbeatMs: 1000)), from: ops)
        rig.store.simulatedWriteError = .noSpace
        _ = try rig.send(.createSession(SessionRequest(req: 2, session: "kiosk")), from: ops)
        // A presenter that goes away while the journal fails: its `lost` input is journaled, not refusable.
        let late = try rig.committer.commit(
            [JournalRecord(session: "kiosk", kind: .snapshotAdopted).encoded],
            outputs: [.send(ops, .ok(OKReply(req: 9)))], core: &rig.core, now: 20)
        #expect(late.isEmpty)
        rig.store.simulatedWriteError = nil
        let released = try rig.retry(at: 1_000)
        #expect(released == [.ok(OKReply(req: 2, result: ["created": true])), .ok(OKReply(req: 9))])
    }
}
