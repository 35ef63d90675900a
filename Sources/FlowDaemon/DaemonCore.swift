#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
package import FlowCore
package import FlowWire
package import Logging

/// The daemon with no I/O: sessions, peers and the protocol, as a state machine.
///
/// ``DaemonInput``s go in (a message from a peer, a tick of time, a step from a stepper inside the daemon, an
/// adaptation result); ``DaemonOutput``s come out in order (messages to send, events to publish, steppers to listen
/// to). A transport drives it: the ZeroMQ server (``DaemonServer``) on its I/O thread, or a test feeding it directly
/// (the in-memory transport: no sockets, no threads, no clocks — `now` is an input).
///
/// Not `Sendable`: it owns the sessions' flows. Keep it on one thread.
package struct DaemonCore {
    /// The application the daemon started with: what a session of a journal written before versions runs.
    let application: any FlowApplication
    /// The versions of a daemon whose application is a file: new sessions get the current one (docs/FLOWFILE.md,
    /// "Reading the file again").
    var apps: AppVersions
    /// The version kept in the state directory with this id, `nil` when none is; for the versions recovered
    /// sessions name (set by the transport before ``recover(from:progress:)``).
    package var storedAppVersion: ((String) throws(AppVersionError) -> AppVersion?)?
    package let configuration: DaemonConfiguration
    /// The identity of the daemon's state (`WELCOME.daemon`): new for a fresh state, kept by a daemon that recovers
    /// its state from the journal (``recover(from:)``), so clients know that nothing they were told was forgotten.
    package internal(set) var daemonID: String
    let codec: WireCodec
    let logger: Logger
    let startedAt: UInt64

    var sessions = SessionTable()
    /// Which sessions and attachments each peer holds (kept by the sessions themselves).
    let holdings = PeerHoldings()
    /// When sessions without a presenter may have been idle long enough to end (`daemon.idle_session_timeout_s`).
    var idleDeadlines: IdleDeadlines
    /// When made sessions without a presenter may hibernate (`daemon.hibernate_after_s`).
    var hibernationDeadlines: IdleDeadlines
    /// The bytes of `state` records a tick encodes to hibernate sessions before it stops
    /// (``hibernateIdleSessions(now:)``); settable so tests can stand for big sessions with small ones.
    package var hibernatedBytesPerTick = PendingSession.bytesMadePerTurn
    /// The daemon's clock at the input being handled, in milliseconds.
    var currentTime: UInt64
    /// When the transport last found its inbox empty, if it has one: a peer is silent only up to then, so a daemon
    /// busy for longer than a liveness window (a large `SNAPSHOT` on a loaded machine) does not count dead the peers
    /// whose heartbeats wait unread in its own queue. `nil`: every input is handled as it comes (tests' transport).
    package var inboxReadAt: UInt64?
    /// When to offer stepper processes the next batch of waiting attachments, if more wait (``AttachOffers``).
    var attachOffersDue: UInt64?
    /// After a restart, the kinds whose waiting attachments are held back for the last run's processes.
    var restartGrace = RestartGrace.none
    /// The names of stepper processes that left (or were the last run's), by kind, kept until a process serving
    /// that kind joins after them (``stepperNamesToKeep``).
    var leftStepperNames: [String: Set<String>] = [:]
    /// What ``stepperNamesToKeep`` holds, with its changes for the transport to save to `stepper-names`.
    var keptStepperNames: KeptStepperNames
    /// The names of the last run's stepper processes (``expectStepperNames(_:)``).
    var expectedStepperNames: [String: [String]] = [:]
    /// URI deep links whose chains wait for the flows their next step needs.
    var pendingDeepLinks: [PendingDeepLink] = []
    /// Whether state changes are journaled (``takeJournal()``); off for a daemon without a state directory.
    package var journaling: Bool { log.enabled }
    /// Whether the journal is being written; while not, requests that change state are refused with
    /// `journalUnavailable` (``JournalCommitter``).
    package var journalAvailable = true
    /// Journal records not taken yet, and every record kept (the snapshot's content: ``journalHistory``).
    var log: JournalLog
    /// Whether ``recover(from:)`` is replaying: changes are applied, not journaled; nothing is sent or run.
    var replaying = false
    /// How many records ``recover(from:)`` replayed at this start.
    var recoveredRecords = 0
    /// The results of recent STEPs by client instance and `req`, to answer a STEP sent again (de-duplication).
    var stepResults = StepResultWindows()
    var peers = PeerTable()
    /// The adaptations asked of stepper kinds, waiting for an answer (docs/PROTOCOL.md §5.6).
    var remoteAdapts = RemoteAdapts()
    var outputs: [DaemonOutput] = []
    /// What the daemon counted: messages, errors by code, steps, commands, drops by reason.
    package internal(set) var counters = DaemonCounters()
    /// Whether to output events (``DaemonOutput/publish(_:)``); the server turns it off while nobody subscribes, so
    /// no event is built for no one. Counters count all the same.
    package var publishesEvents = true
    /// Whom the daemon lets do what (CURVE keys and their roles); `nil` when it runs without CURVE. With a policy,
    /// only ``DaemonInput/authenticatedMessage(from:userID:frames:)`` from an allowed key gets in (docs/SECURITY.md).
    /// ``DaemonInput/accessPolicyChanged(_:)`` replaces it.
    package internal(set) var accessPolicy: AccessPolicy?

    /// Makes a daemon core; ``start(now:)`` creates the default session.
    ///
    /// - Parameters:
    ///   - accessPolicy: the allow-list that every peer's `HELLO` and requests are held to; `nil`: none.
    ///   - version: the version of the file `application` was read from (its ``AppVersion/application`` is used);
    ///     `nil` for an application given as code.
    package init(
        application: any FlowApplication,
        version: AppVersion? = nil,
        configuration: DaemonConfiguration = DaemonConfiguration(),
        daemonID: String,
        logger: Logger,
        now: UInt64,
        accessPolicy: AccessPolicy? = nil,
        journaling: Bool = false
    ) {
        self.log = JournalLog(enabled: journaling)
        keptStepperNames = KeptStepperNames(recordingChanges: journaling)
        self.accessPolicy = accessPolicy
        if accessPolicy != nil {
            counters.authDenied = 0
            counters.peersRevoked = 0
        }
        self.application = version?.application ?? application
        self.apps = AppVersions(current: version)
        if version != nil { counters.countAppReloads() }
        self.configuration = configuration
        self.daemonID = daemonID
        self.codec = WireCodec(maxBodyBytes: configuration.maxBodyBytes)
        self.logger = logger
        self.startedAt = now
        self.currentTime = now
        self.idleDeadlines = IdleDeadlines(timeoutMs: configuration.idleSessionTimeout)
        self.hibernationDeadlines = IdleDeadlines(timeoutMs: configuration.hibernationTimeout)
    }

    // MARK: - Inputs

    /// Starts serving: journals the daemon ID of a fresh state and creates its default session (a recovered state
    /// has the sessions it had: an ended default session stays ended).
    ///
    /// After ``recover(from:)`` it also hands back what the recovered sessions need: the in-daemon steppers to
    /// listen to again (``DaemonOutput/resumeLocal(session:attachment:)``) and the adaptations still pending.
    package mutating func start(now: UInt64) -> [DaemonOutput] {
        currentTime = now
        if log.isEmpty {
            journal(.daemon(daemonID))
            if !sessions.contains(configuration.defaultSession) { _ = createSession(configuration.defaultSession) }
        }
        beginRestartGrace(now: now)
        return takeOutputs()
    }

    /// Handles one input and returns what to do, in order.
    package mutating func handle(_ input: DaemonInput, now: UInt64) -> [DaemonOutput] {
        accept(input, now: now)
        return takeOutputs()
    }

    /// Handles one input, keeping what to do for ``takeOutputs()``: a transport that hands over a batch of inputs
    /// takes their outputs once, in order, rather than an array per input appended to another.
    package mutating func accept(_ input: DaemonInput, now: UInt64) {
        currentTime = now
        switch input {
        case .message(let address, let frames):
            receive(frames, from: address, userID: nil, now: now)
        case .authenticatedMessage(let address, let userID, let frames):
            receive(frames, from: address, userID: userID, now: now)
        case .tick:
            tick(now: now)
            expireQuestions(now: now)
            endIdleSessions(now: now)
            hibernateIdleSessions(now: now)
            endRestartGraceIfDue(now: now)
            if let due = attachOffersDue, now >= due { offerWaitingAttachments(now: now) }
        case .localStep(let sessionID, let attachment, let step):
            guard let session = self.session(sessionID) else { break }
            if session.localAttachments.contains(attachment), !admitsSteps(session) {
                counters.stepsDropped[SessionBounds.reason, default: 0] += 1
            } else if session.localAttachments.contains(attachment) {
                change(JournalRecord(session: sessionID, kind: .input(.stepperEmitted(attachment, step), origin: nil)))
            }
        case .adaptCompleted(let sessionID, let request, let step):
            if sessions.contains(sessionID) {
                change(JournalRecord(session: sessionID, kind: .input(.adaptCompleted(request, step), origin: nil)))
            }
        case .peerUnreachable(let address):
            if let peer = peers[address] {
                logger.notice("peer unreachable", metadata: ["peer": "\(peer.id)"])
                peerLost(address)
            }
        case .accessPolicyChanged(let policy):
            replaceAccessPolicy(with: policy)
        case .appVersionRead(let version):
            appVersionRead(version)
        case .appReloadRefused(let error):
            appReloadRefused(error)
        }
        advanceDeepLinks()
    }

    /// When the next ``DaemonInput/tick`` is due, at the latest.
    package func nextDeadline(now: UInt64) -> UInt64 {
        var deadline = now + configuration.heartbeatInterval
        if let due = peers.nextDeadline { deadline = min(deadline, due) }
        if let idle = idleDeadlines.next { deadline = min(deadline, idle) }
        if let hibernation = hibernationDeadlines.next { deadline = min(deadline, hibernation) }
        if let offers = attachOffersDue { deadline = min(deadline, offers) }
        if let grace = restartGrace.endsAt { deadline = min(deadline, grace) }
        if let adapt = remoteAdapts.nextDeadline { deadline = min(deadline, adapt) }
        if let link = nextDeepLinkDeadline { deadline = min(deadline, link) }
        return max(deadline, now)
    }

    // MARK: - Queries

    /// The IDs of the sessions, sorted.
    package var sessionIDs: [String] { sessions.ids }

    /// How many sessions the daemon holds.
    package var sessionCount: Int { sessions.count }

    /// A session's flow tree.
    package mutating func tree(of id: String) -> FlowTreeSnapshot? { session(id)?.machine.snapshot() }

    /// A session's UI as its commands built it.
    package mutating func ui(of id: String) -> PresentationModel? { session(id)?.ui }

    /// A session's last command sequence number.
    package mutating func seq(of id: String) -> UInt64? { session(id)?.seq }

    /// How many peers of each role are connected.
    package var peerCounts: [PeerRole: Int] {
        peers.counts
    }

    /// Counts a message the transport could not queue for its peer (the peer's queue is full).
    package mutating func countDroppedSend(_ type: MessageType) {
        counters.sendsDropped[type.rawValue, default: 0] += 1
    }

    /// Counts an event that found one or more subscribers' events queues full (`event_queue_overflows` in `HEALTH`).
    package mutating func countEventQueueOverflow() {
        counters.eventQueueOverflows += 1
    }

    /// Counts a connection the ZAP handler refused (`auth_denied` in `HEALTH`).
    package mutating func countAuthenticationDenied() {
        counters.authDenied = (counters.authDenied ?? 0) + 1
    }

    // MARK: - Output

    mutating func send(_ message: DaemonMessage, to address: PeerAddress) {
        counters.messagesOut += 1
        outputs.append(.send(address, message))
    }

    mutating func sendCommand(_ message: CommandMessage, to address: PeerAddress) {
        counters.commandsSent += 1
        send(.command(message), to: address)
    }

    mutating func reply(to address: PeerAddress, req: UInt64, result: some WireResult) {
        send(.ok(OKReply(req: req, result: result)), to: address)
    }

    /// An `OK` with the result `{}` (`REPORT`).
    mutating func reply(to address: PeerAddress, req: UInt64) {
        send(.ok(OKReply(req: req)), to: address)
    }

    mutating func reject(
        _ code: WireError.Code, _ text: String, req: UInt64?, type: MessageType, to peer: Peer
    ) {
        reject(WireError(code, text, req: req, type: type), to: peer.address)
    }

    /// The most characters of a refusal's text: it quotes what was refused (a payload, the names a `REPORT` got
    /// wrong), and a bad message of 256 KiB is neither echoed nor logged whole (PROTOCOL.md §3).
    package static let maxRefusalText = 1024

    mutating func reject(_ error: WireError, to address: PeerAddress) {
        send(.error(ErrorReply(noteRefusal(error, from: address))), to: address)
    }

    /// Counts and logs a refusal (also one answered with nothing, an `ACK`'s); returns it with its text cut.
    @discardableResult
    mutating func noteRefusal(_ error: WireError, from address: PeerAddress) -> WireError {
        var error = error
        if error.message.utf8.count > Self.maxRefusalText, error.message.count > Self.maxRefusalText {
            error = WireError(
                error.code, String(error.message.prefix(Self.maxRefusalText - 1)) + "…", req: error.req, type: error.type)
        }
        let count = counters.errors[error.code.rawValue, default: 0] + 1
        counters.errors[error.code.rawValue] = count
        // A client can repeat a bad message without end: each code's 1st, 10th, 100th… at notice, all at debug.
        logger.log(
            level: RepeatedWarning.isLogged(count) ? .notice : .debug, "message refused",
            metadata: [
                "peer": "\(peers[address]?.id ?? address.description)", "code": "\(error.code)",
                "error": "\(error.message)", "refused_so_far": "\(count)",
            ]
        )
        return error
    }

    /// What the inputs handled since the last call output, in order.
    package mutating func takeOutputs() -> [DaemonOutput] {
        defer { outputs = [] }
        return outputs
    }
}

@available(*, unavailable)
extension DaemonCore: Sendable {}
