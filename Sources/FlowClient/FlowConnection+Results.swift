import FlowWire

extension FlowConnection {
    /// Submits a request and waits for its typed `OK` result (see ``request(policy:_:)``).
    ///
    /// - Throws: what ``request(policy:_:)`` throws; ``FlowClientError/Code/badReply`` when the result does not
    ///   decode as `Result`.
    func request<Result: WireResult>(
        _: Result.Type, policy: DisconnectedPolicy = .wait, _ make: (UInt64) -> ClientMessage
    ) async throws -> Result {
        try await reply(Result.self, to: try submit(policy: policy, make))
    }

    /// Waits for a submitted request's typed `OK` result (see ``reply(to:timeout:)``).
    func reply<Result: WireResult>(
        _: Result.Type, to ticket: RequestTicket, timeout: Duration? = nil
    ) async throws -> Result {
        let json = try await reply(to: ticket, timeout: timeout)
        do {
            return try Result(json: json)
        } catch {
            throw FlowClientError(.badReply, "the OK to \(ticket.type.rawValue) does not decode: \(error)")
        }
    }
}
