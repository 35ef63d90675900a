import FlowCore
import FlowDaemon
import FlowWire
import Foundation
import Logging
import ZeroMQ

/// A presenter as docs/PROTOCOL.md §6 has it, over a ``WirePeer``: applies a `COMMAND` only when its `seq` is the
/// next one (an older one is a duplicate and ignored), adopts a `SNAPSHOT`, and `SYNC`s with its last applied `seq`
/// on a gap or when a `HEARTBEAT` announces a `seq` above it (§6.4). A `SYNC` unanswered for 5 s is sent again.
final class ModelPresenter {
    let session: String
    let peer: WirePeer
    var model = PresentationModel()
    var lastSeq: UInt64 = 0
    /// The `seq` of every command applied, in order.
    var applied: [UInt64] = []
    /// The `seq` of every command of its session received, with how many `SYNC`s had been answered by then: what
    /// the daemon queued before a `SYNC` arrives before its answer, a replay after it.
    var received: [(seq: UInt64, syncsAnswered: Int)] = []
    var snapshots: [UInt64] = []
    /// The `mode` of each `SYNC`'s `OK`, in order.
    var syncModes: [String] = []
    var syncsSent = 0
    var duplicatesIgnored = 0
    var gaps = 0
    /// What made each `SYNC` go: `start`, `gap`, `heartbeat` (one announced a `seq` above the last applied one) or
    /// `unanswered` (sent again).
    var syncTriggers: [String] = []
    var failures: [String] = []
    /// Whether the test reads its socket.
    var reading = true
    private var pendingSync: (reqs: Set<UInt64>, sentAt: ContinuousClock.Instant)?
    private var syncReqs: Set<UInt64> = []
    private var awaitingSnapshot = false

    init(session: String, peer: WirePeer) {
        self.session = session
        self.peer = peer
    }

    var isSyncing: Bool { pendingSync != nil || awaitingSnapshot }

    /// `SYNC` (creating the session) from nothing.
    func start() throws {
        try sync(create: true, because: "start")
    }

    func handle(_ message: DaemonMessage) throws {
        switch message {
        case .command(let command) where command.session == session:
            received.append((command.seq, syncModes.count))
            if command.seq <= lastSeq {
                duplicatesIgnored += 1
            } else if command.seq == lastSeq + 1, !awaitingSnapshot {
                do {
                    _ = try model.apply(command.command)
                } catch {
                    failures.append("\(session): command \(command.seq) does not apply: \(error)")
                }
                lastSeq = command.seq
                applied.append(command.seq)
            } else if !awaitingSnapshot {
                gaps += 1
                try syncIfIdle(because: "gap")
            }
        case .heartbeat(let heartbeat):
            if let announced = heartbeat.sessions[session], announced > lastSeq { try syncIfIdle(because: "heartbeat") }
        case .ok(let ok) where pendingSync?.reqs.contains(ok.req) == true:
            pendingSync = nil
            guard case .object(let fields) = ok.result, let mode = fields["mode"]?.stringValue else {
                return failures.append("\(session): OK to SYNC without a mode: \(ok)")
            }
            syncModes.append(mode)
            awaitingSnapshot = mode == "snapshot"
        case .ok(let ok) where syncReqs.contains(ok.req):
            break  // the answer to a SYNC sent again
        case .snapshot(let snapshot) where snapshot.session == session:
            // A snapshot covers every command up to its seq; an older one (of a SYNC sent again) is ignored.
            guard awaitingSnapshot || snapshot.seq > lastSeq else { break }
            awaitingSnapshot = false
            model = snapshot.ui.makeModel().model
            lastSeq = snapshot.seq
            snapshots.append(snapshot.seq)
        default:
            failures.append("\(session): unexpected \(message)")
        }
    }

    /// Sends a `SYNC` unless one is under way (again if that one is unanswered after 5 s).
    func syncIfIdle(because trigger: String) throws {
        if awaitingSnapshot { return }
        if let pendingSync, pendingSync.sentAt.duration(to: .now) < .seconds(5) { return }
        try sync(create: false, because: pendingSync == nil ? trigger : "unanswered")
    }

    private func sync(create: Bool, because trigger: String) throws {
        syncTriggers.append(trigger)
        let req = peer.req()
        try peer.send(.sync(Sync(req: req, session: session, lastSeq: lastSeq, create: create)))
        syncsSent += 1
        syncReqs.insert(req)
        pendingSync = ((pendingSync?.reqs ?? []).union([req]), .now)
    }
}
