public import FlowCore
public import FlowWire

/// The daemon refused a request: an `ERROR` reply (`docs/PROTOCOL.md` §3), with its stable wire code.
///
/// Equality looks at the code only, so callers write `error.code == .unknownSession`.
public struct DaemonError: CodedError, Sendable {
    /// The stable error code, e.g. ``FlowWire/WireError/Code/unknownSession``.
    public let code: WireError.Code
    /// The daemon's explanation, for a person.
    public let message: String
    /// The type of the message that failed, when the daemon could read it (`"STEP"`).
    public let type: String?
    /// The request number of the message that failed, when the daemon could read it.
    public let req: UInt64?

    /// An error with `code` and `message`.
    public init(code: WireError.Code, message: String, type: String? = nil, req: UInt64? = nil) {
        self.code = code
        self.message = message
        self.type = type
        self.req = req
    }

    /// The error an `ERROR` reply carries.
    public init(_ reply: ErrorReply) {
        self.init(code: reply.code, message: reply.message, type: reply.type, req: reply.req)
    }
}

/// A request that did not get an answer from the daemon, or a client used the wrong way.
///
/// Equality looks at the code only.
public struct FlowClientError: CodedError, Sendable {
    /// What went wrong; an open set of codes.
    public typealias Code = ErrorCode<FlowClientError>

    /// What went wrong.
    public let code: Code
    /// Details for a person.
    public let message: String

    /// An error with `code` and `message`.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
}

extension ErrorCode<FlowClientError> {
    /// No reply came within the request's timeout (the daemon does not run, or does not answer).
    public static var timedOut: Self { Self("timedOut") }
    /// The connection was lost after the request was sent: the daemon may or may not have carried it out.
    public static var connectionLost: Self { Self("connectionLost") }
    /// The request was not delivered and never will be: its timeout ran out before it could be sent, or the
    /// daemon it was sent to restarted without its state (whatever that run did with it is gone with it). Safe to
    /// send again as a new request.
    public static var notDelivered: Self { Self("notDelivered") }
    /// The request needs a connection and there is none now (a presenter's report while reconnecting).
    public static var notConnected: Self { Self("notConnected") }
    /// The client's `run()` has ended (or was never able to start): nothing can be sent any more.
    public static var stopped: Self { Self("stopped") }
    /// The reply does not have the shape the protocol gives it.
    public static var badReply: Self { Self("badReply") }
    /// The client's settings cannot work (an invalid name, a malformed endpoint, an `ipc://` endpoint without keys in a
    /// folder another user owns: docs/SECURITY.md §3).
    public static var invalidConfiguration: Self { Self("invalidConfiguration") }
    /// ZeroMQ failed.
    public static var transport: Self { Self("transport") }
}
