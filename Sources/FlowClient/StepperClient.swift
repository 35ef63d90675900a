public import FlowCore
public import FlowWire
import Logging
public import ServiceLifecycle
import Synchronization

/// An attachment the daemon handed to this stepper process (`ATTACH`, `docs/PROTOCOL.md` §5.1): from now on the
/// process may emit steps for it, as RxFlow's `readyToEmitSteps()` allows.
public struct RemoteAttachment: Sendable, Hashable, Identifiable, CustomStringConvertible {
    /// An attachment's identity: its session and number.
    public struct ID: Sendable, Hashable, CustomStringConvertible {
        public var session: String
        public var attachment: AttachmentID

        public init(session: String, attachment: AttachmentID) {
            self.session = session
            self.attachment = attachment
        }

        /// `default/att#12`.
        public var description: String { "\(session)/\(attachment)" }
    }

    /// The session the attachment lives in.
    public var session: String
    /// The attachment's number in its session.
    public var attachment: AttachmentID
    /// The stepper kind the daemon asks for (`movies.detail`).
    public var kind: String
    /// The screen the attachment is about (a flow's root for a flow stepper).
    public var presentable: PresentableID
    /// `contributor` for a screen's stepper, `flow` for a flow's own stepper.
    public var role: String
    /// What the attachment is about: the remote stepper's own `context` when the flow gives it one, else the
    /// contributed screen's `data` (`null` when it has none); docs/PROTOCOL.md §5.1.
    public var context: JSONValue
    /// Whether a stepper process (this one before a restart, or another) already emitted a step for it that the
    /// daemon carried out: its start-up steps are taken, the tree shows their effect (`ATTACH.resumed`).
    public var resumed = false

    public var id: ID { ID(session: session, attachment: attachment) }

    /// `movies.detail default/att#12 on wishlist.movie.23452`.
    public var description: String { "\(kind) \(id) on \(presentable)" }
}

// In an extension, so that the memberwise initializer stays (for FlowClient and its tests).
extension RemoteAttachment {
    /// The attachment an `ATTACH` message describes.
    public init(_ message: Attach) {
        self.init(
            session: message.session, attachment: AttachmentID(message.attachment), kind: message.kind,
            presentable: PresentableID(message.presentable), role: message.role, context: message.context,
            resumed: message.resumed
        )
    }
}

/// What happens to a stepper process's attachments, in the order the daemon said it.
public enum StepperEvent: Sendable, Hashable {
    /// A new attachment: the process may emit steps for it (an `ATTACH` for a known attachment is not repeated).
    case attached(RemoteAttachment)
    /// The attachment ended (`presentableDismissed`, `flowEnded`, or `daemonRestarted` when the daemon that made it
    /// is gone); steps for it are refused from now on.
    case detached(RemoteAttachment, reason: String)
    /// A person acted on the attachment's screen (`ACTION`): decide what it means, usually by emitting a step.
    case action(Step, on: RemoteAttachment)
}

/// What became of an emitted step (the `OK` reply to `STEP`).
public enum StepOutcome: Sendable, Hashable, CustomStringConvertible {
    /// The step entered the session's queue and has been handled by the coordinator.
    case accepted
    /// The coordinator dropped it (`notVisible`, `noneStep`, `attachmentEnded`, …).
    case dropped(StepDropReason)

    public var description: String {
        switch self {
        case .accepted: return "accepted"
        case .dropped(let reason): return "dropped (\(reason))"
        }
    }
}

/// A stepper process's side of the protocol: it serves stepper kinds, receives attachments and actions, and emits
/// steps for its attachments.
///
/// ```swift
/// let client = StepperClient(name: "movies", serves: ["movies.detail"])
/// try await client.run { event in
///     if case .action(let action, let attachment) = event, action.name == "pickCast" {
///         _ = try await client.emit(Step("castIsPicked", payload: action.payload), for: attachment)
///     }
/// }
/// ```
///
/// ``run()`` keeps the connection (handshake, heartbeats, reconnection, `BYE` when cancelled); ``events`` yields
/// ``StepperEvent``s; ``run(handler:)`` does both. As a `Service` in a service group it also leaves (`BYE`) on the
/// group's graceful shutdown; ``StepperService`` runs one for a ``StepperLogic`` value. After a reconnect the daemon
/// sends `ATTACH` again for every attachment still alive: those are no-ops here. A daemon that restarted with its
/// state (the same run ID in `WELCOME`) keeps its attachments, and so does this client. When the daemon restarted
/// without its state (its run ID changed), every known attachment is reported ``StepperEvent/detached(_:reason:)``
/// with reason `daemonRestarted`.
///
/// A client made with `adapts: true` answers `ADAPT` (`docs/PROTOCOL.md` §5.6): a flow's `adapt` asked of one of its
/// kinds. The questions come on ``adaptRequests``; ``answer(_:with:)`` sends each answer (``run(handler:adapt:)``
/// does both with a closure).
///
/// ``emit(_:for:)`` awaits the verdict; ``emit(_:for:onVerdict:)`` hands it to a closure on the client's I/O thread
/// instead, with no task in between (the fastest way, for a service whose decisions do not wait).
///
/// `Sendable`: its state is behind a mutex; ``emit(_:for:)`` may be called from any task.
public final class StepperClient: Service, Sendable {
    /// The client's stable name (how the daemon recognises a restarted process).
    public let name: String
    /// The stepper kinds this process serves.
    public let kinds: [String]
    /// The attachment events, in order; one consumer. Ends when ``run()`` ends.
    public let events: AsyncStream<StepperEvent>
    private let continuation: AsyncStream<StepperEvent>.Continuation
    /// Whether it answers `ADAPT` (its `HELLO` says so).
    public let adapts: Bool
    /// The `ADAPT` questions, in order; one consumer. Ends when ``run()`` ends; nothing comes unless ``adapts``.
    public let adaptRequests: AsyncStream<AdaptMessage>
    private let adaptContinuation: AsyncStream<AdaptMessage>.Continuation
    private let connection: FlowConnection
    private let known = Mutex<[RemoteAttachment.ID: RemoteAttachment]>([:])
    /// The level an `ATTACH` for a known attachment (sent again after a reconnect) is logged at: debug for a bare
    /// client; a ``StepperService``, which logs each first attachment at info, logs these at info too.
    let knownAttachLevel: Logger.Level

    /// A stepper client serving `kinds`.
    ///
    /// - Parameters:
    ///   - name: the process's stable name, `[A-Za-z0-9._-]{1,64}`.
    ///   - kinds: the stepper kinds it serves (`movies.detail`).
    ///   - adapts: whether it answers `ADAPT` for those kinds (``adaptRequests``, ``answer(_:with:)``).
    public convenience init(
        name: String, serves kinds: [String], adapts: Bool = false,
        configuration: FlowClientConfiguration = FlowClientConfiguration()
    ) {
        self.init(name: name, serves: kinds, adapts: adapts, configuration: configuration, knownAttachLevel: .debug)
    }

    init(
        name: String, serves kinds: [String], adapts: Bool, configuration: FlowClientConfiguration,
        knownAttachLevel: Logger.Level
    ) {
        self.name = name
        self.kinds = kinds
        self.adapts = adapts
        self.knownAttachLevel = knownAttachLevel
        (events, continuation) = AsyncStream.makeStream()
        (adaptRequests, adaptContinuation) = AsyncStream.makeStream()
        connection = FlowConnection(
            role: .stepper, name: name, serves: kinds, adapts: adapts, configuration: configuration)
    }

    /// The attachments this process holds now, by session and number.
    public var attachments: [RemoteAttachment] {
        known.withLock { Array($0.values) }.sorted {
            ($0.session, $0.attachment.rawValue) < ($1.session, $1.attachment.rawValue)
        }
    }

    /// Connects and serves until cancelled or a graceful shutdown of its service group (then says `BYE`); ``events``
    /// ends when this returns.
    ///
    /// - Throws: ``FlowClientError`` when the client cannot work at all (an invalid name or kind, a malformed
    ///   endpoint), ``DaemonError`` when the daemon refuses the `HELLO`.
    public func run() async throws {
        defer {
            continuation.finish()
            adaptContinuation.finish()
        }
        try await cancelWhenGracefulShutdown { [self] in
            // The events are yielded on the I/O thread as they are read: no task in between.
            try await connection.run(inline: { [weak self] batch in self?.handle(batch) })
        }
    }

    /// Connects, serves until cancelled, and calls `handler` for every event in order; a client that ``adapts``
    /// answers each `ADAPT` with what `adapt` returns (the step goes through by default).
    ///
    /// `handler` may call ``emit(_:for:)``. An error it throws ends the client and is rethrown here (but a
    /// `CancellationError` while this task is cancelled: then it returns, like ``run()``).
    public func run(
        handler: @escaping @Sendable (StepperEvent) async throws -> Void,
        adapt: @escaping @Sendable (AdaptMessage) async -> AdaptAnswer = { _ in .allow }
    ) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await self.run() }
            group.addTask {
                for await question in self.adaptRequests { self.answer(question, with: await adapt(question)) }
            }
            for await event in events {
                do {
                    try await handler(event)
                } catch is CancellationError where Task.isCancelled {
                    break
                } catch {
                    group.cancelAll()
                    throw error
                }
            }
            try await group.waitForAll()
        }
    }

    /// Emits `step` for `attachment` (`STEP`) and waits for the coordinator's verdict.
    ///
    /// ``FlowCore/Step/none`` (RxFlow's `NoneStep`) never reaches a flow: it is dropped here with reason `noneStep`.
    ///
    /// The step is carried out at most once, and survives the daemon being away for a while: emitted while the client
    /// is not connected, it waits for the next connection; when the connection is lost before the verdict, it is sent
    /// again, with the same `req`, as soon as the same daemon run (the same `WELCOME.daemon`, also after a restart
    /// that recovered its journal) welcomes the client. The daemon recognises a step it has carried out already (by
    /// `HELLO.instance` and `req`, `docs/PROTOCOL.md` §5.3) and answers with the first verdict instead of applying it
    /// twice. How it can end without a verdict, within ``FlowClientConfiguration/requestTimeout``:
    /// - ``FlowClientError/Code/notDelivered``: the step definitely had no effect: the timeout ran out while it was
    ///   waiting for a connection and had never been sent (it is taken out and never sent later), or the daemon came
    ///   back as a new run that lost its state (the run it was sent to is gone, with anything it did). Emitting it
    ///   again is safe.
    /// - ``FlowClientError/Code/timedOut``: it was sent and no verdict came (or it waits for the daemon run it was
    ///   sent to): the outcome is unknown, the step was applied at most once. It is not sent again after this.
    ///
    /// - Throws: ``DaemonError`` (`unknownAttachment` after a `DETACH`, `unknownSession`, `unknownStep`, …),
    ///   ``FlowClientError`` (`notDelivered`, `timedOut`, `stopped`, `badReply`); `CancellationError` when the task
    ///   is cancelled (a step still waiting for a connection is then not sent).
    public func emit(_ step: Step, for attachment: RemoteAttachment) async throws -> StepOutcome {
        try await emit(step, session: attachment.session, attachment: attachment.attachment)
    }

    /// Emits `step` for the attachment numbered `attachment` in `session` (see ``emit(_:for:)``).
    public func emit(_ step: Step, session: String, attachment: AttachmentID) async throws -> StepOutcome {
        if step.isNone { return .dropped(.noneStep) }
        let verdict = try await connection.request(StepVerdict.self, policy: .resend) { req in
            .step(StepMessage(req: req, session: session, attachment: attachment.rawValue, step: step))
        }
        return Self.outcome(of: verdict, for: step, session: session, attachment: attachment, logger: connection.logger)
    }

    /// Emits `step` for `attachment` as ``emit(_:for:)`` does (the same delivery, at most once, within the same
    /// timeout), without a task waiting for the verdict: `onVerdict` gets the outcome, or the error ``emit(_:for:)``
    /// would throw (never a `CancellationError`), once.
    ///
    /// `onVerdict` is called on the thread that learnt the outcome: the client's I/O thread for the daemon's reply
    /// (the timeouts' task for an expiry; at once, on the caller's, for ``FlowCore/Step/none`` or a stopped client).
    /// It must return soon and never block: the connection waits for it. For a service that decides on the I/O thread,
    /// or emits many steps without a task each.
    public func emit(
        _ step: Step, for attachment: RemoteAttachment,
        onVerdict: @escaping @Sendable (Result<StepOutcome, any Error>) -> Void
    ) {
        if step.isNone { return onVerdict(.success(.dropped(.noneStep))) }
        let session = attachment.session
        let number = attachment.attachment
        do {
            _ = try connection.submit(
                policy: .resend,
                { req in .step(StepMessage(req: req, session: session, attachment: number.rawValue, step: step)) },
                onReply: { [logger = connection.logger] _, result in
                    onVerdict(
                        Result {
                            let verdict = try FlowConnection.typed(StepVerdict.self, try result.get(), of: .step)
                            return Self.outcome(
                                of: verdict, for: step, session: session, attachment: number, logger: logger)
                        })
                })
        } catch {
            onVerdict(.failure(error))
        }
    }

    private static func outcome(
        of verdict: StepVerdict, for step: Step, session: String, attachment: AttachmentID, logger: Logger
    ) -> StepOutcome {
        if verdict.duplicate {
            logger.debug(
                "flowd had carried this step out already; its verdict is the first one",
                metadata: ["step": "\(step.name)", "session": "\(session)", "attachment": "\(attachment)"]
            )
        }
        if verdict.accepted { return .accepted }
        return .dropped(StepDropReason(verdict.reason ?? "unknown"))
    }

    /// Answers an `ADAPT` (`ADAPTED`) on the current connection.
    ///
    /// - Returns: `false` when no connection is welcomed: the answer is dropped, and the daemon asks again once the
    ///   client is back (it asks the question of another process serving the kind if one connects first).
    @discardableResult
    public func answer(_ question: AdaptMessage, with answer: AdaptAnswer) -> Bool {
        let sent = connection.send(
            .adapted(AdaptedMessage(session: question.session, request: question.request, answer: answer)))
        connection.logger.debug(
            sent ? "ADAPT answered" : "ADAPT answer dropped: not connected",
            metadata: ["session": "\(question.session)", "request": "\(question.request)", "answer": "\(answer)"])
        return sent
    }

    private func handle(_ batch: [ConnectionEvent]) {
        for event in batch {
            switch event {
            case .connected(_, let daemonChanged):
                guard daemonChanged else { continue }
                let gone = known.withLock { known in
                    defer { known.removeAll() }
                    return known.values.sorted { $0.attachment < $1.attachment }
                }
                for attachment in gone { continuation.yield(.detached(attachment, reason: "daemonRestarted")) }
            case .message(.attach(let message)):
                let attachment = RemoteAttachment(message)
                let isNew = known.withLock { known in
                    guard known[attachment.id] == nil else { return false }
                    known[attachment.id] = attachment
                    return true
                }
                if isNew {
                    connection.logger.debug("attached", metadata: ["attachment": "\(attachment)"])
                    continuation.yield(.attached(attachment))
                } else {
                    connection.logger.log(
                        level: knownAttachLevel, "attached again (known attachment: no event)",
                        metadata: ["attachment": "\(attachment)", "resumed": "\(attachment.resumed)"])
                }
            case .message(.detach(let message)):
                let id = RemoteAttachment.ID(session: message.session, attachment: AttachmentID(message.attachment))
                if let attachment = known.withLock({ $0.removeValue(forKey: id) }) {
                    continuation.yield(.detached(attachment, reason: message.reason))
                }
            case .message(.action(let message)):
                let id = RemoteAttachment.ID(session: message.session, attachment: AttachmentID(message.attachment))
                if let attachment = known.withLock({ $0[id] }) {
                    continuation.yield(.action(message.action, on: attachment))
                } else {
                    connection.logger.warning(
                        "ACTION for an unknown attachment ignored", metadata: ["attachment": "\(id)"])
                }
            case .message(.adapt(let question)):
                if adapts {
                    adaptContinuation.yield(question)
                } else {
                    connection.logger.warning(
                        "ADAPT to a client that does not answer them ignored",
                        metadata: ["session": "\(question.session)", "request": "\(question.request)"])
                }
            case .message, .disconnected:
                break
            }
        }
    }
}
