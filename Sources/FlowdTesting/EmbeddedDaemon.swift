public import FlowCore
public import FlowDaemon
public import FlowWire
public import Logging
import DequeModule
import FlowClient
import Testing

/// A flowd daemon inside the test: FlowDaemon's ``DaemonCore`` running an application, driven in-process with no
/// sockets and a ``ManualClock``.
///
/// Every message goes through the wire codec both ways (a peer's message is encoded before the daemon reads it, what
/// the daemon sends is encoded and decoded again), so a test sees what a real peer would. A message the daemon sends
/// that its peer could not decode is recorded as a test issue.
///
/// Two ways to drive it:
/// - one input at a time: ``receive(_:from:)`` and ``tick()`` hand the daemon one input and return what it did
///   (``DaemonOutcome``), for tests of the protocol itself;
/// - as a system: fake peers (``connectStepper(name:kinds:)``, ``connectPresenter(name:session:)``) queue messages
///   and answer what they receive; ``settle()`` (which they call) handles queued messages and the steps of the
///   daemon's own steppers, first in first out, until nothing is left.
///
/// With `journaling`, ``restart(journal:daemonID:)`` replaces the daemon by one recovered from its journal, as after a
/// SIGKILL; ``recovered(journal:daemonID:)`` starts a second one from it and leaves this one running.
///
/// Not `Sendable`: use it from one test.
public final class EmbeddedDaemon {
    /// The daemon's clock; ``advance(by:)`` moves it and ticks the daemon.
    public let clock: ManualClock
    /// The daemon's state machine (settable in the package: a test may call what a transport calls on it).
    package var core: DaemonCore
    /// What the daemon did when it (last) started: the default session's creation, the recovered attachments.
    public private(set) var started = DaemonOutcome()
    /// Everything each peer received, in order (across restarts).
    public private(set) var received: [PeerAddress: [DaemonMessage]] = [:]
    /// Every message sent to any peer, in order (across restarts).
    public private(set) var sent: [Delivery] = []
    /// Every event published, in order.
    public private(set) var events: [EventMessage] = []
    /// Whether the daemon journals its state (for ``restart(journal:daemonID:)``).
    public let journaling: Bool
    /// Every input the daemon handled, in order (kept when journaling).
    package private(set) var handledInputs: [DaemonInput] = []
    /// How many journal records the state had after the daemon started (`[0]`) and after each of ``handledInputs``
    /// (kept when journaling).
    package private(set) var historyCounts: [Int] = []

    /// The versions of the application's file the daemon kept, by id, as flowd keeps them in its state directory:
    /// the one it started with and each one ``reloadApplication(from:)`` took. A restarted daemon finds its sessions'
    /// versions here (take one out to see a restart refused for its missing version).
    package var keptAppVersions: [String: AppVersion] = [:]

    private let application: any FlowApplication
    private let configuration: DaemonConfiguration
    private let logger: Logger
    private let codec = WireCodec()
    /// What a peer decodes the daemon's messages with: a ``FlowClient`` client's bound (128 MiB), not the 256 KiB the
    /// daemon holds what it receives to (a `SNAPSHOT` or a `SESSIONS` page of 2000 may be larger).
    private let peerCodec = WireCodec(maxBodyBytes: Int(FlowClientConfiguration.defaultMaxMessageSize))
    private var inbox: Deque<DaemonInput> = []
    private let localSteps = LocalSteps()
    private var subscriptions: [AttachmentID: (relay: StepRelay, subscription: StepRelay.Subscription)] = [:]
    private var pendingAdaptations: Deque<(session: String, request: AdaptRequest)> = []
    private var peers: [PeerAddress: any EmbeddedPeer] = [:]
    private var peerOrder: [PeerAddress] = []
    private var lastPeerNumber: UInt32 = 0

    /// A daemon running `application`, started at once (the default session exists, no peer is connected).
    ///
    /// - Parameters:
    ///   - configuration: taken as it is, not held to the bounds `flowd` and `DaemonServer` hold it to, so that a
    ///     test reaches a bound in a few steps (an outbox of 300 bytes); an interval below 1 ms runs as 1 ms.
    ///   - daemonID: `WELCOME.daemon`; a daemon recovered from the journal keeps it.
    ///   - journaling: whether it journals its state, for ``restart(journal:daemonID:)`` and
    ///     ``recovered(journal:daemonID:)``.
    ///   - accessPolicy: the allow-list every peer is held to (`nil`: none); peers then send with
    ///     ``receive(_:from:userID:)``.
    public convenience init(
        application: any FlowApplication,
        configuration: DaemonConfiguration = DaemonConfiguration(),
        daemonID: String = "embedded",
        clock: ManualClock = ManualClock(),
        journaling: Bool = false,
        accessPolicy: AccessPolicy? = nil,
        logger: Logger = Logger(label: "FlowdTesting", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.init(
            application: application, appVersion: nil, configuration: configuration, daemonID: daemonID, clock: clock,
            journaling: journaling, accessPolicy: accessPolicy, logger: logger
        )
    }

    /// A daemon running `appVersion` of an application's file (its application is run instead of `application`),
    /// which it keeps (``keptAppVersions``), as flowd started with the file does.
    package convenience init(application: any FlowApplication, appVersion: AppVersion, journaling: Bool = false) {
        self.init(
            application: application, appVersion: appVersion, configuration: DaemonConfiguration(),
            daemonID: "embedded", clock: ManualClock(), journaling: journaling, accessPolicy: nil,
            logger: Logger(label: "FlowdTesting", factory: { _ in SwiftLogNoOpLogHandler() })
        )
    }

    private convenience init(
        application: any FlowApplication, appVersion: AppVersion?, configuration: DaemonConfiguration,
        daemonID: String, clock: ManualClock, journaling: Bool, accessPolicy: AccessPolicy?, logger: Logger
    ) {
        var core = DaemonCore(
            application: application, version: appVersion, configuration: configuration, daemonID: daemonID,
            logger: logger, now: clock.milliseconds, accessPolicy: accessPolicy, journaling: journaling
        )
        var kept: [String: AppVersion] = [:]
        if let appVersion { kept[appVersion.id] = appVersion }
        core.storedAppVersion = { [kept] id in kept[id] }
        self.init(
            core: core, application: application, configuration: configuration, clock: clock, journaling: journaling,
            logger: logger
        )
        keptAppVersions = kept
    }

    private init(
        core: DaemonCore, application: any FlowApplication, configuration: DaemonConfiguration, clock: ManualClock,
        journaling: Bool, logger: Logger, lazily: Bool = false
    ) {
        self.core = core
        self.application = application
        self.configuration = configuration
        self.clock = clock
        self.journaling = journaling
        self.logger = logger
        started = perform(self.core.start(now: clock.milliseconds) + makePending(lazily: lazily))
        if journaling { historyCounts.append(self.core.journalRecordCount) }
    }

    /// A second daemon started from this one's journal (or `journal`, a list of records), as a new process after a
    /// SIGKILL: the same application, `configuration` (this one's by default: a restart with other settings passes
    /// them), `daemonID` its run ID, a clock of its own at this one's time, journaling. This one is left as it is, so
    /// a test can drive both and compare them.
    ///
    /// `lazily`: the sessions recovery kept pending stay pending (made on first use, or by
    /// ``makePendingSessions(limit:now:)``), as flowd leaves them when it starts serving; by default they are made at
    /// start, as flowd's I/O loop makes them in the background right after.
    public func recovered(
        journal: [[UInt8]]? = nil, daemonID: String = "restarted", lazily: Bool = false,
        configuration: DaemonConfiguration? = nil
    ) throws -> EmbeddedDaemon {
        let configuration = configuration ?? self.configuration
        return EmbeddedDaemon(
            core: try recoveredCore(journal: journal, daemonID: daemonID, configuration: configuration),
            application: application, configuration: configuration,
            clock: ManualClock(milliseconds: clock.milliseconds), journaling: true, logger: logger, lazily: lazily
        )
    }

    /// Makes up to `limit` of the sessions recovery kept pending, as a turn of flowd's I/O loop does; returns what
    /// the daemon did.
    @discardableResult
    public func makePendingSessions(limit: Int = .max) -> DaemonOutcome {
        perform(core.makePendingSessions(limit: limit, now: clock.milliseconds))
    }

    private func makePending(lazily: Bool) -> [DaemonOutput] {
        lazily ? [] : core.makePendingSessions(limit: .max, now: clock.milliseconds)
    }

    deinit {
        for (_, entry) in subscriptions { entry.relay.cancel(entry.subscription) }
    }

    // MARK: - One input at a time

    /// The daemon handles one input now; returns what it did. Messages to fake peers are delivered to them.
    @discardableResult
    package func handle(_ input: DaemonInput) -> DaemonOutcome {
        let outputs = core.handle(input, now: clock.milliseconds)
        if journaling {
            handledInputs.append(input)
            historyCounts.append(core.journalRecordCount)
        }
        return perform(outputs)
    }

    /// `peer` sends `message` (encoded with the wire codec) and the daemon handles it now.
    @discardableResult
    public func receive(_ message: ClientMessage, from peer: PeerAddress) -> DaemonOutcome {
        handle(.message(from: peer, frames: codec.encode(message)))
    }

    /// `peer` sends `message` on a connection the ZAP handler admitted as `userID` (its public key, Z85; `nil`: none),
    /// and the daemon handles it now: for a daemon with an `AccessPolicy`.
    @discardableResult
    public func receive(_ message: ClientMessage, from peer: PeerAddress, userID: String?) -> DaemonOutcome {
        handle(.authenticatedMessage(from: peer, userID: userID, frames: codec.encode(message)))
    }

    /// `peer` sends raw frames and the daemon handles them now (as a transport without authentication hands them
    /// over).
    @discardableResult
    public func receive(frames: [[UInt8]], from peer: PeerAddress) -> DaemonOutcome {
        handle(.message(from: peer, frames: frames))
    }

    /// The daemon's timer fires (heartbeats due, dead peers noticed) at the clock's time.
    @discardableResult
    public func tick() -> DaemonOutcome { handle(.tick) }

    /// The clock moves on by `duration` in one go, then the daemon's timer fires, then the peers whose logic keeps
    /// time (a ``LogicStepper`` with a `tickInterval`) catch up with it. A peer silent for 3 of its heartbeat intervals
    /// is then counted dead, as a process that stopped would be: ``passTime(_:)`` keeps the peers alive.
    @discardableResult
    public func advance(by duration: Duration) -> DaemonOutcome {
        clock.advance(by: duration)
        let outcome = tick()
        for address in peerOrder { peers[address]?.timePassed() }
        return outcome
    }

    /// Time passes for the whole system, as for running processes: the clock moves on by `duration` in steps no
    /// longer than the shortest heartbeat interval of the connected peers, and at each step every connected fake
    /// peer sends `HEARTBEAT`, the daemon's timer fires and each ``LogicStepper`` gets the ticks due. What the daemon
    /// sends meanwhile goes to the peers; a test reads it there.
    public func passTime(_ duration: Duration) {
        var left = duration
        while left > .zero {
            let connected = peerOrder.filter { core.heartbeatMs(ofConnected: $0) != nil }
            let interval = connected.compactMap { core.heartbeatMs(ofConnected: $0) }.min() ?? 1000
            let step = min(left, .milliseconds(interval))
            clock.advance(by: step)
            for address in connected { enqueue(.heartbeat(Heartbeat()), from: address) }
            settle()
            tick()
            for address in peerOrder { peers[address]?.timePassed() }
            left -= step
        }
    }

    // MARK: - As a system

    /// Queues `message` from `peer`, handled by the next ``settle()``.
    public func enqueue(_ message: ClientMessage, from peer: PeerAddress) {
        inbox.append(.message(from: peer, frames: codec.encode(message)))
    }

    /// Handles the steps of the daemon's own steppers and the queued messages, one at a time, until none is left
    /// (the peers' answers join the queue).
    public func settle() {
        while true {
            if let (session, attachment, step) = localSteps.popFirst() {
                handle(.localStep(session: session, attachment: attachment, step: step))
            } else if let input = inbox.popFirst() {
                handle(input)
            } else {
                return
            }
        }
    }

    /// Runs the flows' pending asynchronous adaptations (`Adaptation.later`) in order, hands each result to the
    /// daemon, and settles.
    public func runAdaptations() async {
        while let (session, request) = pendingAdaptations.popFirst() {
            let step = try? await request.operation.run()
            handle(.adaptCompleted(session: session, request: request.id, step: step))
            settle()
        }
    }

    /// A routing ID no other peer of this daemon has, for a peer of the test's own.
    public func newPeerAddress() -> PeerAddress {
        lastPeerNumber += 1
        return PeerAddress(withUnsafeBytes(of: lastPeerNumber.bigEndian, Array.init))
    }

    // MARK: - Restart

    /// The daemon is killed and started again from its journal (or `journal`, a list of records): a new daemon
    /// (`daemonID` its run ID) recovers the state and starts; what was on its way to the old one is lost, and no
    /// peer is connected (the fake peers keep what they hold; reconnect them).
    public func restart(journal: [[UInt8]]? = nil, daemonID: String = "restarted", lazily: Bool = false) throws {
        try restart(journal: journal, daemonID: daemonID, appVersion: nil, lazily: lazily)
    }

    /// ``restart(journal:daemonID:)`` reading `appVersion` of the application's file at start (`nil`: the one new
    /// sessions get now).
    package func restart(
        journal: [[UInt8]]? = nil, daemonID: String = "restarted", appVersion: AppVersion?, lazily: Bool = false
    ) throws {
        let restarted = try recoveredCore(journal: journal, daemonID: daemonID, appVersion: appVersion)
        for (_, entry) in subscriptions { entry.relay.cancel(entry.subscription) }
        subscriptions = [:]
        inbox = []
        pendingAdaptations = []
        localSteps.removeAll()
        core = restarted
        started = perform(core.start(now: clock.milliseconds) + makePending(lazily: lazily))
    }

    /// A new core, journaling, with this one's allow-list, that recovered the state from `journal` (this daemon's by
    /// default).
    private func recoveredCore(
        journal: [[UInt8]]?, daemonID: String, appVersion: AppVersion? = nil, configuration: DaemonConfiguration? = nil
    ) throws -> DaemonCore {
        let version = appVersion ?? core.currentAppVersion
        if let version { keptAppVersions[version.id] = version }
        var recovered = DaemonCore(
            application: application, version: version, configuration: configuration ?? self.configuration,
            daemonID: daemonID, logger: logger, now: clock.milliseconds, accessPolicy: core.accessPolicy,
            journaling: true
        )
        recovered.storedAppVersion = { [keptAppVersions] id in keptAppVersions[id] }
        _ = try recovered.recover(from: journal ?? core.journalHistory)
        // As flowd reads them from the state directory, which this daemon's run wrote (``StepperNamesFile``).
        recovered.expectStepperNames(core.stepperNamesToKeep)
        return recovered
    }

    /// Reads the application's file again, as flowd does on SIGHUP: a valid file is kept (``keptAppVersions``) and
    /// becomes the version new sessions get; one that is not is refused (counted in `HEALTH`, its problems logged).
    @discardableResult
    package func reloadApplication(from source: AppVersionSource) -> DaemonOutcome {
        do {
            let version = try source.read()
            keptAppVersions[version.id] = version
            return handle(.appVersionRead(version))
        } catch {
            return handle(.appReloadRefused(error))
        }
    }

    /// Saves each session's live state as data in place of its history, as flowd does before it writes a snapshot
    /// (docs/RELIABILITY.md, "State snapshots"); a ``restart(journal:daemonID:)`` after it restores those sessions
    /// from their state.
    ///
    /// - Returns: how many sessions were saved as data, and how many kept their history (their flows cannot be
    ///   restored, or wait for an adaptation or a `.ready` block).
    @discardableResult
    public func compactJournal() -> (saved: Int, keptAsHistory: Int) {
        let compaction = core.compactJournal()
        return (compaction.saved, compaction.keptAsHistory.values.reduce(0, +))
    }

    // MARK: - State

    /// The journal's records so far.
    public var journalHistory: [[UInt8]] { core.journalHistory }

    /// A session's flow tree.
    public func tree(of session: String = "default") -> FlowTreeSnapshot? { core.tree(of: session) }

    /// A session's UI as the daemon holds it.
    public func ui(of session: String = "default") -> PresentationModel? { core.ui(of: session) }

    /// A session's last command `seq`.
    public func seq(of session: String = "default") -> UInt64? { core.seq(of: session) }

    /// Everything of a session that clients can observe (tree, UI, seq), and what its UI counts against
    /// `max_session_ui_bytes`, as text to compare.
    public func state(of session: String = "default") -> String {
        let tree = core.tree(of: session).map { "\($0)" } ?? "-"
        let ui = core.ui(of: session).map { "\(UISnapshot($0))\nui bytes \($0.estimatedBytes)" } ?? "-"
        return "seq \(core.seq(of: session) ?? 0)\n\(tree)\n\(ui)"
    }

    // MARK: - Peers

    func register(_ peer: any EmbeddedPeer) {
        if peers.updateValue(peer, forKey: peer.address) == nil { peerOrder.append(peer.address) }
    }

    // MARK: - Outputs

    private func perform(_ outputs: [DaemonOutput]) -> DaemonOutcome {
        var outcome = DaemonOutcome()
        for output in outputs {
            switch output {
            case .send(let peer, let message):
                guard let decoded = roundTrip(message) else { continue }
                outcome.sent.append(Delivery(peer, decoded))
                sent.append(Delivery(peer, decoded))
                received[peer, default: []].append(decoded)
                peers[peer]?.receive(decoded)
            case .publish(let event):
                guard let decoded = roundTrip(event) else { continue }
                outcome.events.append(decoded)
                events.append(decoded)
            case .attachLocal(let session, let attachment):
                outcome.local.append("attach \(session) \(attachment.id)")
                listen(to: attachment, in: session)
            case .resumeLocal(let session, let attachment):
                outcome.local.append("resume \(session) \(attachment.id)")
                listen(to: attachment, in: session)
            case .detachLocal(let session, let id):
                outcome.local.append("detach \(session) \(id)")
                if let entry = subscriptions.removeValue(forKey: id) { entry.relay.cancel(entry.subscription) }
            case .runAdapt(let session, let request):
                outcome.local.append("adapt \(session) \(request.id)")
                pendingAdaptations.append((session, request))
            }
        }
        // The tree called each new stepper's readyToEmitSteps() and took what it emitted there; the listeners
        // above hear what steppers emit later.
        for address in peerOrder { peers[address]?.endOfBatch() }
        return outcome
    }

    private func listen(to attachment: StepperAttachment, in session: String) {
        let steps = localSteps
        let id = attachment.id
        let subscription = attachment.stepper.steps.subscribe { step in steps.append(session, id, step) }
        subscriptions[id] = (attachment.stepper.steps, subscription)
    }

    /// `message` as its peer decodes it, or `nil` (and a test issue) if it cannot.
    private func roundTrip(_ message: DaemonMessage) -> DaemonMessage? {
        let frames = codec.encode(message)
        do {
            guard case .daemon(let decoded) = try peerCodec.decode(frames, from: .daemon) else {
                Issue.record("\(message) decodes as a client's message")
                return nil
            }
            // Compared as bytes: JSON does not tell 0.0 from 0, so a double may come back as an integer.
            if codec.encode(decoded) != frames { Issue.record("the codec changes \(message)") }
            if case .error(let reply) = decoded, reply.message.isEmpty { Issue.record("an ERROR without text") }
            return decoded
        } catch {
            Issue.record("the daemon sent a message its peer cannot decode: \(message): \(error)")
            return nil
        }
    }

    private func roundTrip(_ event: EventMessage) -> EventMessage? {
        let frames = codec.encodeEvent(event)
        do {
            if frames.first != Array("nav/\(event.session)".utf8) { Issue.record("event topic of \(event)") }
            let decoded = try codec.decodeEvent(frames)
            if decoded != event { Issue.record("the codec changes \(event)") }
            return decoded
        } catch {
            Issue.record("the daemon published an event a subscriber cannot decode: \(event): \(error)")
            return nil
        }
    }
}

@available(*, unavailable)
extension EmbeddedDaemon: Sendable {}

/// A fake peer of an ``EmbeddedDaemon``: gets each message the daemon sends it as it is sent, then the end of the
/// input's batch (a presenter applies one batch's commands together).
protocol EmbeddedPeer: AnyObject {
    var address: PeerAddress { get }
    func receive(_ message: DaemonMessage)
    func endOfBatch()
    /// The test moved the daemon's clock (``EmbeddedDaemon/advance(by:)``).
    func timePassed()
}

extension EmbeddedPeer {
    func timePassed() {}
}
