#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import FlowCore
import FlowWire
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
/// One dedicated OS thread (not a task) owns the control ROUTER, the events PUB and a wake-up PAIR, and runs the
/// ``DaemonCore`` itself: it sleeps in `zmq_poll` until a message arrives, a wake-up comes or the next heartbeat is
/// due, hands each message to the core and sends what the core returns, all on that thread. A step therefore goes
/// from the stepper's message to the presenter's command with no thread hop. Other threads reach the core only
/// through a `Mutex`-protected input queue plus a wake-up: steppers inside the daemon (their relays call back on any
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
        var inputs: [DaemonInput] = []
        var stopRequested = false
        var signal: ZMQWakeSignal?
        var bound: BoundEndpoints?
        var readyWaiters: [CheckedContinuation<BoundEndpoints, any Error>] = []
        var failure: (any Error)?
        var started = false
    }

    private let application: any FlowApplication
    private let configuration: Configuration
    private let logger: Logger
    private let daemonID: String
    private let shared = Mutex(Shared())
    private let adaptRequests: AsyncStream<(session: String, request: AdaptRequest)>
    private let adaptContinuation: AsyncStream<(session: String, request: AdaptRequest)>.Continuation
    private let metricsFactory: (any MetricsFactory)?

    /// Makes a daemon for `application`; nothing is bound until ``run()``.
    ///
    /// - Parameter metricsFactory: where the daemon's metrics go (``DaemonMetrics``); none when `nil`.
    public init(
        application: any FlowApplication, configuration: Configuration, logger: Logger,
        metricsFactory: (any MetricsFactory)? = nil
    ) {
        self.application = application
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
    /// on are judged by `policy`, and peers whose key is no longer on it, or whose entry changed, are forgotten
    /// (``DaemonInput/accessPolicyChanged(_:)``). The secret key and the rest of the configuration stay as they are.
    public func reloadAccessPolicy(_ policy: AccessPolicy) {
        enqueue(.accessPolicyChanged(policy))
    }

    /// Asks the I/O thread to stop.
    public func stop() {
        let signal = shared.withLock { shared in
            shared.stopRequested = true
            return shared.signal
        }
        signal?.signal()
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

    /// Takes the inputs other threads queued (none once a stop is requested: the loop's top sees it).
    private func takeQueuedInputs() -> [DaemonInput] {
        shared.withLock { shared in
            if shared.stopRequested { return [] }
            defer { shared.inputs = [] }
            return shared.inputs
        }
    }

    /// Queues an input for the core from any thread and wakes the I/O thread.
    private func enqueue(_ input: DaemonInput) {
        let signal = shared.withLock { shared in
            shared.inputs.append(input)
            return shared.signal
        }
        signal?.signal()
    }

    // MARK: - The I/O thread

    private func ioThreadMain() throws {
        let clock = ContinuousClock()
        let start = clock.now
        func now() -> UInt64 {
            let elapsed = start.duration(to: clock.now)
            return UInt64(elapsed.components.seconds) * 1000 + UInt64(elapsed.components.attoseconds / 1_000_000_000_000_000)
        }
        // The state first: the daemon serves nobody before every session is rebuilt.
        var core = DaemonCore(
            application: application, configuration: configuration.daemon, daemonID: daemonID, logger: logger,
            now: now(), accessPolicy: configuration.security?.policy, journaling: configuration.journal != nil
        )
        core.publishesEvents = false
        var recovery: (report: RecoveryReport, seconds: Double)?
        var journal: JournalStore?
        if let settings = configuration.journal {
            let (store, report, seconds) = try recoverState(into: &core, from: settings, clock: clock)
            journal = store
            recovery = (report, seconds)
        }
        defer { journal?.close() }
        let context = try ZMQContext()
        defer { context.shutdown() }
        // libzmq leaves ipc:// socket files behind; remove the ones this daemon bound, once its sockets are closed.
        var boundIPCPaths: [String] = []
        defer { for path in boundIPCPaths { unlink(path) } }
        // With CURVE, the ZAP handler is bound first (libzmq asks it from the first handshake on), in this context.
        let security = configuration.security
        let zap = try security.map { _ throws(ZMQError) in
            let socket = try ZMQSocket(.router, context: context, options: ZMQSocketOptions(heartbeat: nil))
            try socket.bind(ZAPHandler.endpoint)
            return socket
        }
        defer { zap?.close() }
        var routerOptions = configuration.socketOptions
        var publisherOptions = configuration.socketOptions
        if let security {
            let secretKey = security.keyPair.secretKey
            routerOptions.curve = .server(secretKey: secretKey, zapDomain: AccessPolicy.controlDomain)
            publisherOptions.curve = .server(secretKey: secretKey, zapDomain: AccessPolicy.eventsDomain)
        }
        let router = try ZMQSocket(.router, context: context, options: routerOptions)
        defer { router.close() }
        publisherOptions.heartbeat = nil
        // An XPUB rather than a PUB (subscribers cannot tell): it reports the topics subscribed to, so the core builds
        // no events while nobody watches, which was a tenth of a step's cost (docs/PERFORMANCE.md).
        let publisher = try ZMQSocket(.xpub, context: context, options: publisherOptions)
        defer { publisher.close() }
        try router.bind(configuration.controlEndpoint)
        boundIPCPaths += Self.ipcPath(configuration.controlEndpoint).map { [$0] } ?? []
        try publisher.bind(configuration.eventsEndpoint)
        boundIPCPaths += Self.ipcPath(configuration.eventsEndpoint).map { [$0] } ?? []
        // Only this user may connect to the ipc:// socket files (docs/SECURITY.md).
        for path in boundIPCPaths where chmod(path, 0o600) != 0 {
            logger.warning("cannot restrict the socket file's mode", metadata: ["path": "\(path)", "errno": "\(errno)"])
        }
        let bound = BoundEndpoints(
            control: try router.option(.lastEndpoint), events: try publisher.option(.lastEndpoint)
        )
        let (wakeReceiver, signal) = try ZMQWakeUp.make(context: context, name: "flowd-\(daemonID)")
        defer {
            signal.close()
            wakeReceiver.close()
        }

        var driver = Driver(
            router: router, publisher: publisher, codec: WireCodec(maxBodyBytes: configuration.daemon.maxBodyBytes),
            server: self, journal: journal, logger: logger
        )
        var subscriptions: Set<[UInt8]> = []
        try driver.perform(core.start(now: now()), on: &core, now: now())

        let waiters = shared.withLock { shared in
            shared.signal = signal
            shared.bound = bound
            defer { shared.readyWaiters = [] }
            return shared.readyWaiters
        }
        for waiter in waiters { waiter.resume(returning: bound) }
        logger.info(
            "flowd ready",
            metadata: [
                "control": "\(bound.control)", "events": "\(bound.events)", "daemon": "\(core.daemonID)",
                "curve": "\(security == nil ? "off" : "on")",
                "journal": "\(configuration.journal.map { "\($0.directory) fsync=\($0.fsync.name)" } ?? "off")",
            ].merging(
                security.map { ["server_key": "\($0.keyPair.publicKey.z85)", "clients": "\($0.policy.clients.count)"] }
                    ?? [:]
            ) { first, _ in first }
        )

        let poller = ZMQPoller()
        let routerIndex = poller.register(router, for: .pollIn)
        let wakeIndex = poller.register(wakeReceiver, for: .pollIn)
        let eventsIndex = poller.register(publisher, for: .pollIn)
        let zapIndex = zap.map { poller.register($0, for: .pollIn) }
        // Refusals per key: a refused client retries every ~100 ms, so only the 1st, 10th, 100th… are warned about.
        var refusals: [String: Int] = [:]
        var nextTick = now() + UInt64(configuration.daemon.heartbeatMs)
        // Metrics: counters after each batch, gauges (which walk the peers and sessions) at most every 100 ms.
        var metrics = metricsFactory.map(DaemonMetrics.init(factory:))
        var journalMetrics = metricsFactory.map(JournalMetrics.init(factory:))
        if let recovery { journalMetrics?.recorded(recovery: recovery.report, seconds: recovery.seconds) }
        var nextGauges: UInt64 = 0

        while true {
            let inputs: [DaemonInput]? = shared.withLock { shared in
                if shared.stopRequested { return nil }
                defer { shared.inputs = [] }
                return shared.inputs
            }
            guard let inputs else { break }
            // Group commit: the outputs of a batch of inputs go out together, after their journal records.
            var batch: [DaemonOutput] = []
            for input in inputs { batch += core.handle(input, now: now()) }
            try driver.perform(batch, on: &core, now: now())

            var current = now()
            if let journal {
                try journal.syncIfDue(now: current)
                current = now()
                if let due = journal.nextSyncDue { nextTick = min(nextTick, max(due, current + 1)) }
            }
            let wait = nextTick > current ? nextTick - current : 0
            let ready = try poller.poll(timeout: .milliseconds(Int64(min(wait, 1000))))
            if ready[wakeIndex].contains(.pollIn) { ZMQWakeUp.drain(wakeReceiver) }
            if ready[eventsIndex].contains(.pollIn) {
                // `\u{1}topic` when a topic gets its first subscriber, `\u{0}topic` when its last one leaves.
                while let message = try publisher.tryReceive() {
                    guard let frame = message.frames.first, let kind = frame.first else { continue }
                    if kind == 1 { subscriptions.insert(Array(frame.dropFirst())) }
                    if kind == 0 { subscriptions.remove(Array(frame.dropFirst())) }
                }
                core.publishesEvents = !subscriptions.isEmpty
            }
            if let zap, let zapIndex, let policy = core.accessPolicy, ready[zapIndex].contains(.pollIn) {
                while let request = try zap.tryReceive() {
                    // The core's allow-list: the one it was started with, or the last one ``reloadAccessPolicy``
                    // gave (the core took it in at the top of this loop, before any handshake it must judge).
                    guard let (reply, decision) = ZAPHandler.answer(request.frames, policy: policy) else {
                        continue
                    }
                    _ = try zap.trySend(ZMQMessage(reply))
                    let metadata: Logger.Metadata = [
                        "domain": "\(decision.domain)", "address": "\(decision.address)",
                        "key": "\(decision.publicKey ?? "-")", "client": "\(decision.client ?? "-")",
                        "reason": "\(decision.reason)",
                    ]
                    if decision.allowed {
                        logger.debug("connection admitted", metadata: metadata)
                    } else {
                        core.countAuthenticationDenied()
                        if refusals.count >= 10_000 { refusals.removeAll() }  // bounded, whatever keys are tried
                        let count = refusals[decision.publicKey ?? "-", default: 0] + 1
                        refusals[decision.publicKey ?? "-"] = count
                        if Self.isPowerOfTen(count) {
                            logger.warning(
                                "connection refused by ZAP", metadata: metadata.merging(["refusals": "\(count)"]) { $1 }
                            )
                        }
                    }
                }
            }
            if ready[routerIndex].contains(.pollIn) {
                var batch: [DaemonOutput] = []
                for _ in 0..<256 {
                    let message: ZMQMessage
                    var userID: String?
                    if security == nil {
                        guard let received = try router.tryReceive() else { break }
                        message = received
                    } else {
                        guard let received = try router.tryReceive(withProperty: "User-Id") else { break }
                        (message, userID) = received
                    }
                    guard message.count >= 2 else { continue }
                    let address = PeerAddress(message.frames[0])
                    let frames = Array(message.frames.dropFirst())
                    let input: DaemonInput =
                        security == nil
                        ? .message(from: address, frames: frames)
                        : .authenticatedMessage(from: address, userID: userID, frames: frames)
                    batch += core.handle(input, now: now())
                }
                try driver.perform(batch, on: &core, now: now())
            }
            let time = now()
            if time >= nextTick {
                try driver.perform(core.handle(.tick, now: time), on: &core, now: time)
                nextTick = core.nextDeadline(now: time)
                if nextTick <= time { nextTick = time + 1 }
            } else {
                nextTick = min(nextTick, core.nextDeadline(now: time))
            }
            if let journal, journal.needsCompaction {
                try compact(journal, core: core, clock: clock)
            }
            if metrics != nil {
                metrics!.record(core.counters)
                if time >= nextGauges {
                    if let journal { journalMetrics?.record(journal) }
                    metrics!.record(peers: core.peerCounts, sessions: core.sessionIDs.count)
                    nextGauges = time + 100
                }
            }
        }
        metrics?.record(core)
        driver.detachAll()
        logger.info("flowd stopping", metadata: ["daemon": "\(core.daemonID)"])
    }

    // MARK: - The journal

    /// Opens the state directory and replays what it holds into `core`.
    private func recoverState(
        into core: inout DaemonCore, from settings: JournalConfiguration, clock: ContinuousClock
    ) throws -> (JournalStore, RecoveryReport, seconds: Double) {
        let started = clock.now
        let store = try JournalStore(configuration: settings, logger: logger)
        let contents = try store.load()
        var records =
            try contents.snapshot.map { snapshot throws(JournalError) in try JournalSnapshot.records(in: snapshot) } ?? []
        records += contents.records
        let report = try core.recover(from: records)
        let elapsed = started.duration(to: clock.now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        logger.info(
            report.records == 0 ? "state is new" : "state recovered",
            metadata: [
                "directory": "\(settings.directory)", "records": "\(report.records)", "sessions": "\(report.sessions)",
                "snapshot_bytes": "\(store.snapshotBytes)", "journal_bytes": "\(store.journalBytes)",
                "discarded_bytes": "\(contents.discardedBytes)", "seconds": "\(seconds)", "daemon": "\(core.daemonID)",
            ]
        )
        if contents.discardedBytes > 0 {
            logger.warning(
                "a torn or damaged journal tail was cut off (never acknowledged: a crash mid-write)",
                metadata: ["bytes": "\(contents.discardedBytes)"]
            )
        }
        return (store, report, seconds)
    }

    /// Writes a snapshot of everything the state needs and starts an empty journal.
    private func compact(_ journal: JournalStore, core: DaemonCore, clock: ContinuousClock) throws {
        let started = clock.now
        let before = journal.journalBytes
        try journal.writeSnapshot(core.journalSnapshotPayload)
        logger.info(
            "journal compacted into a snapshot",
            metadata: [
                "records": "\(core.journalRecordCount)", "snapshot_bytes": "\(journal.snapshotBytes)",
                "journal_bytes_before": "\(before)",
                "duration": "\(started.duration(to: clock.now))",
            ]
        )
    }

    /// Carries out the core's outputs on the I/O thread.
    private struct Driver {
        let router: ZMQSocket
        let publisher: ZMQSocket
        let codec: WireCodec
        let server: DaemonServer
        /// Where the core's journal records go before anything they caused is sent.
        let journal: JournalStore?
        let logger: Logger
        /// Messages dropped because a peer's queue was full, since the start.
        var droppedSends = 0
        var localSubscriptions: [String: [AttachmentID: (relay: StepRelay, subscription: StepRelay.Subscription)]] = [:]

        /// Commits the core's journal records, then carries out `outputs`: nothing leaves before what caused it is
        /// written (and synced, by the fsync policy).
        ///
        /// - Throws: ``JournalError`` when the journal cannot be written: the daemon stops rather than answer what it
        ///   could lose (its supervisor restarts it, and it recovers what was committed).
        mutating func perform(_ batch: [DaemonOutput], on core: inout DaemonCore, now: UInt64) throws {
            let outputs = settle(batch, on: &core, now: now)
            let records = core.takeJournal()
            if let journal, !records.isEmpty {
                for record in records { journal.append(record) }
                try journal.commit(now: now)
            }
            var unreachable: [PeerAddress] = []
            // Events go out after the control messages of the same turn: nothing waits for them, and a presenter
            // waits for its COMMAND (docs/PERFORMANCE.md).
            var events: [EventMessage] = []
            for output in outputs {
                switch output {
                case .send(let address, let message):
                    let frames = [address.routingID] + codec.encode(message)
                    do {
                        if try !router.trySend(ZMQMessage(frames)) {
                            core.countDroppedSend(message.type)
                            // A stuck peer makes one drop per message: the 1st, 10th, 100th… are logged.
                            droppedSends += 1
                            if DaemonServer.isPowerOfTen(droppedSends) {
                                logger.warning(
                                    "peer's queue is full, message dropped (docs/LIMITS.md)",
                                    metadata: ["type": "\(message.type.rawValue)", "dropped_so_far": "\(droppedSends)"]
                                )
                            }
                        }
                    } catch {
                        if error.code == .hostUnreachable {
                            unreachable.append(address)
                        } else {
                            logger.error("send failed", metadata: ["error": "\(error)"])
                        }
                    }
                case .publish(let event):
                    events.append(event)
                case .attachLocal, .resumeLocal, .detachLocal:
                    break  // done by `settle`
                case .runAdapt(let session, let request):
                    server.adaptContinuation.yield((session, request))
                }
            }
            for event in events { _ = try? publisher.trySend(ZMQMessage(codec.encodeEvent(event))) }
            for address in unreachable {
                try perform(core.handle(.peerUnreachable(address), now: now), on: &core, now: now)
            }
        }

        /// Listens to the in-daemon steppers the outputs attach (RxFlow: subscribe, then `readyToEmitSteps()`), and
        /// hands the core what they and other threads queued meanwhile, until nothing more comes: what a stepper
        /// emits at once (in `readyToEmitSteps()`, or for a USER_ACTION an `ActionHandlingStepper` handles) joins the
        /// batch, so its journal records are committed with the batch, before the batch's replies go out. A crash
        /// cannot lose such a step after its action was answered, nor between an attachment and its first steps.
        private mutating func settle(_ batch: [DaemonOutput], on core: inout DaemonCore, now: UInt64) -> [DaemonOutput] {
            var outputs = batch
            var next = 0
            // Bounded: steppers that keep emitting as they are attached (an application's loop) are served in later
            // turns too, so the daemon keeps serving everyone else.
            for _ in 0..<64 {
                var attached: [any Stepper] = []
                for output in outputs[next...] {
                    switch output {
                    case .attachLocal(let session, let attachment):
                        listen(to: attachment, in: session)
                        attached.append(attachment.stepper)
                    case .resumeLocal(let session, let attachment):
                        listen(to: attachment, in: session)
                    case .detachLocal(let session, let id):
                        if let entry = localSubscriptions[session]?.removeValue(forKey: id) {
                            entry.relay.cancel(entry.subscription)
                        }
                    case .send, .publish, .runAdapt:
                        break
                    }
                }
                next = outputs.count
                for stepper in attached { stepper.readyToEmitSteps() }
                let queued = server.takeQueuedInputs()
                if queued.isEmpty { return outputs }
                for input in queued { outputs += core.handle(input, now: now) }
            }
            return outputs
        }

        private mutating func listen(to attachment: StepperAttachment, in session: String) {
            let server = self.server
            let id = attachment.id
            let subscription = attachment.stepper.steps.subscribe { step in
                server.enqueue(.localStep(session: session, attachment: id, step: step))
            }
            localSubscriptions[session, default: [:]][id] = (attachment.stepper.steps, subscription)
        }

        mutating func detachAll() {
            for (_, entries) in localSubscriptions {
                for (_, entry) in entries { entry.relay.cancel(entry.subscription) }
            }
            localSubscriptions = [:]
        }
    }

    /// Whether `count` is 1, 10, 100…: which repetitions of a warning are logged.
    private static func isPowerOfTen(_ count: Int) -> Bool {
        var power = count
        while power > 1, power % 10 == 0 { power /= 10 }
        return power == 1
    }

    /// The file of an `ipc://` endpoint.
    private static func ipcPath(_ endpoint: String) -> String? {
        guard endpoint.hasPrefix("ipc://") else { return nil }
        let path = String(endpoint.dropFirst("ipc://".count))
        return path.isEmpty || path.hasPrefix("@") ? nil : path
    }

    private static func makeDaemonID() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in String(generator.next() as UInt32, radix: 16) }.joined()
    }
}
