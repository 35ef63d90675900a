import FlowCore
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
        try Self.typed(Result.self, try await reply(to: ticket, timeout: timeout), of: ticket.type)
    }

    /// An `OK` result to a request of `type`, typed.
    ///
    /// - Throws: ``FlowClientError/Code/badReply`` when `json` does not decode as `Result`.
    static func typed<Result: WireResult>(
        _: Result.Type, _ json: JSONValue, of type: MessageType
    ) throws -> Result {
        do {
            return try Result(json: json)
        } catch {
            throw FlowClientError(.badReply, "the OK to \(type.rawValue) does not decode: \(error)")
        }
    }
}
