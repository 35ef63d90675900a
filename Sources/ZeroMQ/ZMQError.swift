internal import CZeroMQ

/// A failed libzmq call: the `errno` it set, libzmq's text for it, and the call that failed.
///
/// Equality looks at the code only, so `error == ZMQError(.wouldBlock)`-style checks are written as
/// `error.code == .wouldBlock`. `EAGAIN` is reported as the distinct code ``Code/wouldBlock``: on a non-blocking
/// operation it means "not now", not "broken". Calls interrupted by a signal (`EINTR`) are retried by the wrapper and
/// never surface.
public struct ZMQError: Error, Hashable, Sendable, CustomStringConvertible {
    /// An `errno` value as libzmq reports it (POSIX codes plus libzmq's own, such as `ETERM` and `EFSM`).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The raw `errno` value.
        public let rawValue: Int32

        /// Wraps a raw `errno` value.
        public init(rawValue: Int32) { self.rawValue = rawValue }

        /// `EAGAIN`: a non-blocking operation would have to wait (no room, no message, no completed connection),
        /// or a blocking one ran into its timeout.
        public static let wouldBlock = Code(rawValue: EAGAIN)
        /// `EINVAL`: a bad argument, such as a malformed endpoint or an option value out of range.
        public static let invalidArgument = Code(rawValue: EINVAL)
        /// `EPROTONOSUPPORT`: the endpoint's transport is unknown or not compiled into libzmq.
        public static let protocolNotSupported = Code(rawValue: EPROTONOSUPPORT)
        /// `EADDRINUSE`: the endpoint is bound already.
        public static let addressInUse = Code(rawValue: EADDRINUSE)
        /// `EADDRNOTAVAIL`: the address is not local.
        public static let addressNotAvailable = Code(rawValue: EADDRNOTAVAIL)
        /// `ENODEV`: the interface in the endpoint does not exist.
        public static let noDevice = Code(rawValue: ENODEV)
        /// `ENOENT`: the endpoint is not bound or connected (unbind, disconnect).
        public static let noEntry = Code(rawValue: ENOENT)
        /// `EHOSTUNREACH`: a ROUTER with ``ZMQSocketOption/routerMandatory`` has no peer with that routing id.
        public static let hostUnreachable = Code(rawValue: EHOSTUNREACH)
        /// `ENOTSUP`: the operation is not supported by this socket type (or this libzmq build).
        public static let notSupported = Code(rawValue: ENOTSUP)
        /// `ENOTSOCK`: the socket is closed, or the handle does not belong to this event loop.
        public static let notSocket = Code(rawValue: ENOTSOCK)
        /// `EFSM`: the operation is not valid in the socket's current state.
        public static let invalidState = Code(rawValue: Int32(ZMQ_HAUSNUMERO) + 51)
        /// `ETERM`: the context (or the event loop) was shut down.
        public static let terminated = Code(rawValue: Int32(ZMQ_HAUSNUMERO) + 53)
        /// `EMSGSIZE`: the message is too large for the transport.
        public static let messageTooLarge = Code(rawValue: EMSGSIZE)
        /// `EBUSY`: the resource is still in use (a context with open sockets cannot be terminated).
        public static let busy = Code(rawValue: EBUSY)
        /// `ECANCELED`: the task waiting for the operation was cancelled before it was carried out.
        public static let cancelled = Code(rawValue: ECANCELED)

        public var description: String {
            switch self {
            case .wouldBlock: "wouldBlock"
            case .invalidArgument: "invalidArgument"
            case .protocolNotSupported: "protocolNotSupported"
            case .addressInUse: "addressInUse"
            case .addressNotAvailable: "addressNotAvailable"
            case .noDevice: "noDevice"
            case .noEntry: "noEntry"
            case .hostUnreachable: "hostUnreachable"
            case .notSupported: "notSupported"
            case .notSocket: "notSocket"
            case .invalidState: "invalidState"
            case .terminated: "terminated"
            case .messageTooLarge: "messageTooLarge"
            case .busy: "busy"
            case .cancelled: "cancelled"
            default: "errno \(rawValue)"
            }
        }
    }

    /// What went wrong, as an `errno` code.
    public let code: Code
    /// libzmq's text for the code (`zmq_strerror`), e.g. "Protocol not supported".
    public let message: String
    /// The call that failed, with its main argument, e.g. `zmq_connect(bogus://x)`.
    public let call: String

    /// Makes an error for `code`, with libzmq's text for it.
    public init(_ code: Code, call: String) {
        self.code = code
        self.call = call
        self.message = ZMQError.text(for: code.rawValue)
    }

    /// Whether this is `EAGAIN`: the operation would have had to wait.
    public var isWouldBlock: Bool { code == .wouldBlock }

    public var description: String {
        if code == .wouldBlock { return "\(call): would block (\(message))" }
        return "\(call): \(message) (\(code))"
    }

    public static func == (lhs: ZMQError, rhs: ZMQError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// The error for the calling thread's current `zmq_errno()`.
    static func last(_ call: @autoclosure () -> String) -> ZMQError {
        ZMQError(Code(rawValue: zmq_errno()), call: call())
    }

    private static func text(for errno: Int32) -> String {
        guard let text = zmq_strerror(errno) else { return "errno \(errno)" }
        return String(cString: text)
    }
}

/// Runs a libzmq call that returns -1 on failure, retrying it while it fails with `EINTR`.
///
/// - Returns: the call's non-negative result.
/// - Throws: ``ZMQError`` with the call's `errno` (and `call` as its description) for any other failure.
@discardableResult
func retryingOnInterrupt(_ call: @autoclosure () -> String, _ body: () -> Int32) throws(ZMQError) -> Int32 {
    while true {
        let result = body()
        if result >= 0 { return result }
        let errno = zmq_errno()
        if errno == EINTR { continue }
        throw ZMQError(ZMQError.Code(rawValue: errno), call: call())
    }
}
