internal import FlowCore
internal import FlowWire
internal import Logging
import ZeroMQ

extension DaemonServer {
    /// Carries out the core's outputs on the I/O thread.
    struct Driver {
        let router: ZMQSocket
        let publisher: ZMQSocket
        let codec: WireCodec
        let server: DaemonServer
        /// Where the core's journal records go before anything they caused is sent.
        var journal: JournalCommitter?
        let logger: Logger
        /// Messages dropped because a peer's queue was full, since the start.
        var droppedSends = 0
        /// Whether events were published since the I/O loop last read the events socket's subscriptions.
        var publishedEvents = false
        /// Whether anything was sent on the control socket since the I/O loop last asked it for messages.
        var sentControl = false
        var localSubscriptions = LocalSubscriptions()
        /// Where each control message's body is written before it is sent, reused message after message.
        var bodyWriter = FastJSONWriter()
        var largeSends = LargeSendWarning()
        /// Peers a send found gone, whose losses are handled next, the last one pushed first.
        var unreachablePeers: [PeerAddress] = []
        /// Where the names of the stepper processes are kept for the next start (``StepperNamesFile``), with a journal.
        var stepperNames: StepperNamesFile?

        /// Commits the core's journal records, then carries out `outputs`: nothing leaves before what caused it is
        /// written (and synced, by the fsync policy). While the journal cannot be written, outputs wait in the
        /// ``JournalCommitter``. The batch is consumed: ``send(_:on:now:)`` takes each output out of the array, which
        /// would be copied whole if the caller still held it.
        ///
        /// - Throws: ``JournalError`` when the journal cannot be trusted (a failed sync): the daemon stops rather than
        ///   answer what it could lose (its supervisor restarts it, and it recovers what was committed).
        mutating func perform(_ batch: consuming [DaemonOutput], on core: inout DaemonCore, now: UInt64) throws {
            try carryOut(consume batch, on: &core, now: now)
            try handleUnreachablePeers(on: &core, now: now)
        }

        private mutating func carryOut(_ batch: consuming [DaemonOutput], on core: inout DaemonCore, now: UInt64) throws {
            var outputs = settle(consume batch, on: &core, now: now)
            let records = core.takeJournal()
            if journal != nil {
                outputs = try journal!.commit(records, outputs: consume outputs, core: &core, now: now)
            }
            // Before the turn's sends: a process whose `WELCOME` left is in the file, whatever SIGKILL follows.
            let nameChanges = core.takeStepperNameChanges()
            if !nameChanges.isEmpty { stepperNames?.write(nameChanges) }
            try send(consume outputs, on: &core, now: now)
        }

        /// Commits what a failing journal holds once its retry is due, and sends what waited for it.
        mutating func retryJournal(on core: inout DaemonCore, now: UInt64) throws {
            guard journal != nil else { return }
            try send(try journal!.retryIfDue(core: &core, now: now), on: &core, now: now)
            try handleUnreachablePeers(on: &core, now: now)
        }

        /// Handles the loss of each peer a send found gone, as a batch of its own. A loop, not a recursion: a lost
        /// stepper's attachments go to the next process serving their kind, which may be gone too, and so on through
        /// every connection that closed unseen (thousands after a burst of connects). The peers one loss finds gone
        /// are handled before those found before it, the order the recursion had.
        private mutating func handleUnreachablePeers(on core: inout DaemonCore, now: UInt64) throws {
            while let address = unreachablePeers.popLast() {
                try carryOut(core.handle(.peerUnreachable(address), now: now), on: &core, now: now)
            }
        }

        private mutating func send(_ outputs: consuming [DaemonOutput], on core: inout DaemonCore, now: UInt64) throws {
            var unreachable: [PeerAddress] = []
            // Events go out after the control messages of the same turn: nothing waits for them, and a presenter
            // waits for its COMMAND (docs/PERFORMANCE.md).
            var events: [EventMessage] = []
            for index in outputs.indices {
                // Taken out of the array (a trivial output left in its place): the payload of one switched on in
                // place is copied as it is bound, through the tuple's generic value witness.
                var output = DaemonOutput.detachLocal(session: "", attachment: AttachmentID(0))
                swap(&output, &outputs[index])
                switch consume output {
                case .send(let address, let message):
                    sentControl = true
                    do {
                        codec.encodeBody(message, into: &bodyWriter)
                        let sent = try bodyWriter.withBytes { (body) throws(ZMQError) in
                            try router.trySend(
                                routingID: address.routingID, WireProtocol.signature, message.typeFrame, body)
                        }
                        if sent {
                            largeSends.sent(message.type, bytes: bodyWriter.count, to: address, logger: logger)
                        } else {
                            core.sendDropped(message, to: address)
                            // A stuck peer makes one drop per message: the 1st, 10th, 100th… are logged.
                            droppedSends += 1
                            if RepeatedWarning.isLogged(droppedSends) {
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
            for event in events { publish(ZMQMessage(codec.encodeEvent(event)), on: &core) }
            if !events.isEmpty { publishedEvents = true }
            unreachablePeers += unreachable.reversed()
        }

        /// Publishes an event to its subscribers. The events socket refuses an event a subscriber's full queue cannot
        /// take (`ZMQ_XPUB_NODROP`): that is counted and logged, and the event is sent again without the option, to
        /// the others. libzmq then passes over the full subscriber silently until it has read part of its queue, so
        /// one overflow is counted however many events it misses meanwhile, and however many subscribers the event
        /// found full.
        private mutating func publish(_ event: ZMQMessage, on core: inout DaemonCore) {
            do {
                if try publisher.trySend(event) { return }
                core.countEventQueueOverflow()
                // A subscriber that reads too slowly overflows again and again: the 1st, 10th, 100th… are logged.
                let overflows = core.counters.eventQueueOverflows
                if RepeatedWarning.isLogged(overflows) {
                    logger.warning(
                        "a subscriber's events queue is full: it misses events until it reads (docs/LIMITS.md)",
                        metadata: ["overflows_so_far": "\(overflows)"])
                }
                try publisher.setOption(.xpubNoDrop, to: false)
                defer { try? publisher.setOption(.xpubNoDrop, to: true) }
                _ = try publisher.trySend(event)
            } catch {
                logger.error("publishing an event failed", metadata: ["error": "\(error)"])
            }
        }

        /// Listens to the in-daemon steppers the outputs attach (the tree called their `readyToEmitSteps()` already
        /// and took what they emitted there), and hands the core what they and other threads queued meanwhile, until
        /// nothing more comes: what a stepper emits at once (for a USER_ACTION an `ActionHandlingStepper` handles)
        /// joins the batch, so its journal records are committed with the batch, before the batch's replies go out. A
        /// crash cannot lose such a step after its action was answered.
        private mutating func settle(
            _ batch: consuming [DaemonOutput], on core: inout DaemonCore, now: UInt64
        ) -> [DaemonOutput] {
            var outputs = consume batch
            var next = 0
            // Bounded: steppers that keep emitting as they are attached (an application's loop) are served in later
            // turns too, so the daemon keeps serving everyone else.
            for _ in 0..<64 {
                for index in next..<outputs.count {
                    switch outputs[index] {
                    case .attachLocal(let session, let attachment), .resumeLocal(let session, let attachment):
                        listen(to: attachment, in: session)
                    case .detachLocal(let session, let id):
                        localSubscriptions.cancel(session: session, attachment: id)
                    case .send, .publish, .runAdapt:
                        break
                    }
                }
                next = outputs.count
                let queued = server.takeQueuedInputs().inputs
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
            localSubscriptions.add(subscription, to: attachment.stepper.steps, session: session, attachment: id)
        }

        mutating func detachAll() {
            localSubscriptions.cancelAll()
        }
    }
}
