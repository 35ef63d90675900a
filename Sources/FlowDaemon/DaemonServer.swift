internal import LibC
public import FlowCore
internal import FlowWire
public import Logging
public import CoreMetrics
public import ServiceLifecycle
import Synchronization
public import ZeroMQ

/// The endpoints a running daemon is bound to (with the ports a `tcp://…:*` endpoint was given).
public struct BoundEndpoints: Sendable, Hashable {
    public var control: String
    public var events: String
}

/// `flowd` over ZeroMQ: a ``DaemonCore`` driven by one I/O thread that owns the sockets.
///
/// ## Threading model
/// One dedicated OS thread (not a task) owns the control ROUTER and the events PUB, and runs the ``DaemonCore``
/// itself on a ``ZMQReactor``: it sleeps in `zmq_poll` until a message arrives, a wake-up comes or the next heartbeat
/// is due, hands each message to the core and sends what the core returns, all on that thread. A step therefore goes
/// from the stepper's message to the presenter's command with no thread hop. Other threads reach the core only
/// through a ``ZMQMailbox`` of inputs that wakes the reactor: steppers inside the daemon (their relays call back on any
/// thread) and asynchronous adaptations, which ``run()`` executes in its task group.
///
/// ## Lifecycle
/// ``run()`` starts the thread and returns when it has stopped: on graceful shutdown (a `ServiceGroup` receiving
/// SIGTERM), on cancellation, or on a fatal socket error (then it throws). Stopping closes every socket with a
/// bounded linger and terminates the context.
public final class DaemonServer: Service, Sendable {
    /// Where the daemon listens and how its sockets behave.
    public struct Configuration: Sendable {
        /// The control ROUTER's endpoint.
        public var controlEndpoint: String
        /// The events PUB's endpoint.
        public var eventsEndpoint: String
        /// The core's limits and timings.
        public var daemon: DaemonConfiguration
        /// Options of the control and events sockets (linger, hard message size limit, ZMTP heartbeats, …).
        public var socketOptions: ZMQSocketOptions
        /// CURVE on both sockets with a ZAP handler admitting the allow-list's keys (docs/SECURITY.md); `nil`: none.
        public var security: DaemonSecurity?
        /// Where the state is journaled and how hard (docs/RELIABILITY.md); `nil`: kept in memory only, lost when
        /// the daemon stops.
        public var journal: JournalConfiguration?

        public init(
            controlEndpoint: String,
            eventsEndpoint: String,
            daemon: DaemonConfiguration = DaemonConfiguration(),
            socketOptions: ZMQSocketOptions = ZMQSocketOptions(),
            security: DaemonSecurity? = nil,
            journal: JournalConfiguration? = nil
        ) {
            self.journal = journal
            self.controlEndpoint = controlEndpoint
            self.eventsEndpoint = eventsEndpoint
            self.daemon = daemon
            self.socketOptions = socketOptions
            self.security = security
        }
    }

    private struct Shared {
        var bound: BoundEndpoints?
        var readyWaiters: [CheckedContinuation<BoundEndpoints, any Error>] = []
        var failure: (any Error)?
        var started = false
        var recovery: RecoveryProgress?
    }

    private let application: any FlowApplication
    /// The application's file, for a daemon that runs one: the version read at start, and where to read it again.
    private let appFile: (source: AppVersionSource, version: AppVersion)?
    private let configuration: Configuration
    let logger: Logger
    private let daemonID: String
    private let shared = Mutex(Shared())
    /// Inputs from other threads for the I/O thread; closing it stops the daemon.
    private let inputs = ZMQMailbox<DaemonInput>()
    private let adaptRequests: AsyncStream<(session: String, request: AdaptRequest)>
    let adaptContinuation: AsyncStream<(session: String, request: AdaptRequest)>.Continuation
    private let metricsFactory: (any MetricsFactory)?

    /// Makes a daemon for `application`; nothing is bound until ``run()``.
    ///
    /// - Parameter metricsFactory: where the daemon's metrics go; none when `nil`.
    public convenience init(
        application: any FlowApplication, configuration: Configuration, logger: Logger,
        metricsFactory: (any MetricsFactory)? = nil
    ) {
        self.init(
            application: application, configuration: configuration, logger: logger, metricsFactory: metricsFactory,
            appFile: nil
        )
    }

    /// ``init(application:configuration:logger:metricsFactory:)`` for an application read from a file (the stock
    /// flowd): `appFile` says where it is read from, and the version read at start (whose application the daemon
    /// runs; `application` is then that one).
    package init(
        application: any FlowApplication, configuration: Configuration, logger: Logger,
        metricsFactory: (any MetricsFactory)? = nil, appFile: (source: AppVersionSource, version: AppVersion)?
    ) {
        self.application = appFile?.version.application ?? application
        self.appFile = appFile
        self.configuration = configuration
        self.logger = logger
        self.metricsFactory = metricsFactory
        self.daemonID = Self.makeDaemonID()
        (adaptRequests, adaptContinuation) = AsyncStream.makeStream()
    }

    /// Runs the daemon until graceful shutdown or cancellation.
    ///
    /// - Throws: ``ZMQError`` when an endpoint cannot be bound, or the I/O thread fails.
    public func run() async throws {
        try await withGracefulShutdownHandler {
            try await withTaskCancellationHandler {
                try await runUntilStopped()
            } onCancel: {
                self.stop()
            }
        } onGracefulShutdown: {
            self.stop()
        }
    }

    var journalConfiguration: JournalConfiguration? { configuration.journal }
    var appFileSource: AppVersionSource? { appFile?.source }

    /// How far the recovery of the state has come, while it runs; `nil` before and after.
    package var recoveryProgress: RecoveryProgress? { shared.withLock { $0.recovery } }

    func setRecoveryProgress(_ progress: RecoveryProgress?) { shared.withLock { $0.recovery = progress } }

    /// Waits until the sockets are bound and the default session exists; returns the bound endpoints.
    ///
    /// - Throws: the error that stopped the daemon before it was ready.
    public func waitUntilReady() async throws -> BoundEndpoints {
        try await withCheckedThrowingContinuation { continuation in
            let result: Result<BoundEndpoints, any Error>? = shared.withLock { shared in
                if let bound = shared.bound { return .success(bound) }
                if let failure = shared.failure { return .failure(failure) }
                shared.readyWaiters.append(continuation)
                return nil
            }
            if let result { continuation.resume(with: result) }
        }
    }

    /// Replaces the allow-list of a daemon that runs with CURVE (flowd does on SIGHUP): connections admitted from now
    /// on are judged by `policy`, and peers whose key is no longer on it, or whose entry changed, are forgotten. The
    /// secret key and the rest of the configuration stay as they are.
    public func reloadAccessPolicy(_ policy: AccessPolicy) {
        enqueue(.accessPolicyChanged(policy))
    }

    /// Reads the application's file again (flowd does on SIGHUP) and hands the outcome to the daemon: a valid file
    /// becomes the version new sessions get (``DaemonInput/appVersionRead(_:)``), one that is not is refused and
    /// counted with its problems logged (``DaemonInput/appReloadRefused(_:)``). Returns whether the daemon runs a file.
    @discardableResult
    package func reloadApplication() -> Bool {
        guard let source = appFile?.source else { return false }
        do {
            enqueue(.appVersionRead(try source.read()))
        } catch {
            enqueue(.appReloadRefused(error))
        }
        return true
    }

    /// Asks the I/O thread to stop.
    public func stop() {
        inputs.close()
        adaptContinuation.finish()
    }

    // MARK: - Async side

    private func runUntilStopped() async throws {
        let alreadyStarted = shared.withLock { shared in
            defer { shared.started = true }
            return shared.started
        }
        guard !alreadyStarted else { return }
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask {
                await withDiscardingTaskGroup { adapts in
                    for await item in self.adaptRequests {
                        adapts.addTask {
                            let step = try? await item.request.operation.run()
                            self.enqueue(.adaptCompleted(session: item.session, request: item.request.id, step: step))
                        }
                    }
                }
            }
            try await self.runIOThread()
            self.adaptContinuation.finish()
        }
    }

    private func runIOThread() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            do {
                try ZMQThread.start(name: "flowd-io") {
                    let result = Result { () throws(any Error) in try self.ioThreadMain() }
                    self.finishStartup(with: result)
                    continuation.resume(with: result)
                }
            } catch {
                finishStartup(with: .failure(error))
                continuation.resume(throwing: error)
            }
        }
    }

    private func finishStartup(with result: Result<Void, any Error>) {
        let waiters = shared.withLock { shared in
            if case .failure(let error) = result { shared.failure = error } else if shared.bound == nil {
                shared.failure = ZMQError(.terminated, call: "flowd stopped before it was ready")
            }
            defer { shared.readyWaiters = [] }
            return shared.readyWaiters
        }
        let failure: any Error = shared.withLock { $0.failure } ?? ZMQError(.terminated, call: "flowd stopped")
        for waiter in waiters { waiter.resume(throwing: failure) }
    }

    /// Takes the inputs other threads queued, none once a stop is requested. A new application version an input
    /// brings is kept in the state directory here, whichever turn takes it, before any record can name it.
    func takeQueuedInputs() -> (inputs: [DaemonInput], stopping: Bool) {
        let (queued, closed) = inputs.take()
        return closed ? ([], true) : (queued.map(keepingAppVersion), false)
    }

    /// Queues an input for the core from any thread and wakes the I/O thread.
    func enqueue(_ input: DaemonInput) {
        inputs.post(input)
    }

    // MARK: - The I/O thread

    private func ioThreadMain() throws {
        // A configuration built in code is held to the bounds of the flags and the config file: a negative heartbeat
        // would trap the daemon instead of stopping its start.
        if let bad = configuration.daemon.outOfBounds() { throw bad }
        let clock = ContinuousClock()
        // Milliseconds since the start, read a few times per message: `clock_gettime` directly, as
        // `ContinuousClock`'s instants and durations cost about 280 instructions a reading in 128-bit arithmetic.
        let start = Self.monotonicNanoseconds()
        let now = { () -> UInt64 in (Self.monotonicNanoseconds() &- start) / 1_000_000 }
        // The state first: the daemon serves nobody before every session is rebuilt.
        let fresh = {
            var core = DaemonCore(
                application: self.application, version: self.appFile?.version, configuration: self.configuration.daemon,
                daemonID: self.daemonID,
                logger: self.logger, now: now(), accessPolicy: self.configuration.security?.policy,
                journaling: self.configuration.journal != nil
            )
            core.publishesEvents = false
            core.storedAppVersion = self.storedAppVersion
            return core
        }
        var core = fresh()
        var recovery: (report: RecoveryReport, seconds: Double)?
        var journal: JournalStore?
        var stepperNames: StepperNamesFile?
        if let settings = configuration.journal {
            let (store, report, seconds) = try recoverState(
                into: &core, fresh: fresh, newDaemonID: daemonID, from: settings, clock: clock)
            journal = store
            recovery = (report, seconds)
            stepperNames = StepperNamesFile(stateDirectory: settings.directory, logger: logger)
            core.expectStepperNames(stepperNames?.read() ?? [:])
            // The version new sessions get is kept before the first record naming it (the default session's, say).
            if let version = appFile?.version { try AppVersionStore(stateDirectory: settings.directory).keep(version) }
        }
        defer { journal?.close() }
        let sockets = try DaemonSockets(configuration: configuration, logger: logger)
        defer { sockets.close() }

        var driver = Driver(
            router: sockets.router, publisher: sockets.publisher,
            codec: WireCodec(maxBodyBytes: configuration.daemon.maxBodyBytes), server: self,
            journal: journal.map { JournalCommitter(store: $0, logger: logger) },
            logger: logger, stepperNames: stepperNames
        )
        try driver.perform(core.start(now: now()), on: &core, now: now())
        announceReady(sockets, daemonID: core.daemonID)

        var metrics = metricsFactory.map(DaemonMetrics.init(factory:))
        var journalMetrics = metricsFactory.map(JournalMetrics.init(factory:))
        if let recovery { journalMetrics?.recorded(recovery: recovery.report, seconds: recovery.seconds) }
        try serve(
            core: &core, sockets: sockets, driver: &driver, journal: journal, clock: clock, now: now,
            metrics: &metrics, journalMetrics: &journalMetrics
        )
        metrics?.record(core)
        driver.detachAll()
        logger.notice("flowd stopping", metadata: ["daemon": "\(core.daemonID)"])
    }

    /// Hands the wake-up signal to other threads, resumes ``waitUntilReady()``'s callers and logs the daemon ready.
    private func announceReady(_ sockets: DaemonSockets, daemonID: String) {
        let bound = sockets.bound
        inputs.connect(wakeUp: sockets.reactor.wakeSignal)
        let waiters = shared.withLock { shared in
            shared.bound = bound
            defer { shared.readyWaiters = [] }
            return shared.readyWaiters
        }
        for waiter in waiters { waiter.resume(returning: bound) }
        let security = configuration.security
        logger.notice(
            "flowd ready",
            metadata: [
                "control": "\(bound.control)", "events": "\(bound.events)", "daemon": "\(daemonID)",
                "curve": "\(security == nil ? "off" : "on")",
                "journal": "\(configuration.journal.map { "\($0.directory) fsync=\($0.fsync.name)" } ?? "off")",
            ].merging(
                security.map { ["server_key": "\($0.keyPair.publicKey.z85)", "clients": "\($0.policy.clients.count)"] }
                    ?? [:]
            ) { first, _ in first }
        )
    }

    /// The I/O loop, until a stop is requested: a turn handles what other threads queued, waits for the sockets (or
    /// the next deadline), and handles what they bring.
    private func serve(
        core: inout DaemonCore, sockets: DaemonSockets, driver: inout Driver, journal: JournalStore?,
        clock: ContinuousClock, now: () -> UInt64, metrics: inout DaemonMetrics?, journalMetrics: inout JournalMetrics?
    ) throws {
        let reactor = sockets.reactor
        // Both sockets' descriptors are watched, not the sockets, so a wait costs no libzmq check of them (two
        // system calls each, twice per `zmq_poll`); the control socket is asked before sleeping when needed (below).
        let control = try reactor.watchNotifications(of: sockets.router)
        /// Whether the control socket was last read until it would block, and nothing was sent on it since: then its
        /// descriptor signals the next message.
        var controlDrained = false
        let events = try reactor.watchNotifications(of: sockets.publisher)
        var zap = sockets.zap.map {
            (responder: ZAPResponder(socket: $0, logger: logger), watch: reactor.watch($0, for: .pollIn))
        }
        var subscriptions = EventSubscriptions()
        func readSubscriptions() throws {
            try subscriptions.read(from: sockets.publisher)
            core.publishesEvents = subscriptions.isWatched
            driver.publishedEvents = false
        }
        try readSubscriptions()
        var nextTick = now() + configuration.daemon.heartbeatInterval
        var nextGauges: UInt64 = 0
        // The session usage gauges walk the made sessions: once a second.
        var nextUsageGauges: UInt64 = 0
        var compaction = CompactionSchedule()
        var socketFiles = SocketFileWatches(
            sockets.socketFiles, intervalMs: configuration.daemon.heartbeatInterval, now: now())
        var budget = sockets.budget
        let budgetWatches = budget?.sockets.map { reactor.watch($0, for: .pollIn) } ?? []

        while true {
            let (queued, stopping) = takeQueuedInputs()
            if stopping { return }
            // Group commit: the outputs of a batch of inputs go out together, after their journal records.
            var batch: [DaemonOutput] = []
            for input in queued { batch += core.handle(input, now: now()) }
            try driver.perform(consume batch, on: &core, now: now())
            if core.pendingSessionCount > 0 {
                // Recovered sessions not made yet: a bounded slice per turn, and no sleep until none is left.
                let time = now()
                let made = core.makePendingSessions(
                    limit: PendingSession.madePerTurn, bytes: PendingSession.bytesMadePerTurn, now: time)
                try driver.perform(made, on: &core, now: time)
            }

            var current = now()
            if let journal {
                try driver.retryJournal(on: &core, now: current)
                try journal.syncIfDue(now: current)
                current = now()
                if let due = journal.nextSyncDue { nextTick = min(nextTick, max(due, current + 1)) }
                if let due = driver.journal?.nextRetry { nextTick = min(nextTick, max(due, current + 1)) }
            }
            // libzmq signals the events socket's descriptor once per batch of commands, and a send on the socket may
            // take that signal: its subscriptions are also read after publishing, before sleeping.
            if driver.publishedEvents {
                try readSubscriptions()
            }
            // A send may process the command that announced a message, which takes the descriptor's signal: the
            // socket itself says whether a message waits (`ZMQ_EVENTS`), and then the wait only looks.
            if driver.sentControl || !controlDrained {
                driver.sentControl = false
                controlDrained = !(try sockets.router.option(.events).contains(.pollIn))
            }
            let wait = nextTick > current ? nextTick - current : 0
            let waitStarted = now()
            let idle = controlDrained && core.pendingSessionCount == 0 && !compaction.isSaving
            try reactor.wait(timeout: idle ? .milliseconds(Int64(min(wait, 1000))) : .zero)
            if reactor.events(of: events).contains(.pollIn) {
                try readSubscriptions()
            }
            if budgetWatches.contains(where: { reactor.events(of: $0).contains(.pollIn) }) {
                budget?.update(&socketFiles, core: &core, logger: logger)
            }
            // The core's allow-list: the one it was started with, or the last one ``reloadAccessPolicy`` gave (the
            // core took it in at the top of this loop, before any handshake it must judge).
            if let watch = zap?.watch, let policy = core.accessPolicy, reactor.events(of: watch).contains(.pollIn) {
                try zap!.responder.answerPending(policy: policy, core: &core)
            }
            if !controlDrained || reactor.events(of: control).contains(.pollIn) {
                let batch: [DaemonOutput]
                (batch, controlDrained) = try receiveControl(from: sockets.router, into: &core, now: now)
                try driver.perform(consume batch, on: &core, now: now())
            } else {
                core.inboxReadAt = waitStarted  // nothing came since the wait began: every message before it was read
            }
            let time = now()
            if time >= nextTick {
                try driver.perform(core.handle(.tick, now: time), on: &core, now: time)
                nextTick = core.nextDeadline(now: time)
                if nextTick <= time { nextTick = time + 1 }
            } else {
                nextTick = min(nextTick, core.nextDeadline(now: time))
            }
            socketFiles.checkIfDue(now: time, core: &core, logger: logger)
            if let journal { try compactIfDue(journal, &compaction, core: &core, clock: clock, now: time) }
            // Counters after each turn, gauges (which walk the peers and sessions) at most every 100 ms.
            if metrics != nil {
                metrics!.record(core.counters)
                if time >= nextGauges {
                    if let journal { journalMetrics?.record(journal, failing: driver.journal?.isFailing ?? false) }
                    metrics!.recordGauges(of: core)
                    nextGauges = time + 100
                }
                if time >= nextUsageGauges {
                    metrics!.recordSessionUsage(of: core)
                    nextUsageGauges = time + 1000
                }
            }
        }
    }

    /// Hands the core up to 256 messages waiting on the control socket; returns their outputs, and whether the
    /// socket was read until it would block. Finding it empty is noted as the time up to which the core has heard its
    /// peers (``DaemonCore/inboxReadAt``).
    private func receiveControl(
        from router: ZMQSocket, into core: inout DaemonCore, now: () -> UInt64
    ) throws -> (outputs: [DaemonOutput], drained: Bool) {
        let authenticated = configuration.security != nil
        for _ in 0..<256 {
            guard let (routingID, frames, userID) = try router.tryReceiveRouted(
                withProperty: authenticated ? "User-Id" : nil)
            else {
                core.inboxReadAt = now()
                return (core.takeOutputs(), true)
            }
            guard !frames.isEmpty else { continue }
            let address = PeerAddress(routingID)
            let input: DaemonInput =
                authenticated
                ? .authenticatedMessage(from: address, userID: userID, frames: frames)
                : .message(from: address, frames: frames)
            core.accept(input, now: now())
        }
        return (core.takeOutputs(), false)
    }

    private static func monotonicNanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// 32 hex digits: each of the four random words padded to 8, so the ID's length does not vary with its value.
    static func makeDaemonID(using generator: inout some RandomNumberGenerator) -> String {
        (0..<4).map { _ in
            let word = String(generator.next() as UInt32, radix: 16)
            return String(repeating: "0", count: 8 - word.count) + word
        }.joined()
    }

    private static func makeDaemonID() -> String {
        var generator = SystemRandomNumberGenerator()
        return makeDaemonID(using: &generator)
    }
}
