#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
public import FlowCore
public import FlowWire
public import Logging

/// The daemon with no I/O: sessions, peers and the protocol, as a state machine.
///
/// ``DaemonInput``s go in (a message from a peer, a tick of time, a step from a stepper inside the daemon, an
/// adaptation result); ``DaemonOutput``s come out in order (messages to send, events to publish, steppers to listen
/// to). A transport drives it: the ZeroMQ server (``DaemonServer``) on its I/O thread, or a test feeding it directly
/// (the in-memory transport: no sockets, no threads, no clocks — `now` is an input).
///
/// Not `Sendable`: it owns the sessions' flows. Keep it on one thread.
public struct DaemonCore {
    private struct Peer {
        let address: PeerAddress
        let id: String
        let hello: Hello
        /// The allow-list entry of the peer's key (with an ``AccessPolicy``), which its `HELLO` matched.
        let identity: AllowedClient?
        /// The connection's `User-Id` (its key, Z85) when it said `HELLO`: every later message must carry the same.
        let userID: String?
        var lastHeard: UInt64
        var nextHeartbeat: UInt64
        var role: PeerRole { hello.role }
    }

    private let application: any FlowApplication
    public let configuration: DaemonConfiguration
    /// The identity of the daemon's state (`WELCOME.daemon`): new for a fresh state, kept by a daemon that recovers
    /// its state from the journal (``recover(from:)``), so clients know that nothing they were told was forgotten.
    public private(set) var daemonID: String
    private let codec: WireCodec
    private let logger: Logger
    private let startedAt: UInt64

    private var sessions: [String: Session] = [:]
    /// Whether state changes are journaled (``takeJournal()``); off for a daemon without a state directory.
    public let journaling: Bool
    /// Journal records not taken yet, and every record kept (the snapshot's content: ``journalHistory``).
    private var untaken: [[UInt8]] = []
    /// Every record kept, as a snapshot's payload (``JournalSnapshot``): one contiguous buffer, about the records'
    /// own size in memory (an array per record cost twice that).
    private var history: [UInt8] = []
    private var historyCount = 0
    private let recordCodec = JournalRecordCodec()
    /// Whether ``recover(from:)`` is replaying: changes are applied, not journaled; nothing is sent or run.
    private var replaying = false
    /// How many records ``recover(from:)`` replayed at this start.
    private var recoveredRecords = 0
    /// The results of recent STEPs by client instance and `req`, to answer a STEP sent again (de-duplication).
    private var stepResults = StepResultWindows()
    private var peers: [PeerAddress: Peer] = [:]
    private var lastPeerNumber = 0
    private var outputs: [DaemonOutput] = []
    /// What the daemon counted: messages, errors by code, steps, commands, drops by reason.
    public private(set) var counters = DaemonCounters()
    /// Whether to output events (``DaemonOutput/publish(_:)``); the server turns it off while nobody subscribes, so
    /// no event is built for no one. Counters count all the same.
    public var publishesEvents = true
    /// Whom the daemon lets do what (CURVE keys and their roles); `nil` when it runs without CURVE. With a policy,
    /// only ``DaemonInput/authenticatedMessage(from:userID:frames:)`` from an allowed key gets in (docs/SECURITY.md).
    /// ``DaemonInput/accessPolicyChanged(_:)`` replaces it.
    public private(set) var accessPolicy: AccessPolicy?

    /// Makes a daemon core; ``start(now:)`` creates the default session.
    ///
    /// - Parameter accessPolicy: the allow-list that every peer's `HELLO` and requests are held to; `nil`: none.
    public init(
        application: any FlowApplication,
        configuration: DaemonConfiguration = DaemonConfiguration(),
        daemonID: String,
        logger: Logger,
        now: UInt64,
        accessPolicy: AccessPolicy? = nil,
        journaling: Bool = false
    ) {
        self.journaling = journaling
        self.accessPolicy = accessPolicy
        if accessPolicy != nil {
            counters.authDenied = 0
            counters.peersRevoked = 0
        }
        self.application = application
        self.configuration = configuration
        self.daemonID = daemonID
        self.codec = WireCodec(maxBodyBytes: configuration.maxBodyBytes)
        self.logger = logger
        self.startedAt = now
    }

    // MARK: - Inputs

    /// Starts serving: journals the daemon ID of a fresh state and creates the default session if the state has none.
    ///
    /// After ``recover(from:)`` it also hands back what the recovered sessions need: the in-daemon steppers to
    /// listen to again (``DaemonOutput/resumeLocal(session:attachment:)``) and the adaptations still pending.
    public mutating func start(now: UInt64) -> [DaemonOutput] {
        if history.isEmpty { journal(.daemon(daemonID)) }
        if sessions[configuration.defaultSession] == nil { _ = createSession(configuration.defaultSession) }
        return takeOutputs()
    }

    // MARK: - Journal

    /// Takes the journal records made since the last call, in order: the transport writes them (and syncs them, by
    /// its policy) before it sends anything this core output in the meantime.
    public mutating func takeJournal() -> [[UInt8]] {
        defer { untaken = [] }
        return untaken
    }

    /// Every record the state still needs, in order: what a snapshot holds (the journal after it starts empty).
    ///
    /// Compaction is in what is never kept: inputs that changed nothing (an in-daemon stepper's step or a deep link
    /// dropped before any flow saw it) are not journaled. Flows are application objects, so a session is rebuilt by
    /// replaying its inputs.
    public var journalHistory: [[UInt8]] { (try? JournalSnapshot.records(in: history)) ?? [] }

    /// ``journalHistory`` as a snapshot's payload, ready to write.
    public var journalSnapshotPayload: [UInt8] { history }

    /// How many records ``journalHistory`` holds.
    public var journalRecordCount: Int { historyCount }

    /// Rebuilds the state from journal records (a snapshot's, then the journal's), before ``start(now:)``.
    ///
    /// Every session comes back exactly as the records left it: the same tree, UI, sequence numbers and outbox.
    /// Nothing is sent and no event is published while replaying; presenters resync and steppers are attached again
    /// as they reconnect. Presentables count as not visible afterwards (no presenter is connected yet). Counters start
    /// from zero.
    ///
    /// - Throws: ``RecoveryError`` (`unreadableRecord`) when a record cannot be read: flowd does not start from a
    ///   state it cannot trust.
    public mutating func recover(from records: [[UInt8]]) throws(RecoveryError) -> RecoveryReport {
        replaying = true
        let publishes = publishesEvents
        publishesEvents = false
        var report = RecoveryReport()
        for (index, bytes) in records.enumerated() {
            let record: JournalRecord
            do {
                record = try recordCodec.decode(bytes)
            } catch {
                replaying = false
                publishesEvents = publishes
                throw RecoveryError(
                    .unreadableRecord, "journal record \(index + 1) of \(records.count) cannot be read: \(error)"
                )
            }
            if case .daemon(let id) = record.kind {
                daemonID = id
            } else if record.kind != .sessionCreated, sessions[record.session] == nil {
                report.skipped += 1
                logger.error(
                    "journal record for an unknown session skipped", metadata: ["session": "\(record.session)"]
                )
                continue
            }
            change(record)
            JournalSnapshot.append(bytes, to: &history)
            historyCount += 1
            report.records += 1
        }
        _ = takeOutputs()  // nothing of the replay goes out: no peer is connected, no stepper listened to yet
        replaying = false
        publishesEvents = publishes
        counters = DaemonCounters()
        if accessPolicy != nil {
            counters.authDenied = 0
            counters.peersRevoked = 0
        }
        report.sessions = sessions.count
        recoveredRecords = report.records
        for session in sortedSessions() {
            for attachment in session.localAttachments.keys.sorted() {
                outputs.append(.resumeLocal(session: session.id, attachment: session.localAttachments[attachment]!))
            }
            for id in session.pendingAdapts.keys.sorted() {
                outputs.append(.runAdapt(session: session.id, request: session.pendingAdapts[id]!))
            }
            let visible = session.machine.visiblePresentables
            if !visible.isEmpty {
                change(JournalRecord(session: session.id, kind: .input(.presentablesLost(visible), origin: nil)))
            }
        }
        return report
    }

    private mutating func journal(_ record: JournalRecord) {
        guard journaling, !replaying else { return }
        let bytes = recordCodec.encode(record)
        untaken.append(bytes)
        JournalSnapshot.append(bytes, to: &history)
        historyCount += 1
    }

    /// Applies one state change, journaling it: the only way sessions change, live and in recovery alike.
    @discardableResult
    private mutating func change(_ record: JournalRecord) -> [CoordinatorAction] {
        switch record.kind {
        case .daemon:
            journal(record)
            return []
        case .sessionCreated:
            journal(record)
            createSessionNow(record.session)
            return []
        case .input(let input, let origin):
            guard let session = sessions[record.session] else { return [] }
            if case .stepperEmitted(let attachment, _) = input, origin != nil {
                // A stepper process took a step for it: a later ATTACH of it is `resumed` (§5.1).
                session.remoteAttachments[attachment]?.stepped = true
            }
            let actions = session.machine.handle(input)
            if case .stepperEmitted(let attachment, _) = input, let origin {
                stepResults.remember(Self.verdict(actions, attachment: attachment), for: origin)
            }
            if case .adaptCompleted(let request, _) = input { session.pendingAdapts[request] = nil }
            // A stepper process's STEP is journaled even when it changed nothing: its verdict answers it if it is
            // sent again after a restart, as the running daemon would.
            if origin != nil || !Self.changedNothing(input, actions) { journal(record) }
            apply(actions, in: session)
            return actions
        case .report(let entry):
            guard let session = sessions[record.session] else { return [] }
            journal(record)
            applyReport(entry, in: session)
            return []
        case .snapshotAdopted:
            guard let session = sessions[record.session] else { return [] }
            journal(record)
            for id in session.takeUnreportedDismissals() { run(session, .dismissed(id)) }
            return []
        }
    }

    /// Whether the tree handled `input` without changing: a step dropped before any flow saw it (so no flow's
    /// `adapt` ran). Such inputs are not journaled, unless a STEP's verdict must be remembered.
    private static func changedNothing(_ input: CoordinatorInput, _ actions: [CoordinatorAction]) -> Bool {
        guard actions.count == 1, case .stepDropped(let drop) = actions[0] else { return false }
        switch input {
        case .stepperEmitted, .deepLink:
            return [.attachmentEnded, .noneStep, .notVisible, .noRootFlow].contains(drop.reason)
        case .visibilityChanged, .dismissed, .presentablesLost, .adaptCompleted:
            return false
        }
    }

    /// What became of a STEP: dropped when the tree's first action drops it, accepted otherwise.
    private static func verdict(_ actions: [CoordinatorAction], attachment: AttachmentID) -> StepVerdict {
        if case .stepDropped(let drop)? = actions.first, drop.attachment == attachment {
            return StepVerdict(accepted: false, reason: drop.reason.rawValue)
        }
        return StepVerdict(accepted: true)
    }

    /// Handles one input and returns what to do, in order.
    public mutating func handle(_ input: DaemonInput, now: UInt64) -> [DaemonOutput] {
        switch input {
        case .message(let address, let frames):
            receive(frames, from: address, userID: nil, now: now)
        case .authenticatedMessage(let address, let userID, let frames):
            receive(frames, from: address, userID: userID, now: now)
        case .tick:
            tick(now: now)
        case .localStep(let sessionID, let attachment, let step):
            guard let session = sessions[sessionID] else { break }
            if session.localAttachments[attachment] != nil {
                change(JournalRecord(session: sessionID, kind: .input(.stepperEmitted(attachment, step), origin: nil)))
            }
        case .adaptCompleted(let sessionID, let request, let step):
            if sessions[sessionID] != nil {
                change(JournalRecord(session: sessionID, kind: .input(.adaptCompleted(request, step), origin: nil)))
            }
        case .peerUnreachable(let address):
            if peers[address] != nil {
                logger.notice("peer unreachable", metadata: ["peer": "\(peers[address]!.id)"])
                peerLost(address)
            }
        case .accessPolicyChanged(let policy):
            replaceAccessPolicy(with: policy)
        }
        return takeOutputs()
    }

    /// When the next ``DaemonInput/tick`` is due, at the latest.
    public func nextDeadline(now: UInt64) -> UInt64 {
        var deadline = now + UInt64(configuration.heartbeatMs)
        for peer in peers.values {
            deadline = min(deadline, peer.nextHeartbeat, expiry(of: peer))
        }
        return max(deadline, now)
    }

    // MARK: - Queries

    /// The IDs of the sessions, sorted.
    public var sessionIDs: [String] { sessions.keys.sorted() }

    /// A session's flow tree.
    public func tree(of session: String) -> FlowTreeSnapshot? { sessions[session]?.machine.snapshot() }

    /// A session's UI as its commands built it.
    public func ui(of session: String) -> PresentationModel? { sessions[session]?.ui }

    /// A session's last command sequence number.
    public func seq(of session: String) -> UInt64? { sessions[session]?.seq }

    /// How many peers of each role are connected.
    public var peerCounts: [PeerRole: Int] {
        Dictionary(grouping: peers.values, by: \.role).mapValues(\.count)
    }

    /// Counts a message the transport could not queue for its peer (the peer's queue is full).
    public mutating func countDroppedSend(_ type: MessageType) {
        counters.sendsDropped[type.rawValue, default: 0] += 1
    }

    /// Counts a connection the ZAP handler refused (`auth_denied` in `HEALTH`).
    public mutating func countAuthenticationDenied() {
        counters.authDenied = (counters.authDenied ?? 0) + 1
    }

    // MARK: - Messages

    private mutating func receive(_ frames: [[UInt8]], from address: PeerAddress, userID: String?, now: UInt64) {
        counters.messagesIn += 1
        // Any message is a sign of life, even one that is refused (§3).
        peers[address]?.lastHeard = now
        let message: WireMessage
        do {
            message = try codec.decode(frames)
        } catch {
            reject(error, to: address)
            return
        }
        if case .hello(let hello) = message {
            welcome(hello, from: address, userID: userID, now: now)
            return
        }
        guard peers[address] != nil else {
            reject(WireError(.notWelcome, "say HELLO first", req: message.req, type: message.type), to: address)
            return
        }
        if accessPolicy != nil, peers[address]!.userID != userID {
            // The routing ID belongs to another key's connection now (the one that said HELLO is gone): what that
            // connection held is not this one's.
            logger.notice(
                "routing id reused by another key; the old peer is gone",
                metadata: ["peer": "\(peers[address]!.id)", "key": "\(userID ?? "-")"]
            )
            peerLost(address)
            reject(WireError(.notWelcome, "say HELLO first", req: message.req, type: message.type), to: address)
            return
        }
        peers[address]!.lastHeard = now
        let peer = peers[address]!
        guard Self.allowed(message.type, for: peer.role) else {
            reject(
                WireError(
                    .forbidden, "a \(peer.role.rawValue) may not send \(message.type.rawValue)", req: message.req,
                    type: message.type
                ),
                to: address
            )
            return
        }
        switch message {
        case .heartbeat:
            break
        case .bye:
            logger.info("peer left", metadata: ["peer": "\(peer.id)", "name": "\(peer.hello.name)"])
            peerLost(address)
        case .step(let body):
            step(body, from: peer)
        case .sync(let body):
            sync(body, from: peer)
        case .ack(let body):
            ack(body, from: peer)
        case .report(let body):
            report(body, from: peer)
        case .userAction(let body):
            userAction(body, from: peer)
        case .sessions(let body):
            reply(to: address, req: body.req, result: sessionsResult())
        case .tree(let body):
            tree(body, from: peer)
        case .deepLink(let body):
            deepLink(body, from: peer)
        case .createSession(let body):
            createSessionRequest(body, from: peer)
        case .health(let body):
            reply(to: address, req: body.req, result: healthResult(now: now))
        case .describe(let body):
            reply(to: address, req: body.req, result: (try? StepPayload(encoding: application.vocabulary)) ?? [:])
        case .hello, .welcome, .ok, .error, .attach, .detach, .action, .snapshot, .command, .event:
            break  // refused by `allowed` above
        }
    }

    private static func allowed(_ type: MessageType, for role: PeerRole) -> Bool {
        switch type {
        case .heartbeat, .bye: return true
        case .step: return role == .stepper
        case .sync, .ack, .report, .userAction: return role == .presenter
        case .sessions, .tree, .deepLink, .createSession, .health, .describe: return role == .operator
        case .hello, .welcome, .ok, .error, .attach, .detach, .action, .snapshot, .command, .event: return false
        }
    }

    private mutating func welcome(_ hello: Hello, from address: PeerAddress, userID: String?, now: UInt64) {
        var identity: AllowedClient?
        if let accessPolicy {
            guard let userID, let client = accessPolicy.client(userID: userID) else {
                return reject(
                    WireError(.forbidden, "this connection has no allowed key", req: hello.req, type: .hello),
                    to: address
                )
            }
            guard client.role == hello.role else {
                return reject(
                    WireError(
                        .forbidden,
                        "the key '\(client.name)' is a \(client.role.rawValue)'s, not a \(hello.role.rawValue)'s",
                        req: hello.req, type: .hello
                    ),
                    to: address
                )
            }
            if let kind = hello.serves.first(where: { !client.mayServe($0) }) {
                return reject(
                    WireError(
                        .forbidden, "the key '\(client.name)' may not serve the stepper kind '\(kind)'", req: hello.req,
                        type: .hello
                    ),
                    to: address
                )
            }
            identity = client
        }
        // The same client restarted or reconnected (same role, name and key; new connection): the old connection is
        // told it was replaced (§3), so a second live process of that name stops instead of taking it back.
        // Operators hold nothing, so several may share a name.
        let replaced = peers.values.filter {
            $0.address != address && $0.role == hello.role && $0.role != .operator && $0.hello.name == hello.name
                && $0.userID == (identity == nil ? nil : userID)
        }
        var inherited: [(session: String, attachment: AttachmentID)] = []
        for old in replaced.map(\.address).sorted(by: { $0.routingID.lexicographicallyPrecedes($1.routingID) }) {
            logger.info("peer replaced by its restart", metadata: ["peer": "\(peers[old]!.id)", "name": "\(hello.name)"])
            // A notice, not a refusal of anything the old connection sent: not counted under `errors`.
            let notice = WireError(
                .replaced, "another connection said HELLO as '\(hello.name)' (instance \(hello.instance)); stop",
                type: .hello
            )
            send(.error(ErrorReply(notice)), to: old)
            inherited += peerLost(old, reassigning: false)
        }
        let id: String
        if let existing = peers[address] {
            // HELLO again on a known connection: the client started over (§3), so what the connection held is
            // released first; a stepper gets its attachments again below (§5.1), a presenter syncs again.
            id = existing.id
            inherited += peerLost(address, reassigning: false)
        } else {
            lastPeerNumber += 1
            id = "p\(lastPeerNumber)"
        }
        peers[address] = Peer(
            address: address, id: id, hello: hello, identity: identity, userID: identity == nil ? nil : userID,
            lastHeard: now, nextHeartbeat: now + UInt64(configuration.heartbeatMs)
        )
        logger.info(
            "peer joined",
            metadata: [
                "peer": "\(id)", "role": "\(hello.role.rawValue)", "name": "\(hello.name)",
                "key": "\(identity?.name ?? "-")",
            ]
        )
        send(.welcome(Welcome(req: hello.req, peer: id, daemon: daemonID, heartbeatMs: configuration.heartbeatMs)), to: address)
        // What the replaced connection served stays with its successor when it serves the kind still (§5.1), even
        // where another process serves it too: its steps sent again (§5.5) are for these attachments.
        for (sessionID, attachment) in inherited {
            guard let session = sessions[sessionID], let remote = session.remoteAttachments[attachment],
                remote.assignedTo == nil
            else { continue }
            assign(attachment, in: session, preferring: hello.serves.contains(remote.kind) ? address : nil)
        }
        if hello.role == .stepper {
            for session in sortedSessions() { assignOrphans(in: session) }
        }
    }

    // MARK: Steppers

    private mutating func step(_ body: StepMessage, from peer: Peer) {
        if let identity = peer.identity, !identity.mayEmit(body.step.name) {
            return reject(
                .forbidden, "the key '\(identity.name)' may not emit '\(body.step.name)'", req: body.req, type: .step,
                to: peer
            )
        }
        let origin = StepOrigin(instance: peer.hello.instance, req: body.req)
        if let verdict = stepResults.verdict(for: origin) {
            // Sent again (the reply was lost with a connection or a daemon): the same answer, nothing applied twice.
            counters.stepsDuplicate += 1
            return reply(to: peer.address, req: body.req, result: verdict.result(duplicate: true))
        }
        guard let session = sessions[body.session] else {
            return reject(.unknownSession, "no session '\(body.session)'", req: body.req, type: .step, to: peer)
        }
        if let names = application.stepNames, !names.contains(body.step.name) {
            return reject(.unknownStep, "no step named '\(body.step.name)'", req: body.req, type: .step, to: peer)
        }
        let attachment = AttachmentID(body.attachment)
        guard session.remoteAttachments[attachment]?.assignedTo == peer.address else {
            return reject(
                .unknownAttachment, "attachment \(body.attachment) is not assigned to this stepper", req: body.req,
                type: .step, to: peer
            )
        }
        let actions = change(
            JournalRecord(session: session.id, kind: .input(.stepperEmitted(attachment, body.step), origin: origin))
        )
        let verdict = Self.verdict(actions, attachment: attachment)
        if verdict.accepted { counters.stepsAccepted += 1 }
        reply(to: peer.address, req: body.req, result: verdict.result())
    }

    /// Hands unassigned remote attachments to live stepper processes serving their kind.
    private mutating func assignOrphans(in session: Session) {
        for id in session.remoteAttachments.keys.sorted() where session.remoteAttachments[id]!.assignedTo == nil {
            assign(id, in: session)
        }
    }

    /// Assigns an attachment to `preferred` (a stepper serving its kind), else to the first live process serving it.
    private mutating func assign(_ id: AttachmentID, in session: Session, preferring preferred: PeerAddress? = nil) {
        guard let attachment = session.remoteAttachments[id] else { return }
        let candidates = peers.values
            .filter { $0.role == .stepper && $0.hello.serves.contains(attachment.kind) }
            .sorted {
                ($0.address == preferred ? 0 : 1, $0.hello.name, $0.id)
                    < ($1.address == preferred ? 0 : 1, $1.hello.name, $1.id)
            }
        guard let peer = candidates.first else {
            logger.debug("no stepper serves kind yet", metadata: ["kind": "\(attachment.kind)", "session": "\(session.id)"])
            return
        }
        session.remoteAttachments[id]!.assignedTo = peer.address
        let info = attachment.info
        send(
            .attach(
                Attach(
                    session: session.id, attachment: info.id.rawValue, kind: attachment.kind,
                    presentable: info.presentable.rawValue, role: info.role.rawValue, context: attachment.context,
                    resumed: attachment.stepped
                )
            ),
            to: peer.address
        )
    }

    // MARK: Presenters

    private mutating func sync(_ body: Sync, from peer: Peer) {
        if let identity = peer.identity, !identity.mayHost(body.session) {
            return reject(
                .forbidden, "the key '\(identity.name)' may not host session '\(body.session)'", req: body.req,
                type: .sync, to: peer
            )
        }
        var session = sessions[body.session]
        if session == nil, body.create {
            guard WireProtocol.isValidName(body.session) else {
                return reject(.invalidName, "invalid session name", req: body.req, type: .sync, to: peer)
            }
            guard sessions.count < configuration.maxSessions else {
                return reject(
                    .sessionLimit, "the daemon holds \(configuration.maxSessions) sessions already", req: body.req,
                    type: .sync, to: peer
                )
            }
            session = createSession(body.session)
        }
        guard let session else {
            return reject(.unknownSession, "no session '\(body.session)'", req: body.req, type: .sync, to: peer)
        }
        if let host = session.host, host != peer.address, let current = peers[host],
            current.hello.name != peer.hello.name || current.userID != peer.userID
        {
            return reject(
                .sessionHosted, "session '\(session.id)' is hosted by '\(current.hello.name)'", req: body.req,
                type: .sync, to: peer
            )
        }
        session.host = peer.address
        // Nothing counts as visible until the presenter reports again after the sync.
        presentablesLost(in: session)
        var replay = body.lastSeq == 0 ? nil : session.replay(after: body.lastSeq)
        if let commands = replay, commands.count > configuration.maxReplayCommands {
            replay = nil  // one SNAPSHOT rather than more COMMANDs than the presenter's queue may take
        }
        if replay == nil, session.hasUnreportedDismissals {
            // The presenter adopts the snapshot: what the session's commands removed and no presenter reported is
            // gone (a presenter killed right after a dismiss never reports it), so tell the tree now.
            change(JournalRecord(session: session.id, kind: .snapshotAdopted))
        }
        // The snapshot's seq counts as applied (§6.1): only commands sent from here on are acknowledged.
        session.ackedSeq = replay == nil ? session.seq : min(body.lastSeq, session.seq)
        reply(
            to: peer.address, req: body.req,
            result: ["seq": .int(Int(session.seq)), "mode": .string(replay == nil ? "snapshot" : "replay")]
        )
        if let replay {
            for message in replay { sendCommand(message, to: peer.address) }
        } else {
            send(.snapshot(SnapshotMessage(session: session.id, seq: session.seq, ui: UISnapshot(session.ui))), to: peer.address)
        }
        logger.info(
            "presenter synced",
            metadata: [
                "peer": "\(peer.id)", "session": "\(session.id)", "last_seq": "\(body.lastSeq)",
                "mode": "\(replay == nil ? "snapshot" : "replay")",
            ]
        )
    }

    private mutating func ack(_ body: Ack, from peer: Peer) {
        guard let session = sessions[body.session], session.host == peer.address else {
            // ACK never gets a reply (docs/PROTOCOL.md §6.3): counted and ignored.
            counters.errors[WireError.Code.notHost.rawValue, default: 0] += 1
            logger.debug("ACK for a session the peer does not host", metadata: ["peer": "\(peer.id)"])
            return
        }
        let acked = min(body.seq, session.seq)
        if acked > session.ackedSeq {
            counters.commandsAcked += Int(acked - session.ackedSeq)
            session.ackedSeq = acked
        }
    }

    private mutating func report(_ body: Report, from peer: Peer) {
        guard let session = hostedSession(body.session, req: body.req, type: .report, peer: peer) else { return }
        var unknown: [String] = []
        for entry in body.reports {
            // Only what the UI holds can be visible or hidden; a dismissal of what it no longer holds changes nothing
            // but is no mistake (the session's own command may have removed it first).
            guard entry.state == .dismissed || session.ui.contains(PresentableID(entry.presentable)) else {
                unknown.append(entry.presentable)
                continue
            }
            change(JournalRecord(session: session.id, kind: .report(entry)))
            counters.reports += 1
        }
        guard unknown.isEmpty else {
            return reject(
                .unknownPresentable,
                "not in the UI of session '\(session.id)', so ignored (the other entries were applied): "
                    + unknown.prefix(8).joined(separator: ", "),
                req: body.req, type: .report, to: peer
            )
        }
        reply(to: peer.address, req: body.req, result: [:])
    }

    /// One entry of a presenter's `REPORT`: the UI model follows what a person did, then the tree hears of it.
    private mutating func applyReport(_ entry: PresentableReport, in session: Session) {
        let id = PresentableID(entry.presentable)
        if entry.state == .dismissed { session.dismissalReported(id) }
        if entry.state == .dismissed, session.ui.contains(id) {
            // The presenter removed it on its own (a person went back): the snapshot must not bring it back.
            session.ui.remove(id)
        }
        if entry.state == .visible, case .child(let parent)? = session.ui.placement(of: id),
            session.ui.screen(parent)?.kind == .tabs,
            let index = session.ui.children(of: parent).firstIndex(of: id), session.ui.selectedTab(of: parent) != index
        {
            // A person selected another tab: the snapshot shows the tab they chose.
            _ = try? session.ui.apply(.selectTab(parent, index: index))
        }
        run(session, entry.input)
    }

    private mutating func userAction(_ body: UserAction, from peer: Peer) {
        guard let session = hostedSession(body.session, req: body.req, type: .userAction, peer: peer) else { return }
        let presentable = PresentableID(body.presentable)
        guard session.ui.contains(presentable) else {
            return reject(
                .unknownPresentable, "'\(body.presentable)' is not in the UI of session '\(session.id)'", req: body.req,
                type: .userAction, to: peer
            )
        }
        var delivered = 0
        for attachment in session.machine.attachments(on: presentable) {
            if let remote = session.remoteAttachments[attachment.id], let stepper = remote.assignedTo {
                send(
                    .action(
                        ActionMessage(
                            session: session.id, attachment: attachment.id.rawValue, presentable: body.presentable,
                            action: body.action
                        )
                    ),
                    to: stepper
                )
                delivered += 1
            } else if let handler = attachment.stepper as? any ActionHandlingStepper {
                handler.handle(action: body.action)
                delivered += 1
            }
        }
        counters.userActions += 1
        reply(to: peer.address, req: body.req, result: ["delivered": .int(delivered)])
    }

    private mutating func hostedSession(_ id: String, req: UInt64, type: MessageType, peer: Peer) -> Session? {
        guard let session = sessions[id] else {
            reject(.unknownSession, "no session '\(id)'", req: req, type: type, to: peer)
            return nil
        }
        guard session.host == peer.address else {
            reject(.notHost, "this presenter does not host session '\(id)': SYNC first", req: req, type: type, to: peer)
            return nil
        }
        return session
    }

    // MARK: Operators

    private func sessionsResult() -> JSONValue {
        .object([
            "sessions": .array(
                sortedSessions().map { session in
                    .object([
                        "id": .string(session.id),
                        "flows": .int(session.machine.coordinatorIDs.count),
                        "presenter": session.host.flatMap { peers[$0] }.map { .string($0.hello.name) } ?? .null,
                        "seq": .int(Int(session.seq)),
                        "steppers": .int(session.machine.liveAttachments.count),
                    ])
                }
            )
        ])
    }

    private mutating func tree(_ body: SessionRequest, from peer: Peer) {
        guard let session = sessions[body.session] else {
            return reject(.unknownSession, "no session '\(body.session)'", req: body.req, type: .tree, to: peer)
        }
        let snapshot = session.machine.snapshot()
        let tree = (try? StepPayload(encoding: WireTree(snapshot))) ?? .null
        reply(to: peer.address, req: body.req, result: ["tree": tree, "text": .string(snapshot.description)])
    }

    private mutating func deepLink(_ body: DeepLinkRequest, from peer: Peer) {
        guard let session = sessions[body.session] else {
            return reject(.unknownSession, "no session '\(body.session)'", req: body.req, type: .deepLink, to: peer)
        }
        if let names = application.stepNames, !names.contains(body.step.name) {
            return reject(.unknownStep, "no step named '\(body.step.name)'", req: body.req, type: .deepLink, to: peer)
        }
        let actions = change(JournalRecord(session: session.id, kind: .input(.deepLink(body.step), origin: nil)))
        let navigations = actions.filter { if case .didNavigate = $0 { return true } else { return false } }.count
        reply(to: peer.address, req: body.req, result: ["navigations": .int(navigations)])
    }

    private mutating func createSessionRequest(_ body: SessionRequest, from peer: Peer) {
        if sessions[body.session] != nil {
            return reply(to: peer.address, req: body.req, result: ["created": false])
        }
        guard sessions.count < configuration.maxSessions else {
            return reject(
                .sessionLimit, "the daemon holds \(configuration.maxSessions) sessions already", req: body.req,
                type: .createSession, to: peer
            )
        }
        _ = createSession(body.session)
        reply(to: peer.address, req: body.req, result: ["created": true])
    }

    private func healthResult(now: UInt64) -> JSONValue {
        let counts = peerCounts
        return .object([
            "status": "ok",
            "daemon": .string(daemonID),
            "uptime_s": .double(Double(now - startedAt) / 1000),
            "sessions": .int(sessions.count),
            "peers": .object(Dictionary(uniqueKeysWithValues: PeerRole.allCases.map { ($0.rawValue, .int(counts[$0] ?? 0)) })),
            "counters": counters.json,
        ].merging(
            journaling ? ["journal": ["records": .int(historyCount), "recovered_records": .int(recoveredRecords)]] : [:]
        ) { first, _ in first })
    }

    // MARK: - Sessions

    private mutating func createSession(_ id: String) -> Session {
        change(JournalRecord(session: id, kind: .sessionCreated))
        return sessions[id]!
    }

    private mutating func createSessionNow(_ id: String) {
        let session = Session(id: id, outboxLimit: configuration.outboxLimit)
        sessions[id] = session
        let root = application.makeRoot(session: id)
        do {
            let actions = try session.machine.coordinate(
                flow: root.flow, with: root.stepper, allowStepWhenDismissed: root.allowStepWhenDismissed
            )
            apply(actions, in: session)
        } catch {
            logger.error("session root could not be coordinated", metadata: ["session": "\(id)", "error": "\(error)"])
        }
        logger.info("session created", metadata: ["session": "\(id)"])
    }

    private func sortedSessions() -> [Session] { sessions.keys.sorted().map { sessions[$0]! } }

    /// The session's presentables count as not visible (its presenter is gone or syncs again).
    private mutating func presentablesLost(in session: Session) {
        let visible = session.machine.visiblePresentables
        guard !visible.isEmpty else { return }
        change(JournalRecord(session: session.id, kind: .input(.presentablesLost(visible), origin: nil)))
    }

    /// Feeds the session's tree and carries out what it asks (inside a journaled change only).
    private mutating func run(_ session: Session, _ input: CoordinatorInput) {
        apply(session.machine.handle(input), in: session)
    }

    private mutating func apply(_ actions: [CoordinatorAction], in session: Session) {
        for action in actions {
            switch action {
            case .willNavigate(let event):
                publish(event, kind: "will", in: session)
            case .didNavigate(let event):
                counters.navigations += 1
                publish(event, kind: "did", in: session)
            case .command(let command, _):
                let (message, rejection) = session.sequence(command)
                if let rejection {
                    logger.warning(
                        "command does not fit the session's UI",
                        metadata: ["session": "\(session.id)", "command": "\(command)", "error": "\(rejection)"]
                    )
                }
                counters.commandsSequenced += 1
                if let host = session.host { sendCommand(message, to: host) }
            case .attach(let attachment):
                if let remote = attachment.stepper as? RemoteStepper {
                    let context = remote.context ?? session.ui.screen(attachment.presentable)?.data ?? .null
                    session.remoteAttachments[attachment.id] = Session.RemoteAttachment(
                        info: attachment, kind: remote.kind, context: context, assignedTo: nil
                    )
                    assign(attachment.id, in: session)
                } else {
                    session.localAttachments[attachment.id] = attachment
                    outputs.append(.attachLocal(session: session.id, attachment: attachment))
                }
            case .detach(let id, let reason):
                if let remote = session.remoteAttachments.removeValue(forKey: id) {
                    if let stepper = remote.assignedTo {
                        send(.detach(Detach(session: session.id, attachment: id.rawValue, reason: reason.rawValue)), to: stepper)
                    }
                } else if session.localAttachments.removeValue(forKey: id) != nil {
                    outputs.append(.detachLocal(session: session.id, attachment: id))
                }
            case .runAdapt(let request):
                session.pendingAdapts[request.id] = request
                outputs.append(.runAdapt(session: session.id, request: request))
            case .stepDropped(let drop):
                counters.stepsDropped[drop.reason.rawValue, default: 0] += 1
                logger.debug(
                    "step dropped",
                    metadata: ["session": "\(session.id)", "step": "\(drop.step)", "reason": "\(drop.reason)"]
                )
                guard publishesEvents else { break }
                let flow = drop.coordinator.flatMap { session.machine.flow(of: $0)?.flowName }
                outputs.append(
                    .publish(
                        EventMessage(
                            event: "drop", session: session.id, flow: flow, coordinator: drop.coordinator?.rawValue,
                            step: drop.step, reason: drop.reason.rawValue,
                            text: "dropped step=\(drop.step) reason=\(drop.reason)"
                        )
                    )
                )
            case .flowStarted(let id, let flow, _):
                logger.debug("flow started", metadata: ["session": "\(session.id)", "flow": "\(flow)", "id": "\(id)"])
            case .flowEnded(let id, let reason):
                logger.debug("flow ended", metadata: ["session": "\(session.id)", "id": "\(id)", "reason": "\(reason)"])
            case .flowReady:
                break
            }
        }
    }

    private mutating func publish(_ event: NavigationEvent, kind: String, in session: Session) {
        guard publishesEvents else { return }
        outputs.append(
            .publish(
                EventMessage(
                    event: kind, session: session.id, flow: event.flow, coordinator: event.coordinator.rawValue,
                    step: event.step, text: "\(kind) navigate \(event)"
                )
            )
        )
    }

    // MARK: - Liveness

    private func expiry(of peer: Peer) -> UInt64 {
        peer.lastHeard + UInt64(configuration.livenessIntervals * peer.hello.heartbeatMs)
    }

    private mutating func tick(now: UInt64) {
        let ordered = peers.values.sorted { $0.id.count != $1.id.count ? $0.id.count < $1.id.count : $0.id < $1.id }
        for peer in ordered where now > expiry(of: peer) {
            logger.notice("peer silent, counted dead", metadata: ["peer": "\(peer.id)", "name": "\(peer.hello.name)"])
            counters.peersLost += 1
            peerLost(peer.address)
        }
        for peer in ordered where peers[peer.address] != nil && now >= peer.nextHeartbeat {
            var hosted: [String: UInt64] = [:]
            for session in sessions.values where session.host == peer.address { hosted[session.id] = session.seq }
            send(.heartbeat(Heartbeat(sessions: hosted)), to: peer.address)
            peers[peer.address]!.nextHeartbeat = now + UInt64(configuration.heartbeatMs)
        }
    }

    /// A new allow-list (the operator edited it and sent flowd SIGHUP): new connections are held to it by the ZAP
    /// handler, and every peer whose key is gone from it or whose entry changed (role, steps, kinds, sessions) is
    /// forgotten as if it were lost: its next message gets `notWelcome`, and its `HELLO` again is judged by the new
    /// entry (`forbidden` when there is none). Peers whose entry is unchanged keep everything. Without CURVE there is
    /// no allow-list to replace: ignored.
    private mutating func replaceAccessPolicy(with policy: AccessPolicy) {
        guard accessPolicy != nil else {
            logger.warning("an allow-list was given to a daemon without CURVE; ignored")
            return
        }
        accessPolicy = policy
        let ordered = peers.values.sorted { $0.id.count != $1.id.count ? $0.id.count < $1.id.count : $0.id < $1.id }
        var revoked = 0
        for peer in ordered {
            guard let userID = peer.userID, let identity = peer.identity else { continue }
            let entry = policy.client(userID: userID)
            guard entry != identity else { continue }
            logger.notice(
                entry == nil
                    ? "key revoked; peer forgotten" : "key's rights changed; peer forgotten until it says HELLO",
                metadata: ["peer": "\(peer.id)", "name": "\(peer.hello.name)", "key": "\(identity.name)"]
            )
            revoked += 1
            counters.peersRevoked = (counters.peersRevoked ?? 0) + 1
            peerLost(peer.address)
        }
        logger.info(
            "allow-list replaced", metadata: ["clients": "\(policy.clients.count)", "peers_forgotten": "\(revoked)"])
    }

    /// Forgets a peer: its sessions lose their host, its attachments go to another process serving their kind, or,
    /// when not `reassigning`, wait unassigned (returned) for the caller to hand them on.
    @discardableResult
    private mutating func peerLost(
        _ address: PeerAddress, reassigning: Bool = true
    ) -> [(session: String, attachment: AttachmentID)] {
        guard let peer = peers.removeValue(forKey: address) else { return [] }
        var orphans: [(session: String, attachment: AttachmentID)] = []
        for session in sortedSessions() {
            if session.host == address {
                session.host = nil
                presentablesLost(in: session)
            }
            let orphaned = session.remoteAttachments.keys.sorted().filter {
                session.remoteAttachments[$0]!.assignedTo == address
            }
            for id in orphaned {
                session.remoteAttachments[id]!.assignedTo = nil
                orphans.append((session.id, id))
                if reassigning { assign(id, in: session) }
            }
        }
        logger.info("peer gone", metadata: ["peer": "\(peer.id)", "name": "\(peer.hello.name)"])
        return orphans
    }

    // MARK: - Output

    private mutating func send(_ message: WireMessage, to address: PeerAddress) {
        counters.messagesOut += 1
        outputs.append(.send(address, message))
    }

    private mutating func sendCommand(_ message: CommandMessage, to address: PeerAddress) {
        counters.commandsSent += 1
        send(.command(message), to: address)
    }

    private mutating func reply(to address: PeerAddress, req: UInt64, result: JSONValue) {
        send(.ok(OKReply(req: req, result: result)), to: address)
    }

    private mutating func reject(
        _ code: WireError.Code, _ text: String, req: UInt64?, type: MessageType, to peer: Peer
    ) {
        reject(WireError(code, text, req: req, type: type), to: peer.address)
    }

    private mutating func reject(_ error: WireError, to address: PeerAddress) {
        counters.errors[error.code.rawValue, default: 0] += 1
        logger.notice(
            "message refused",
            metadata: [
                "peer": "\(peers[address]?.id ?? address.description)", "code": "\(error.code)",
                "error": "\(error.message)",
            ]
        )
        send(.error(ErrorReply(error)), to: address)
    }

    private mutating func takeOutputs() -> [DaemonOutput] {
        defer { outputs = [] }
        return outputs
    }
}

@available(*, unavailable)
extension DaemonCore: Sendable {}
