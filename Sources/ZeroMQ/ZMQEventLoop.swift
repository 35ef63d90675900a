package import Logging
import Synchronization

/// One dedicated I/O thread that owns a set of libzmq sockets, driven from async code.
///
/// ## Threading model
///
/// libzmq sockets must not be used from more than one thread, and blocking in `zmq_poll` or `zmq_recv` on Swift's
/// cooperative pool (two threads on a two-core machine) would stall every task. So each loop starts one OS thread
/// (not a `Task`) that is the only code ever touching its sockets:
///
/// - The thread runs a ``ZMQReactor``: it sleeps in `zmq_poll` over its sockets plus the reactor's wake-up signal (a
///   plain descriptor). The poll's timeout is the nearest pending-send deadline, or none.
/// - Async callers never touch a socket. Each call (``makeSocket(_:options:)``, ``bind(_:to:)``,
///   ``setOption(_:to:on:)``, ``send(_:on:timeout:)``, …) posts a command to the thread's ``ZMQMailbox``, which
///   wakes the reactor (unless the loop's own thread posts it, from a receiver or a completion: it takes the command
///   before it waits again). The thread takes the commands, runs them in order and resumes each caller's continuation
///   with the result. Callers therefore see their own calls carried out in the order they made them.
/// - What a socket receives is read on the thread and handed to that socket's ``ZMQSocketHandle/messages``
///   (a bounded ``ZMQInbox``; when it is full the thread stops reading that socket, so libzmq's high-water marks
///   push back on the senders).
///   A socket made with a receiver (``makeSocket(_:options:receiver:)``) hands each message to it on the thread instead.
/// - A send that cannot be queued now (high-water mark, or no completed connection on a `ZMQ_IMMEDIATE` DEALER) waits,
///   in order, until the socket is writable, its timeout runs out, its task is cancelled, or the loop shuts down. A
///   ROUTER cannot tell which peer is writable, so on a ROUTER it fails at once with ``ZMQError/Code/wouldBlock``.
///
/// ## Lifecycle
///
/// The thread starts in `init`. ``shutdown()`` (or cancelling ``run()``, or dropping the last reference to the loop)
/// stops it: pending sends fail with ``ZMQError/Code/terminated``, every inbox ends after its buffered messages,
/// every socket is closed with a bounded linger (``ZMQSocketOptions/linger``, applied even to a socket whose linger
/// was set to -1), and a context the loop made itself is terminated. Shutdown therefore never waits longer than the
/// linger for unsent messages. Calls made after shutdown began fail with ``ZMQError/Code/terminated``.
///
/// ```swift
/// let loop = try ZMQEventLoop(logger: logger)
/// let router = try await loop.makeSocket(.router)
/// let endpoint = try await loop.bind(router, to: "tcp://127.0.0.1:*")
/// for await message in router.messages {
///     try await loop.send(ZMQMessage([message[0], Array("ok".utf8)]), on: router)
/// }
/// await loop.shutdown()
/// ```
package final class ZMQEventLoop: Sendable {
    /// How a loop behaves.
    package struct Configuration: Sendable {
        /// Options applied to every socket the loop makes, unless ``makeSocket(_:options:)`` is given others.
        package var socketOptions: ZMQSocketOptions
        /// Unread messages buffered per socket before the loop stops reading it (see ``ZMQInbox``).
        package var inboxCapacity: Int
        /// Messages read from one socket per wake-up before the others get their turn.
        package var receiveBatch: Int
        /// The I/O thread's name.
        package var threadName: String

        /// A configuration; every parameter has a default.
        package init(
            socketOptions: ZMQSocketOptions = ZMQSocketOptions(),
            inboxCapacity: Int = 1000,
            receiveBatch: Int = 64,
            threadName: String = "zmq-loop"
        ) {
            self.socketOptions = socketOptions
            self.inboxCapacity = inboxCapacity
            self.receiveBatch = receiveBatch
            self.threadName = threadName
        }
    }

    /// The context of the loop's sockets; make `inproc://` peers of them in this context.
    package let context: ZMQContext
    /// The loop's settings.
    package let configuration: Configuration
    private let core: LoopCore

    /// Starts a loop and its thread.
    ///
    /// - Parameters:
    ///   - context: the context for the loop's sockets; `nil` makes one that the loop terminates when it shuts down
    ///     (or, if sockets made on it elsewhere are still open then, when the last of them is closed).
    ///   - configuration: socket defaults and buffering.
    ///   - logger: where the loop logs its lifecycle and unexpected libzmq failures.
    /// - Throws: ``ZMQError`` when libzmq cannot make the context, the wake-up signal cannot be opened, or the thread
    ///   cannot start.
    package init(
        context: ZMQContext? = nil,
        configuration: Configuration = Configuration(),
        logger: Logger
    ) throws(ZMQError) {
        let ownsContext = context == nil
        let context = if let context { context } else { try ZMQContext() }
        self.context = context
        self.configuration = configuration
        let loopID = nextLoopID.add(1, ordering: .relaxed).newValue
        let reactor = try ZMQReactor()
        var logger = logger
        logger[metadataKey: "zmq.loop"] = "\(loopID)"
        let core = LoopCore(
            context: context,
            ownsContext: ownsContext,
            configuration: configuration,
            logger: logger,
            wakeUp: reactor.wakeSignal
        )
        self.core = core
        let transferred = TransferredReactor(reactor)
        do throws(ZMQError) {
            try ZMQThread.start(name: configuration.threadName) {
                LoopThread(core: core, reactor: transferred.reactor).run()
            }
        } catch {
            reactor.close()
            throw error
        }
        logger.debug("zmq event loop started", metadata: ["zmq.thread": "\(configuration.threadName)"])
    }

    deinit {
        core.requestShutdown()
    }

    // MARK: - Lifecycle

    /// Shuts the loop down (see the type's documentation) and waits until its thread has finished.
    ///
    /// Safe to call more than once and from several tasks; every caller waits for the end.
    package func shutdown() async {
        core.requestShutdown()
        await core.waitUntilTerminated()
    }

    /// Waits until the loop is shut down: by ``shutdown()``, or by cancelling the task running this, which then shuts
    /// the loop down. Fits `ServiceLifecycle`'s `Service.run()`.
    package func run() async {
        await withTaskCancellationHandler {
            await core.waitUntilTerminated()
        } onCancel: {
            core.requestShutdown()
        }
    }

    /// Whether shutdown has begun.
    package var isShuttingDown: Bool { core.isShuttingDown }

    // MARK: - Sockets

    /// Makes a socket owned by the loop's thread.
    ///
    /// - Parameter options: the options to apply; `nil` uses ``Configuration/socketOptions``.
    /// - Returns: the socket's handle; what it receives arrives in ``ZMQSocketHandle/messages``.
    package func makeSocket(
        _ type: ZMQSocketType,
        options: ZMQSocketOptions? = nil
    ) async throws(ZMQError) -> ZMQSocketHandle {
        let options = options ?? configuration.socketOptions
        return try await core.perform("makeSocket(\(type))") { loop throws(ZMQError) in
            try loop.makeSocket(type, options: options)
        }
    }

    /// Makes a socket owned by the loop's thread whose messages go to `receiver`, called on that thread as each is
    /// read, instead of to ``ZMQSocketHandle/messages`` (which ends at once): for a reader that keeps no task waiting
    /// on the socket. `receiver` must not block (the whole loop waits for it).
    ///
    /// - Parameter options: the options to apply; `nil` uses ``Configuration/socketOptions``.
    package func makeSocket(
        _ type: ZMQSocketType,
        options: ZMQSocketOptions? = nil,
        receiver: @escaping @Sendable (ZMQMessage) -> Void
    ) async throws(ZMQError) -> ZMQSocketHandle {
        let options = options ?? configuration.socketOptions
        return try await core.perform("makeSocket(\(type))") { loop throws(ZMQError) in
            try loop.makeSocket(type, options: options, receiver: receiver)
        }
    }

    /// Closes a socket: its pending sends fail with ``ZMQError/Code/notSocket``, its inbox ends after the buffered
    /// messages, and unsent messages linger as its ``ZMQSocketOption/linger`` allows. Closing a closed socket, or
    /// after shutdown, does nothing.
    package func close(_ socket: ZMQSocketHandle) async {
        _ = try? await core.perform("close(\(socket))") { loop in loop.closeSocket(socket.id) }
    }

    /// Binds `socket` to `endpoint`.
    ///
    /// - Returns: the bound endpoint with any wildcard resolved (`tcp://127.0.0.1:*` gives the chosen port).
    @discardableResult
    package func bind(_ socket: ZMQSocketHandle, to endpoint: String) async throws(ZMQError) -> String {
        try await withSocket(socket) { socket throws(ZMQError) in
            try socket.bind(endpoint)
            return try socket.option(.lastEndpoint)
        }
    }

    /// Connects `socket` to `endpoint`; the connection is made (and remade) in the background.
    package func connect(_ socket: ZMQSocketHandle, to endpoint: String) async throws(ZMQError) {
        try await withSocket(socket) { socket throws(ZMQError) in try socket.connect(endpoint) }
    }

    /// Stops `socket` listening on `endpoint` (the resolved form ``bind(_:to:)`` returned).
    package func unbind(_ socket: ZMQSocketHandle, from endpoint: String) async throws(ZMQError) {
        try await withSocket(socket) { socket throws(ZMQError) in try socket.unbind(endpoint) }
    }

    /// Drops `socket`'s connection to `endpoint`.
    package func disconnect(_ socket: ZMQSocketHandle, from endpoint: String) async throws(ZMQError) {
        try await withSocket(socket) { socket throws(ZMQError) in try socket.disconnect(endpoint) }
    }

    /// Sets an option on `socket`.
    package func setOption<Value>(
        _ option: ZMQSocketOption<Value>,
        to value: Value,
        on socket: ZMQSocketHandle
    ) async throws(ZMQError) {
        try await withSocket(socket) { socket throws(ZMQError) in try socket.setOption(option, to: value) }
    }

    /// Reads an option of `socket`.
    package func option<Value>(
        _ option: ZMQSocketOption<Value>,
        of socket: ZMQSocketHandle
    ) async throws(ZMQError) -> Value {
        try await withSocket(socket) { socket throws(ZMQError) in try socket.option(option) }
    }

    /// Starts monitoring `socket`'s connections.
    ///
    /// - Returns: a PAIR socket whose ``ZMQSocketHandle/messages`` are monitor events: parse them with
    ///   ``ZMQMonitorEvent/init(_:)``. Close it with ``close(_:)`` when done.
    package func startMonitor(
        _ socket: ZMQSocketHandle,
        events: ZMQMonitorEvent.Kind = .all
    ) async throws(ZMQError) -> ZMQSocketHandle {
        try await core.perform("startMonitor(\(socket))") { loop throws(ZMQError) in
            try loop.startMonitor(socket.id, events: events)
        }
    }

    /// Runs `body` with the socket itself, on the loop's thread: for what this API does not wrap.
    ///
    /// `body` must not block (the whole loop waits for it), keep the socket, or close it (use ``close(_:)``).
    package func withSocket<Result: Sendable>(
        _ socket: ZMQSocketHandle,
        _ body: @escaping @Sendable (ZMQSocket) throws(ZMQError) -> Result
    ) async throws(ZMQError) -> Result {
        try await core.perform("\(socket)") { loop throws(ZMQError) in
            try body(loop.socket(socket.id))
        }
    }

    // MARK: - Sending

    /// Sends `message` on `socket`, waiting until libzmq has queued it.
    ///
    /// Sends on one socket leave in the order they were made. A send waits while the message cannot be queued
    /// (high-water mark reached, or no completed connection on a `ZMQ_IMMEDIATE` DEALER).
    ///
    /// - Parameters:
    ///   - timeout: how long it may wait; `nil` without limit, `.zero` not at all.
    /// - Throws: ``ZMQError``: ``ZMQError/Code/wouldBlock`` when the timeout ran out (or at once on a ROUTER whose
    ///   peer is full), ``ZMQError/Code/hostUnreachable`` from a ROUTER for an unknown routing id,
    ///   ``ZMQError/Code/cancelled`` when the task was cancelled before the message was queued,
    ///   ``ZMQError/Code/notSocket`` when the socket is closed, ``ZMQError/Code/terminated`` after shutdown.
    package func send(
        _ message: ZMQMessage,
        on socket: ZMQSocketHandle,
        timeout: Duration? = nil
    ) async throws(ZMQError) {
        guard !message.isEmpty else {
            throw ZMQError(.invalidArgument, call: "send(message without frames) on \(socket)")
        }
        let deadline = timeout.map { ContinuousClock.now.advanced(by: $0) }
        let ticket = SendTicket(on: socket)
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                guard ticket.arm(continuation) else { return }
                let accepted = core.enqueue { loop in
                    loop.enqueueSend(
                        PendingSend(message: message, waiter: .ticket(ticket), deadline: deadline), on: socket.id)
                }
                if !accepted { ticket.complete(.failure(ZMQError(.terminated, call: ticket.call))) }
            }
        } onCancel: {
            if ticket.cancel() {
                // Drop the cancelled entry from the socket's queue now rather than when the socket becomes writable.
                _ = core.enqueue { loop in loop.purgeCancelledSends(on: socket.id) }
            }
        }
        try result.get()
    }

    /// Queues `message` for `socket` without waiting: as ``send(_:on:timeout:)`` without a timeout (in order with the
    /// other sends on the socket, waiting while it cannot be queued), but the outcome goes to `completion`, called on
    /// the loop's thread (it must not block), instead of to an awaiting task. For a sender that keeps no task per
    /// message.
    ///
    /// - Returns: `false` when the loop is shutting down (`completion` is then not called).
    @discardableResult
    package func post(
        _ message: ZMQMessage,
        on socket: ZMQSocketHandle,
        then completion: @escaping @Sendable (Result<Void, ZMQError>) -> Void
    ) -> Bool {
        guard !message.isEmpty else {
            completion(.failure(ZMQError(.invalidArgument, call: "post(message without frames) on \(socket)")))
            return true
        }
        return core.enqueue { loop in
            loop.enqueueSend(
                PendingSend(message: message, waiter: .completion(completion, socket: socket), deadline: nil),
                on: socket.id)
        }
    }

    /// The number of sends waiting in the loop for `socket` to become writable (a backlog gauge).
    package func pendingSendCount(on socket: ZMQSocketHandle) async throws(ZMQError) -> Int {
        try await core.perform("pendingSendCount(on: \(socket))") { loop throws(ZMQError) in
            try loop.pendingSendCount(on: socket.id)
        }
    }
}

/// Ids for loops, for their log metadata.
private let nextLoopID = Atomic<UInt64>(0)

/// Moves the reactor (and its wake-up signal) to the loop thread, which is its only user from then on.
///
/// - Note: `@unchecked Sendable` because thread creation is the full memory barrier libzmq asks for when a socket
///   changes threads, and the creating thread never touches the reactor again.
private struct TransferredReactor: @unchecked Sendable {
    let reactor: ZMQReactor

    init(_ reactor: ZMQReactor) { self.reactor = reactor }
}

// MARK: - Shared state

/// What callers and the loop thread share: the command mailbox (whose closing begins shutdown) and the waiters for
/// the end of shutdown.
final class LoopCore: Sendable {
    typealias Command = @Sendable (LoopThread) -> Void

    let context: ZMQContext
    let ownsContext: Bool
    let configuration: ZMQEventLoop.Configuration
    let logger: Logger
    let mailbox: ZMQMailbox<Command>
    /// `nil` once the loop has terminated.
    private let terminationWaiters = Mutex<[CheckedContinuation<Void, Never>]?>([])

    init(
        context: ZMQContext,
        ownsContext: Bool,
        configuration: ZMQEventLoop.Configuration,
        logger: Logger,
        wakeUp: ZMQWakeSignal
    ) {
        self.context = context
        self.ownsContext = ownsContext
        self.configuration = configuration
        self.logger = logger
        self.mailbox = ZMQMailbox(wakeUp: wakeUp)
    }

    var isShuttingDown: Bool { mailbox.isClosed }

    /// The loop thread's id (`pthread_self`), set when it starts: its own commands need no wake-up.
    let loopThreadID = Atomic<UInt>(0)

    /// Queues `command` for the loop thread and wakes it, unless this is the loop thread (a receiver or a send's
    /// completion posting): it takes the command before it waits again, with no wake-up to write and read.
    ///
    /// - Returns: `false` when shutdown has begun (the command is dropped).
    func enqueue(_ command: @escaping Command) -> Bool {
        if loopThreadID.load(ordering: .relaxed) == ZMQThread.currentID {
            return mailbox.postWithoutWaking(command)
        }
        return mailbox.post(command)
    }

    /// Runs `body` on the loop thread and returns its result.
    func perform<Result: Sendable>(
        _ call: String,
        _ body: @escaping @Sendable (LoopThread) throws(ZMQError) -> Result
    ) async throws(ZMQError) -> Result {
        typealias Outcome = Swift.Result<Result, ZMQError>
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
            let accepted = enqueue { loop in
                continuation.resume(returning: Swift.Result { () throws(ZMQError) -> Result in try body(loop) })
            }
            if !accepted { continuation.resume(returning: .failure(ZMQError(.terminated, call: call))) }
        }
        return try result.get()
    }

    /// Begins shutdown; the loop thread finishes it (also used by the loop thread itself after a fatal poll error).
    func requestShutdown() {
        mailbox.close()
    }

    /// Waits until the loop thread has finished.
    func waitUntilTerminated() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let terminated = terminationWaiters.withLock { waiters in
                guard waiters != nil else { return true }
                waiters!.append(continuation)
                return false
            }
            if terminated { continuation.resume() }
        }
    }

    /// Marks the loop terminated and resumes everyone waiting for it.
    func markTerminated() {
        let waiters = terminationWaiters.withLock { waiters in
            defer { waiters = nil }
            return waiters ?? []
        }
        for waiter in waiters { waiter.resume() }
    }
}
