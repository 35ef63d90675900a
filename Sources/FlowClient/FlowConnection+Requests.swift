import FlowCore
import FlowWire
import ZeroMQ

extension FlowConnection {
    // MARK: - Requests and messages

    /// Numbers a request, registers it for its reply and queues it (for the current connection, or the next one).
    ///
    /// - Throws: ``FlowClientError/Code/stopped`` after `run` ended; ``FlowClientError/Code/notConnected`` with
    ///   ``DisconnectedPolicy/fail`` when no connection is welcomed.
    func submit(
        policy: DisconnectedPolicy = .wait,
        _ make: (UInt64) -> ClientMessage
    ) throws(FlowClientError) -> RequestTicket {
        try state.withLock { state throws(FlowClientError) in
            try submit(policy: policy, make, on: &state)
        }
    }

    /// Submits a request (as ``submit(policy:_:)``) whose outcome goes to `onReply` with its number instead of to an
    /// awaiting task: the `OK` result, or the error ``reply(to:timeout:)`` would throw (but never a
    /// `CancellationError`: no task waits).
    ///
    /// `onReply` is called once, outside the connection's lock, on the thread that learnt the outcome (the loop's for
    /// a reply, the timeouts' task for an expiry, the connection's task when it ended); it must not block. The timeout
    /// counts from now and is served while ``run(handler:)`` runs (from its start, for a request made before).
    ///
    /// - Parameter timeout: `nil` uses ``FlowClientConfiguration/requestTimeout``.
    func submit(
        policy: DisconnectedPolicy = .wait,
        timeout: Duration? = nil,
        _ make: (UInt64) -> ClientMessage,
        onReply: @escaping @Sendable (_ req: UInt64, Result<JSONValue, any Error>) -> Void
    ) throws(FlowClientError) -> RequestTicket {
        let timeout = timeout ?? configuration.requestTimeout
        return try state.withLock { state throws(FlowClientError) in
            let ticket = try submit(policy: policy, make, on: &state)
            state.waiters[ticket.req] = .callback(onReply)
            // Under the lock: its reply, which takes the lock, cannot come before its deadline is kept.
            if let timeout { timeouts.keep(ticket.req, timeout: timeout, due: ContinuousClock.now + timeout) }
            return ticket
        }
    }

    private func submit(
        policy: DisconnectedPolicy,
        _ make: (UInt64) -> ClientMessage,
        on state: inout State
    ) throws(FlowClientError) -> RequestTicket {
        let req = Self.nextRequestNumber()
        let message = make(req)
        let actions = try state.machine.submit(message, req: req, policy: policy)
        _ = perform(actions, on: &state)  // only sends
        return RequestTicket(req: req, type: message.type)
    }

    /// Fires the requests' timeouts (see ``reply(to:timeout:)``) while the client runs.
    func fireTimeouts() async {
        await timeouts.run { req, deadline, now in
            // The waiter gets the reply or the expiry (both under the lock: never both).
            let (wake, followUp) = state.withLock { state in
                let (actions, wake) = state.machine.timeoutFired(
                    req, after: deadline.timeout, due: deadline.due, at: now, extended: deadline.extended)
                return (wake, perform(actions, on: &state))
            }
            finish(followUp)
            return wake
        }
    }

    /// Waits for the reply to a submitted request.
    ///
    /// When the timeout runs out (time this process did not run counts as in ``ConnectionMachine/timeoutFired``) the
    /// request is given up: taken out of the queue if it waits for a connection (it is
    /// never sent afterwards), and a reply that comes later is ignored.
    ///
    /// - Parameter timeout: how long to wait; `nil` uses ``FlowClientConfiguration/requestTimeout``.
    /// - Returns: the `OK` result.
    /// - Throws: ``DaemonError`` for an `ERROR` reply; ``FlowClientError`` (`timedOut`, `connectionLost`, `stopped`;
    ///   `notDelivered` for a ``DisconnectedPolicy/resend`` request that timed out before any daemon run could have
    ///   carried it out, or that the daemon run it was sent to lost with its state); `CancellationError` when the
    ///   task is cancelled.
    func reply(to ticket: RequestTicket, timeout: Duration? = nil) async throws -> JSONValue {
        guard let timeout = timeout ?? configuration.requestTimeout else { return try await waitForReply(ticket.req) }
        // While the client runs, one task fires every request's timeout; before (or after) it, the request times
        // itself.
        if timeouts.schedule(ticket.req, timeout: timeout, due: ContinuousClock.now + timeout) {
            defer { timeouts.cancel(ticket.req) }
            return try await waitForReply(ticket.req)
        }
        return try await withThrowingTaskGroup(of: JSONValue?.self) { group in
            group.addTask { try await self.waitForReply(ticket.req) }
            group.addTask {
                let clock = ContinuousClock()
                var due = clock.now + timeout
                var extended = false
                while true {
                    try await Task.sleep(until: due, clock: clock)
                    let now = clock.now
                    // The waiting task ends with the reply or the expiry (both under the lock: never both).
                    let (wake, followUp) = self.state.withLock { [due, extended] state in
                        let (actions, wake) = state.machine.timeoutFired(
                            ticket.req, after: timeout, due: due, at: now, extended: extended)
                        return (wake, self.perform(actions, on: &state))
                    }
                    self.finish(followUp)
                    guard let wake else { return nil }
                    (due, extended) = (wake, true)
                }
            }
            defer { group.cancelAll() }
            while let next = try await group.next() {
                if let result = next { return result }
            }
            throw CancellationError()
        }
    }

    /// Submits a request and waits for its reply (see ``submit(policy:_:)`` and ``reply(to:timeout:)``).
    func request(policy: DisconnectedPolicy = .wait, _ make: (UInt64) -> ClientMessage) async throws -> JSONValue {
        try await reply(to: try submit(policy: policy, make))
    }

    /// Sends a message that gets no reply (`ACK`, `HEARTBEAT`) on the current connection.
    ///
    /// - Returns: `false` when no connection is welcomed (the message is dropped).
    @discardableResult
    func send(_ message: ClientMessage) -> Bool {
        state.withLock { state in
            guard state.machine.send(message) != nil else { return false }
            state.sender?.send(frames(message))
            return true
        }
    }

    private func waitForReply(_ req: UInt64) async throws -> JSONValue {
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: Continuation) in
                let ready = state.withLock { state -> Result<JSONValue, any Error>? in
                    if let result = state.results.removeValue(forKey: req) { return result }
                    guard state.machine.isPending(req) else {
                        return .failure(Task.isCancelled ? CancellationError() : ConnectionMachine.stopped)
                    }
                    if Task.isCancelled {
                        state.machine.forget(req)
                        return .failure(CancellationError())
                    }
                    state.waiters[req] = .task(continuation)
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Continuation? in
                guard case .task(let waiter)? = state.waiters[req] else { return nil }
                state.waiters[req] = nil
                state.machine.forget(req)
                return waiter
            }
            waiter?.resume(returning: .failure(CancellationError()))
        }
        return try result.get()
    }
}
